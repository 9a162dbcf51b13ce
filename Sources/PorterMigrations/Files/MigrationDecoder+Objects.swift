import ParseModel
import PorterPipeline

/// The `where` and `set` of data operations.
extension MigrationDecoder {
    /// The required `where`: a Parse query, `{}` for every object. Its constraints are checked
    /// by the target when the migration runs.
    func query(_ args: JSONObject, at keyPath: String) throws(PorterError) -> JSONObject {
        let value = try required(args, "where", at: keyPath)
        guard case .object(let query) = value else {
            throw fail("\(keyPath).where", "must be a query mapping like {title: \"Draft\"} ({} for every object), not \(value.kindName)")
        }
        return query
    }

    /// `set`: field names to Parse wire JSON values, or `{"__op": "Delete"}` to unset.
    func changes(_ value: JSONValue, at keyPath: String) throws(PorterError) -> JSONObject {
        guard case .object(let changes) = value else { throw fail(keyPath, "must map field names to values, not \(value.kindName)") }
        guard !changes.isEmpty else { throw fail(keyPath, "must set at least one field") }
        for member in changes {
            let fieldPath = "\(keyPath).\(member.key)"
            if let problem = ParseNames.fieldNameProblem(member.key) { throw fail(fieldPath, problem) }
            if let operation = member.value["__op"] {
                guard operation == .string("Delete"), case .object(let object) = member.value, object.members.count == 1 else {
                    throw fail(fieldPath, "\(member.value.serialized()) is not a value to set: the only operation is {\"__op\": \"Delete\"}")
                }
                continue
            }
            do { _ = try ParseValue(wire: member.value) } catch { throw fail(fieldPath, "\(member.value.serialized()): \(error.message)") }
        }
        return changes
    }
}
