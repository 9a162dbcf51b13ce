import ParseModel

/// Reads the classes of Parse's `/schemas` JSON (a Parse export's `schema.json`, a schema file of
/// the `schema` commands) with the checks Parse Server makes when it is given them. Each fault
/// names its key path, e.g. `results[2].fields.genre.type`.
package struct SchemaEntryReader: Sendable {
    /// Makes the error for a fault at a key path (`""` for the whole document).
    package let fail: @Sendable (_ path: String, _ reason: String) -> PorterError

    package init(fail: @escaping @Sendable (_ path: String, _ reason: String) -> PorterError) {
        self.fail = fail
    }

    /// The entry's `className`, which must be a valid Parse class name.
    package func className(of spec: JSONObject, at path: String) throws(PorterError) -> String {
        guard case .string(let className)? = spec["className"] else { throw fail("\(path).className", "is required") }
        if let problem = ParseNames.classNameProblem(className) { throw fail("\(path).className", "\"\(className)\": \(problem)") }
        return className
    }

    /// The fields of `specs` (the entry's `fields` object) other than `objectId`, `createdAt`,
    /// `updatedAt` and `ACL`; `path` is the key path of that object.
    package func fields(_ specs: JSONObject, at path: String) throws(PorterError) -> [SchemaField] {
        var fields: [SchemaField] = []
        for member in specs where !ParseNames.defaultFields.contains(member.key) {
            if let problem = ParseNames.fieldNameProblem(member.key) { throw fail(path, "\"\(member.key)\": \(problem)") }
            let fieldPath = "\(path).\(member.key)"
            if fields.contains(where: { $0.name == member.key }) { throw fail(fieldPath, "field listed twice") }
            fields.append(try field(member.key, member.value, at: fieldPath))
        }
        return fields
    }

    /// One field: `{"type":…, "targetClass":…, "required":…, "defaultValue":…}`. A Relation is
    /// neither required nor has a default; a `defaultValue` is wire JSON of the field's type.
    package func field(_ name: String, _ spec: JSONValue, at path: String) throws(PorterError) -> SchemaField {
        guard case .object(let spec) = spec else { throw fail(path, "must be a field like {\"type\": \"String\"}, not \(spec.kindName)") }
        let type = try type(of: spec, at: path)
        var required = false
        switch spec["required"] {
        case nil, .null?: break
        case .bool(let flag)?: required = flag
        case let other?: throw fail("\(path).required", "must be true or false, not \(other.kindName)")
        }
        if type.isRelation && required { throw fail("\(path).required", "a Relation cannot be required") }
        guard let json = spec["defaultValue"], json != .null else { return SchemaField(name: name, type: type, required: required) }
        if type.isRelation { throw fail("\(path).defaultValue", "a Relation cannot have a defaultValue") }
        let value: ParseValue
        do { value = try ParseValue(wire: json, as: type) } catch { throw fail("\(path).defaultValue", "\(json.serialized()): \(error.message)") }
        guard value.fieldType == type else { throw fail("\(path).defaultValue", "\(json.serialized()) is not a \(type)") }
        return SchemaField(name: name, type: type, required: required, defaultValue: value)
    }

    /// The type a field spec gives with `type` and `targetClass`, which a Pointer and a Relation
    /// need (`Pointer<Genre>`) and other types ignore.
    package func type(of spec: JSONObject, at path: String) throws(PorterError) -> FieldType {
        let typeName: String
        switch spec["type"] {
        case nil, .null?: throw fail("\(path).type", "is required")
        case .string(let name)?: typeName = name
        case let other?: throw fail("\(path).type", "must be a type name like \"String\", not \(other.kindName)")
        }
        var targetClass: String?
        switch spec["targetClass"] {
        case nil, .null?: break
        case .string(let target)?:
            if let problem = ParseNames.classNameProblem(target) { throw fail("\(path).targetClass", "\"\(target)\": \(problem)") }
            targetClass = target
        case let other?: throw fail("\(path).targetClass", "must be a class name, not \(other.kindName)")
        }
        guard let type = FieldType(name: typeName, targetClass: targetClass) else {
            if typeName == "Pointer" || typeName == "Relation" { throw fail(path, "\(typeName) needs a targetClass (the class it refers to)") }
            throw fail("\(path).type", "unknown type \"\(typeName)\" (expected \(Self.declaredTypes))")
        }
        return type
    }

    /// The types a field is declared with, as messages list them; `ACL` is left out: it is the
    /// type of every class's own `ACL` field.
    static let declaredTypes = "String, Number, Boolean, Date, Object, Array, GeoPoint, File, Bytes, Polygon, Pointer, Relation"
}
