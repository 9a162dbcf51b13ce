import ParseModel
import PorterPipeline

extension OperationRunner {
    /// Renames a field in three steps, each skipped when a previous run did it: add `to` (same
    /// type, target class and options), copy the values (a Relation: the links) of the objects
    /// where `from` is set, delete `from`. Only `to` existing means done; neither is an error caused ``PorterError/Cause/invalidData``.
    func renameField(_ from: String, to: String, of className: String) async throws(PorterError) -> OperationResult {
        let schema = try await existingClass(className)
        let name = "\(className).\(from)"
        guard let source = schema.field(named: from) else {
            guard schema.field(named: to) != nil else { throw PorterError(.invalidData, "cannot rename \(name): \(className) has neither \(from) nor \(to)") }
            return OperationResult("\(name) was renamed to \(to) already")
        }
        if let problem = from == to ? "a field cannot be renamed to itself" : ParseNames.fieldNameProblem(to) {
            throw PorterError(.invalidData, "cannot rename \(name) to \(to): \(problem)")
        }
        var renamed = source
        renamed.name = to
        var schemaChanges = 0
        if let existing = schema.field(named: to) {
            guard existing.type == source.type else {
                throw PorterError(.invalidData, "cannot rename \(name) to \(to): \(className).\(to) exists as \(existing.type), not \(source.type)")
            }
        } else {
            try await changeSchema(of: className, JSONObject(["fields": Self.fieldJSON(renamed, of: className)]), "adding \(className).\(to)") {
                $0?.field(named: to)?.type == source.type
            }
            schemaChanges += 1
        }
        let copied =
            if case .relation(let targetClass) = source.type {
                try await copyLinks(of: className, from: from, to: to, targetClass: targetClass)
            } else {
                try await copyValues(of: className, from: source, to: renamed, where: JSONObject([from: .object(JSONObject(["$exists": .bool(true)]))])) { $0 }
            }
        try await deleteFields([from], of: className)
        return OperationResult(
            "renamed \(name) → \(to) (\(Noun.counted(copied.written, "object")) copied, \(copied.unchanged) had it already)",
            schemaChanges: schemaChanges + 1, objectsWritten: copied.written, objectsUnchanged: copied.unchanged)
    }
}
