import ParseModel
import ParseRules
import PorterPipeline

/// `createClass`, class-level permissions and indexes, as `/schemas` spells them.
extension MigrationDecoder {
    func classSchema(_ args: JSONObject, at keyPath: String) throws(PorterError) -> ClassSchema {
        let className = try className(args, at: keyPath)
        var fields: [SchemaField] = []
        if let value = args["fields"], value != .null {
            guard case .object(let specs) = value else {
                throw fail("\(keyPath).fields", #"must map field names to field specs like {"title": {"type": "String"}}, not \#(value.kindName)"#)
            }
            for member in specs {
                let fieldPath = "\(keyPath).fields.\(member.key)"
                if let problem = ParseNames.fieldNameProblem(member.key) { throw fail("\(keyPath).fields", "\"\(member.key)\": \(problem)") }
                if fields.contains(where: { $0.name == member.key }) { throw fail(fieldPath, "field listed twice") }
                fields.append(try field(member.key, try mapping(member.value, at: fieldPath, allowed: Self.fieldSpecKeys), at: fieldPath))
            }
        }
        var permissions: JSONValue?
        if let value = args["classLevelPermissions"], value != .null {
            permissions = try self.permissions(value, at: "\(keyPath).classLevelPermissions")
        }
        var indexes: JSONValue?
        if let value = args["indexes"], value != .null {
            indexes = try IndexKeys.checkIndexes(value, at: "\(keyPath).indexes", fail: fail)
        }
        return ClassSchema(className: className, fields: fields, classLevelPermissions: permissions, indexes: indexes)
    }

    /// Class-level permissions as `/schemas` takes them (``ClassLevelPermissions/check(_:at:fail:)``).
    func permissions(_ value: JSONValue, at keyPath: String) throws(PorterError) -> JSONValue {
        try ClassLevelPermissions.check(value, at: keyPath, fail: fail)
        return value
    }
}
