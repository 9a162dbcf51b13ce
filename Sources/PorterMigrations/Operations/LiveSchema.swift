import ParseModel
import PorterPipeline

/// Reading and changing the target's schema, the first step of every operation.
extension OperationRunner {
    /// The class's schema as the target has it now; an error caused ``PorterError/Cause/invalidData`` when the class does not exist.
    func existingClass(_ className: String) async throws(PorterError) -> ClassSchema {
        guard let schema = try await api.schema(of: className) else {
            throw PorterError(.invalidData, "class \(className) does not exist on \(target.location)")
        }
        return schema
    }

    /// Sends a `/schemas` change (`PUT` to change a class, `POST` to create one). When it is
    /// refused, the schema is read again: a change found done (a request repeated after its
    /// answer was lost, e.g. 255 "does not exist, cannot delete") counts as made.
    func changeSchema(
        _ method: String = "PUT", of className: String, _ body: JSONObject, _ what: String,
        isDone: (ClassSchema?) -> Bool
    ) async throws(PorterError) {
        do {
            _ = try await api.send(method, "/schemas/\(className)", body: .object(body))
        } catch {
            guard case .refused = error, isDone(try await api.schema(of: className)) else { throw error.porterError(what) }
        }
    }

    /// `{"<name>": {"type": …}}` for one field, as `/schemas` bodies spell it.
    static func fieldJSON(_ field: SchemaField, of className: String) -> JSONValue {
        ClassSchema(className: className, fields: [field]).fieldsJSON
    }

    /// The names `where` constrains that the class does not have (`$and`/`$or`/`$nor` searched,
    /// a dotted key checked by its first part, other `$` keys left to the target).
    static func unknownFields(in constraints: JSONObject, of schema: ClassSchema) -> [String] {
        var unknown: [String] = []
        for member in constraints {
            if ["$and", "$or", "$nor"].contains(member.key), case .array(let parts) = member.value {
                for case .object(let part) in parts { unknown += unknownFields(in: part, of: schema) }
                continue
            }
            guard !member.key.hasPrefix("$") else { continue }
            let root = String(member.key.prefix { $0 != "." })
            if !ParseNames.defaultFields.contains(root) && schema.field(named: root) == nil { unknown.append(member.key) }
        }
        return unknown
    }

    /// Exit 1 naming the fields `where` uses that `schema` lacks.
    static func checkWhere(_ constraints: JSONObject, of schema: ClassSchema) throws(PorterError) {
        let unknown = unknownFields(in: constraints, of: schema)
        guard unknown.isEmpty else {
            throw PorterError(.invalidData, "where: \(schema.className) has no field \(unknown.joined(separator: ", "))")
        }
    }
}

extension JSONValue {
    /// The members of an object; none for other values.
    var objectMembers: [JSONMember] {
        if case .object(let object) = self { return object.members }
        return []
    }
}
