import ParseModel
import PorterPipeline

/// `createClass`, class-level permissions and indexes, as `/schemas` spells them.
extension MigrationDecoder {
    /// The operations a class-level permission is given for.
    static let permissionOperations = [
        "find", "count", "get", "create", "update", "delete", "addField", "readUserFields", "writeUserFields", "protectedFields",
    ]
    /// What an index maps a field to.
    static let indexKinds: [JSONValue] = [.integer(1), .integer(-1), .double(1), .double(-1), .string("text"), .string("2dsphere")]

    func classSchema(_ args: JSONObject, at keyPath: String) throws(PorterError) -> ClassSchema {
        let className = try className(args, at: keyPath)
        var fields: [SchemaField] = []
        if let value = args["fields"], value != .null {
            guard case .object(let specs) = value else {
                throw fail("\(keyPath).fields", "must map field names to field specs like {type: String}, not \(value.kindName)")
            }
            for member in specs {
                let fieldPath = "\(keyPath).fields.\(member.key)"
                if let problem = ParseNames.fieldNameProblem(member.key) { throw fail(fieldPath, problem) }
                if fields.contains(where: { $0.name == member.key }) { throw fail(fieldPath, "declared twice") }
                fields.append(try field(member.key, try mapping(member.value, at: fieldPath, allowed: Self.fieldSpecKeys), at: fieldPath))
            }
        }
        var permissions: JSONValue?
        if let value = args["classLevelPermissions"], value != .null {
            permissions = try self.permissions(value, at: "\(keyPath).classLevelPermissions")
        }
        var indexes: JSONValue?
        if let value = args["indexes"], value != .null {
            guard case .object(let object) = value else { throw fail("\(keyPath).indexes", "must be a mapping of index names to keys, not \(value.kindName)") }
            for member in object { _ = try indexKeys(member.value, at: "\(keyPath).indexes.\(member.key)") }
            indexes = value
        }
        return ClassSchema(className: className, fields: fields, classLevelPermissions: permissions, indexes: indexes)
    }

    /// An index's keys: a non-empty mapping of field names to 1, -1, "text" or "2dsphere".
    func indexKeys(_ value: JSONValue, at keyPath: String) throws(PorterError) -> JSONValue {
        guard case .object(let keys) = value, !keys.isEmpty else {
            throw fail(keyPath, "must map the indexed fields to 1, -1, \"text\" or \"2dsphere\", like {title: 1}")
        }
        for member in keys {
            if member.key.isEmpty { throw fail(keyPath, "an indexed field needs a name") }
            guard Self.indexKinds.contains(member.value) else {
                throw fail("\(keyPath).\(member.key)", "\(member.value.serialized()) is not an index kind (expected 1, -1, \"text\" or \"2dsphere\")")
            }
        }
        return value
    }

    /// Class-level permissions as `/schemas` takes them; a permission is granted by `true` only.
    func permissions(_ value: JSONValue, at keyPath: String) throws(PorterError) -> JSONValue {
        let clp = try mapping(value, at: keyPath, allowed: Self.permissionOperations)
        for member in clp {
            let operationPath = "\(keyPath).\(member.key)"
            switch member.key {
            case "readUserFields", "writeUserFields":
                try names(member.value, at: operationPath)
            case "protectedFields":
                guard case .object(let entities) = member.value else { throw fail(operationPath, "must map entities to lists of fields, not \(member.value.kindName)") }
                for entity in entities { try names(entity.value, at: "\(operationPath).\(entity.key)") }
            default:
                guard case .object(let entities) = member.value else {
                    throw fail(operationPath, "must map entities (\"*\", \"role:Name\", a user id) to true, not \(member.value.kindName)")
                }
                for entity in entities where entity.key == "pointerFields" {
                    try names(entity.value, at: "\(operationPath).pointerFields")
                }
                for entity in entities where entity.key != "pointerFields" && entity.value != .bool(true) {
                    throw fail("\(operationPath).\(entity.key)", "must be true, not \(entity.value.serialized()) (leave an entity out to deny it)")
                }
            }
        }
        return value
    }

    /// Checks that `value` is a list of names.
    private func names(_ value: JSONValue, at keyPath: String) throws(PorterError) {
        guard case .array(let items) = value, items.allSatisfy({ $0.stringValue?.isEmpty == false }) else {
            throw fail(keyPath, "must be a list of field names, not \(value.serialized())")
        }
    }
}
