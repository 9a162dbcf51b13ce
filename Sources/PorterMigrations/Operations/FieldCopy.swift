import ParseModel
import PorterPipeline

/// Copying one field's values, or one Relation's links, into another field of the same class:
/// the step `renameField` and `changeType` share. Only objects whose target differs are
/// written, so a copy run again after a partial run finishes it and then writes nothing.
extension OperationRunner {
    struct CopyTally {
        var written = 0
        var unchanged = 0
        /// Objects whose value `convert` could not convert, left without one.
        var dropped = 0
    }

    /// Makes `to` hold, on each object matching `where`, `from`'s value converted by `convert`;
    /// `to` is unset where `from` has no value or one that does not convert.
    func copyValues(
        of className: String, from: SchemaField, to: SchemaField, where constraints: JSONObject = JSONObject(),
        convert: (ParseValue) -> ParseValue?
    ) async throws(PorterError) -> CopyTally {
        var tally = CopyTally()
        try await pager.forEachPage(of: className, where: constraints, keys: [from.name, to.name]) { page throws(PorterError) in
            var writes: [ObjectWrite] = []
            for object in page {
                guard let objectId = object["objectId"]?.stringValue else { continue }
                let source = Self.present(object[from.name])
                let wanted = source.flatMap { try? ParseValue(wire: $0, as: from.type) }.flatMap(convert)
                if source != nil && wanted == nil { tally.dropped += 1 }
                if Self.holds(object[to.name], wanted, as: to.type) {
                    tally.unchanged += 1
                } else {
                    writes.append(.update(className, objectId, JSONObject([to.name: wanted?.wireJSON ?? Self.deleteOperation])))
                }
            }
            tally.written += try await writer.send(writes, alreadyDone: [.objectNotFound]).written
        }
        return tally
    }

    /// Adds to each owner's `to` Relation the links its `from` Relation has and `to` lacks.
    func copyLinks(of className: String, from: String, to: String, targetClass: String) async throws(PorterError) -> CopyTally {
        var tally = CopyTally()
        try await pager.forEachPage(of: className, keys: []) { owners throws(PorterError) in
            var writes: [ObjectWrite] = []
            for owner in owners {
                guard let objectId = owner["objectId"]?.stringValue else { continue }
                let linked = try await pager.relatedIds(owner: className, objectId: objectId, field: from, targetClass: targetClass)
                let missing =
                    linked.isEmpty
                    ? []
                    : Set(linked).subtracting(
                        try await pager.relatedIds(owner: className, objectId: objectId, field: to, targetClass: targetClass))
                guard !missing.isEmpty else {
                    tally.unchanged += 1
                    continue
                }
                writes.append(.update(className, objectId, JSONObject([to: Self.relationOperation("AddRelation", missing.sorted(), of: targetClass)])))
            }
            tally.written += try await writer.send(writes, alreadyDone: [.objectNotFound]).written
        }
        return tally
    }

    /// `{"__op":"Delete"}`: unsets a field of an object.
    static let deleteOperation = JSONValue.object(JSONObject(["__op": .string("Delete")]))

    /// `{"__op":"AddRelation"|"RemoveRelation","objects":[pointers]}`.
    static func relationOperation(_ operation: String, _ objectIds: [String], of targetClass: String) -> JSONValue {
        .object(
            JSONObject([
                "__op": .string(operation),
                "objects": .array(objectIds.map { ParseValue.pointer(PointerRef(className: targetClass, objectId: $0)).wireJSON }),
            ]))
    }

    /// A value as read: `nil` when missing or null (Parse on Postgres does not tell them apart).
    static func present(_ json: JSONValue?) -> JSONValue? {
        json == .null ? nil : json
    }

    /// Whether a field read as `json` already holds `wanted` (`nil`: no value). Numbers are
    /// compared by value, so `3` and `3.0` are the same.
    static func holds(_ json: JSONValue?, _ wanted: ParseValue?, as type: FieldType) -> Bool {
        guard let current = present(json) else { return wanted == nil }
        guard let wanted, let value = try? ParseValue(wire: current, as: type) else { return false }
        switch (value, wanted) {
        case (.integer(let a), .double(let b)), (.double(let b), .integer(let a)): return Double(a) == b
        default: return value == wanted
        }
    }
}
