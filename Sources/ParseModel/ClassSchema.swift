/// One declared field of a class: its type and Parse's field options.
public struct SchemaField: Hashable, Sendable {
    /// The field name, as in `/schemas`.
    public var name: String
    /// The field's Parse type.
    public var type: FieldType
    /// Whether every object must have a value (`required: true` in `/schemas`).
    public var required: Bool
    /// The value Parse Server gives new objects that have none.
    public var defaultValue: ParseValue?

    /// A field; `SchemaField(name: "title", type: .string, required: true)`.
    public init(name: String, type: FieldType, required: Bool = false, defaultValue: ParseValue? = nil) {
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
    }

    /// The field as `/schemas` spells it: `{"type":"Pointer","targetClass":"Genre","required":true,"defaultValue":…}`.
    package var specJSON: JSONValue {
        var spec = JSONObject(["type": .string(type.name)])
        if let target = type.targetClass { spec["targetClass"] = .string(target) }
        if required { spec["required"] = .bool(true) }
        if let defaultValue { spec["defaultValue"] = defaultValue.wireJSON }
        return .object(spec)
    }
}

/// A class schema in Parse's `/schemas` format: fields (without the default ones),
/// class-level permissions and indexes kept as their JSON.
public struct ClassSchema: Hashable, Sendable {
    /// The most fields a class may have besides `objectId`, `createdAt`, `updatedAt` and `ACL`,
    /// whether an import or `serve` adds them: a mirror's class is one SQLite table, and SQLite
    /// holds at most 2000 columns (its `SQLITE_MAX_COLUMN`).
    public static let maximumFields = 1000

    /// The class name, such as `Book` or `_User`.
    public var className: String
    /// The fields, default fields (`objectId`, `createdAt`, …) included when the schema came from a target.
    public var fields: [SchemaField]
    /// The class-level permissions in `/schemas` format, `nil` when not set.
    public var classLevelPermissions: JSONValue?
    /// The indexes in `/schemas` format (name → keys), `nil` when not set.
    public var indexes: JSONValue?

    /// A class schema; `ClassSchema(className: "Book", fields: [SchemaField(name: "title", type: .string)])`.
    public init(className: String, fields: [SchemaField], classLevelPermissions: JSONValue? = nil, indexes: JSONValue? = nil) {
        self.className = className
        self.fields = fields
        self.classLevelPermissions = classLevelPermissions
        self.indexes = indexes
    }

    /// The field named `name`, if the class has one.
    public func field(named name: String) -> SchemaField? { fields.first { $0.name == name } }

    /// The class-level permissions Parse Server reports for a class that has none set.
    package static let defaultCLP = JSONValue.object(
        JSONObject([
            "find": .object(JSONObject(["*": .bool(true)])), "count": .object(JSONObject(["*": .bool(true)])),
            "get": .object(JSONObject(["*": .bool(true)])), "create": .object(JSONObject(["*": .bool(true)])),
            "update": .object(JSONObject(["*": .bool(true)])), "delete": .object(JSONObject(["*": .bool(true)])),
            "addField": .object(JSONObject(["*": .bool(true)])), "protectedFields": .object(JSONObject(["*": .array([])])),
        ]))

    /// `{"className":…,"fields":{…default fields…, …},"classLevelPermissions":…,"indexes":…}`
    public var schemaJSON: JSONValue {
        var fieldsJSON = JSONObject([
            "objectId": .object(JSONObject(["type": .string("String")])),
            "createdAt": .object(JSONObject(["type": .string("Date")])),
            "updatedAt": .object(JSONObject(["type": .string("Date")])),
            "ACL": .object(JSONObject(["type": .string("ACL")])),
        ])
        if case .object(let own) = self.fieldsJSON { fieldsJSON.members += own.members }
        var object = JSONObject([
            "className": .string(className),
            "fields": .object(fieldsJSON),
            "classLevelPermissions": classLevelPermissions ?? ClassSchema.defaultCLP,
        ])
        if let indexes, indexes != .object(JSONObject()) { object["indexes"] = indexes }
        return .object(object)
    }

    /// The class's own fields (no default fields) as `/schemas` spells them: what a POST or PUT
    /// to `/schemas/<className>` sends.
    package var fieldsJSON: JSONValue {
        .object(JSONObject(fields.map { JSONMember($0.name, $0.specJSON) }))
    }

    /// Reads a `/schemas` entry; default fields are dropped, unknown types are errors.
    public init(schemaJSON json: JSONValue) throws(ParseValueError) {
        guard case .string(let className)? = json["className"] else {
            throw ParseValueError("schema has no className")
        }
        var fields: [SchemaField] = []
        if case .object(let fieldsJSON)? = json["fields"] {
            for member in fieldsJSON where !ParseNames.defaultFields.contains(member.key) {
                guard case .string(let typeName)? = member.value["type"] else {
                    throw ParseValueError("\(className).\(member.key) has no type")
                }
                var target: String?
                if case .string(let t)? = member.value["targetClass"] { target = t }
                guard let type = FieldType(name: typeName, targetClass: target) else {
                    throw ParseValueError("invalid field type: \(typeName)")
                }
                var required = false
                if case .bool(let r)? = member.value["required"] { required = r }
                let defaultValue = try member.value["defaultValue"].map { (v) throws(ParseValueError) in try ParseValue(wire: v, as: type) }
                fields.append(SchemaField(name: member.key, type: type, required: required, defaultValue: defaultValue))
            }
        }
        self.init(className: className, fields: fields, classLevelPermissions: json["classLevelPermissions"], indexes: json["indexes"])
    }
}
