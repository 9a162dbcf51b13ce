import ParseModel
import PorterPipeline

/// `createClass`, class-level permissions and indexes, as `/schemas` spells them.
extension MigrationDecoder {
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

    /// Class-level permissions as `/schemas` takes them (``ClassLevelPermissions/check(_:at:fail:)``).
    func permissions(_ value: JSONValue, at keyPath: String) throws(PorterError) -> JSONValue {
        try ClassLevelPermissions.check(value, at: keyPath, fail: fail)
        return value
    }
}
