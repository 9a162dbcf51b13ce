import ParseModel
import PorterCore

/// The `/schemas` routes over any ``SchemaStorage``, with Parse Server's checks and error codes:
/// the mirror's, and a Parse Server's own PostgreSQL database as migrations change it.
package struct SchemaRequests {
    let storage: any SchemaStorage
    let fieldLimit: Int
    let mountPath: String

    /// Requests answered on `storage`; a class may have at most `fieldLimit` fields; `mountPath`
    /// names the routes in messages.
    package init(storage: any SchemaStorage, fieldLimit: Int = ClassSchema.maximumFields, mountPath: String = "/parse") {
        self.storage = storage
        self.fieldLimit = fieldLimit
        self.mountPath = mountPath
    }

    /// 103 unless `className` is a valid class name or one of Parse's own classes (`/schemas`).
    package static func checkClassName(_ className: String) throws {
        guard ParseNames.classNameProblem(className) == nil else { throw APIError.invalidClassName(className) }
    }

    /// Answers `method` on `/schemas` (`className` nil) or `/schemas/<className>`: the HTTP
    /// status and the JSON body, Parse's error body when the status is not 2xx. A failure of
    /// the storage itself is thrown, not answered (``APIResponse/init(answering:)``). The caller
    /// runs it in a transaction it rolls back when the answer is an error.
    package func answer(_ method: String, className: String?, body: JSONObject) throws(PorterError) -> APIResponse {
        try APIResponse(answering: { try route(method, className: className, body: body) })
    }

    package func route(_ method: String, className: String?, body: JSONObject) throws -> APIResponse {
        if let className { try Self.checkClassName(className) }
        switch (method, className) {
        case ("GET", nil):
            let schemas = try storage.schemas()
            return APIResponse(JSONObject(["results": .array(schemas.values.sorted { $0.className < $1.className }.map(\.schemaJSON))]))
        case ("GET", let className?):
            guard let schema = try storage.schema(className) else { throw Self.classDoesNotExist(className) }
            return APIResponse(schema.schemaJSON)
        case ("POST", _):
            return try createSchema(body, className: className)
        case ("PUT", let className?):
            return try updateSchema(body, className: className)
        case ("DELETE", let className?):
            return try deleteSchema(className)
        default:
            throw APIError.noRoute(method, "/schemas" + (className.map { "/" + $0 } ?? ""))
        }
    }

    private func createSchema(_ body: JSONObject, className pathName: String?) throws -> APIResponse {
        let bodyName = body["className"]?.stringValue
        if let pathName, let bodyName, pathName != bodyName {
            throw APIError.parse(.invalidClassName, "Class name mismatch between \(bodyName) and \(pathName).")
        }
        guard let className = pathName ?? bodyName else { throw APIError.parse(.missingRequiredFieldError, "POST \(mountPath)/schemas needs a class name.") }
        try Self.checkClassName(className)
        guard try storage.schema(className) == nil else { throw APIError.parse(.invalidClassName, "Class \(className) already exists.") }
        var schema = ClassSchema(className: className, fields: SystemClasses.defaultFields(of: className))
        try Self.applyChanges(body, to: &schema, storage: nil, fieldLimit: fieldLimit)
        try storage.createClass(schema)
        return APIResponse(schema.schemaJSON)
    }

    private func updateSchema(_ body: JSONObject, className: String) throws -> APIResponse {
        if let bodyName = body["className"]?.stringValue, bodyName != className {
            throw APIError.parse(.invalidClassName, "Class name mismatch between \(bodyName) and \(className).")
        }
        guard var schema = try storage.schema(className) else { throw Self.classDoesNotExist(className) }
        try Self.applyChanges(body, to: &schema, storage: storage, fieldLimit: fieldLimit)
        try storage.saveSchema(schema)
        return APIResponse(schema.schemaJSON)
    }

    /// Drops an empty class (255 when it holds objects); a class that does not exist is `{}` as well.
    private func deleteSchema(_ className: String) throws -> APIResponse {
        guard let schema = try storage.schema(className) else { return APIResponse(JSONObject()) }
        let count = try storage.objectCount(className)
        guard count == 0 else {
            throw APIError.parse(.invalidSchemaOperation, "Class \(className) is not empty, contains \(count) objects, cannot drop schema.")
        }
        try storage.dropClass(schema)
        return APIResponse(JSONObject())
    }

    private static func classDoesNotExist(_ className: String) -> APIError {
        .parse(.invalidClassName, "Class \(className) does not exist.")
    }

    /// Applies a POST or PUT body's `fields`, `classLevelPermissions` and `indexes`. With a
    /// storage (PUT on an existing class) added fields get their columns and deleted ones lose
    /// theirs at once; a new class's columns are created with its table. A change that would
    /// leave the class more than `fieldLimit` fields is 255 before any field is touched.
    private static func applyChanges(_ body: JSONObject, to schema: inout ClassSchema, storage: (any SchemaStorage)?, fieldLimit: Int) throws {
        if let fields = body["fields"] {
            guard case .object(let members) = fields else { throw APIError.parse(.invalidJSON, "fields must be an object") }
            var names = Set(schema.fields.map(\.name))
            for member in members {
                if member.value["__op"] == .string("Delete") { names.remove(member.key) } else { names.insert(member.key) }
            }
            guard names.count <= fieldLimit else { throw APIError.tooManyFields(schema.className, count: names.count, limit: fieldLimit) }
            for member in members { try applyField(member.key, member.value, to: &schema, storage: storage) }
        }
        if let permissions = body["classLevelPermissions"] {
            schema.classLevelPermissions = try classLevelPermissions(permissions)
        }
        if let indexes = body["indexes"] {
            schema.indexes = try mergedIndexes(indexes, into: schema.indexes, schema: schema)
        }
    }

    private static func applyField(_ name: String, _ spec: JSONValue, to schema: inout ClassSchema, storage: (any SchemaStorage)?) throws {
        let className = schema.className
        if spec["__op"] == .string("Delete") {
            if SystemClasses.isDefaultField(name, of: className) { throw APIError.parse(.changedImmutableFieldError, "field \(name) cannot be changed") }
            guard schema.field(named: name) != nil, let storage else {
                throw APIError.parse(.invalidSchemaOperation, "Field \(name) does not exist, cannot delete.")
            }
            try storage.dropField(name, from: &schema)
            return
        }
        if SystemClasses.isDefaultField(name, of: className) { throw APIError.parse(.changedImmutableFieldError, "field \(name) cannot be added") }
        guard ParseNames.fieldNameProblem(name) == nil else { throw APIError.parse(.invalidKeyName, "invalid field name: \(name)") }
        let field = try schemaField(name, spec, className: className)
        if let index = schema.fields.firstIndex(where: { $0.name == name }) {
            guard schema.fields[index].type == field.type else { throw APIError.parse(.invalidSchemaOperation, "Field \(name) exists, cannot update.") }
            schema.fields[index] = field
            return
        }
        if field.type == .geoPoint, let other = schema.fields.first(where: { $0.type == .geoPoint }) {
            throw APIError.parse(.incorrectType, "currently, only one GeoPoint field may exist in an object. Adding \(name) when \(other.name) already exists.")
        }
        schema.fields.append(field)
        try storage?.addFields([field], savingSchema: schema)
    }

    /// `{"type":"Pointer","targetClass":"Genre","required":true,"defaultValue":…}`, checked as
    /// Parse Server's `fieldTypeIsInvalid` and `validateSchemaData` check it.
    private static func schemaField(_ name: String, _ spec: JSONValue, className: String) throws -> SchemaField {
        guard case .string(let typeName)? = spec["type"] else {
            throw APIError.parse(.incorrectType, "invalid field type: \(spec["type"].map { $0.serialized() } ?? "undefined")")
        }
        let targetClass = spec["targetClass"]?.stringValue
        if typeName == "Pointer" || typeName == "Relation" {
            guard let targetClass else { throw APIError.parse(.missingRequiredFieldError, "type \(typeName) needs a class name") }
            try Self.checkClassName(targetClass)
        }
        guard let type = FieldType(name: typeName, targetClass: targetClass), type != .acl else {
            throw APIError.parse(.incorrectType, "invalid field type: \(typeName)")
        }
        let required = spec["required"] == .bool(true)
        var defaultValue: ParseValue?
        if let json = spec["defaultValue"], json != .null {
            do { defaultValue = try ParseValue(wire: json, as: type) } catch { throw APIError.parse(.incorrectType, error.message) }
            if let actual = defaultValue?.fieldType, actual != type {
                throw APIError.parse(.incorrectType, "schema mismatch for \(className).\(name) default value; expected \(type) but got \(actual)")
            }
        }
        if case .relation = type, required || defaultValue != nil {
            throw APIError.parse(.incorrectType, "The '\(required ? "required" : "defaultValue")' option is not applicable for Relation")
        }
        return SchemaField(name: name, type: type, required: required, defaultValue: defaultValue)
    }

    /// The CLP operations Parse knows; values must be exactly `true` (107 otherwise). The stored
    /// CLP lists every operation, `{}` (master only) for those not given, as Parse reports it.
    private static let permissionOperations = ["find", "count", "get", "create", "update", "delete", "addField"]

    private static func classLevelPermissions(_ json: JSONValue) throws -> JSONValue {
        guard case .object(let given) = json else { throw APIError.parse(.invalidJSON, "class level permissions must be an object") }
        for member in given {
            switch member.key {
            case _ where permissionOperations.contains(member.key):
                guard case .object(let entries) = member.value else { throw APIError.parse(.invalidJSON, "\(member.key) must be an object") }
                for entry in entries where entry.key != "pointerFields" && entry.value != .bool(true) {
                    throw APIError.parse(
                        .invalidJSON,
                        "'\(entry.value.serialized())' is not a valid value for class level permissions \(member.key):\(entry.key):\(entry.value.serialized())")
                }
            case "protectedFields", "readUserFields", "writeUserFields":
                break
            default:
                throw APIError.parse(.invalidJSON, "\(member.key) is not a valid operation for class level permissions")
            }
        }
        let listed = (permissionOperations + ["protectedFields"]).map { JSONMember($0, given[$0] ?? .object(JSONObject())) }
        let userFields = ["readUserFields", "writeUserFields"].compactMap { name in given[name].map { JSONMember(name, $0) } }
        return .object(JSONObject(listed + userFields))
    }

    /// Adds the given indexes (102 when one exists or names a field the class lacks) and removes
    /// those given as `{"__op":"Delete"}` (102 when missing).
    private static func mergedIndexes(_ json: JSONValue, into current: JSONValue?, schema: ClassSchema) throws -> JSONValue {
        guard case .object(let given) = json else { throw APIError.parse(.invalidQuery, "indexes must be an object") }
        var indexes: JSONObject
        if case .object(let existing)? = current { indexes = existing } else { indexes = JSONObject() }
        for member in given {
            if member.value["__op"] == .string("Delete") {
                guard indexes[member.key] != nil else { throw APIError.parse(.invalidQuery, "Index \(member.key) does not exist, cannot delete.") }
                indexes[member.key] = nil
                continue
            }
            guard indexes[member.key] == nil else { throw APIError.parse(.invalidQuery, "Index \(member.key) exists, cannot update.") }
            guard case .object(let keys) = member.value else { throw APIError.parse(.invalidQuery, "Index \(member.key) must be an object") }
            // A Pointer field is named `_p_<field>` in index keys (Mongo notation), as Parse Server accepts it.
            for key in keys.keys {
                let field = key.hasPrefix("_p_") ? String(key.dropFirst(3)) : key
                guard schema.field(named: field) == nil && !ParseNames.defaultFields.contains(field) else { continue }
                throw APIError.parse(.invalidQuery, "Field \(key) does not exist, cannot add index.")
            }
            indexes[member.key] = member.value
        }
        return .object(indexes)
    }
}

extension APIError {
    /// 255 for a write or schema change that would give `className` `count` fields, more than
    /// the `limit` (``RequestLimits/fieldsPerClass``).
    package static func tooManyFields(_ className: String, count: Int, limit: Int) -> APIError {
        .parse(.invalidSchemaOperation, "\(className) would have \(count) fields; the server allows at most \(limit) per class")
    }
}
