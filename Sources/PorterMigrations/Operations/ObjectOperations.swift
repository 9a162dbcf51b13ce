import ParseModel
import PorterPipeline

/// `updateObjects` and `deleteObjects`: checked against the live schema, then the matching
/// objects are read page by page (objectId order) and written in `/batch` requests.
extension OperationRunner {
    /// Sets (or with `{"__op":"Delete"}` unsets) fields on every object matching `where`.
    /// Objects that hold the values already are not written, so a run after a partial run
    /// writes only the rest.
    func updateObjects(of className: String, where constraints: JSONObject, set values: JSONObject) async throws(PorterError) -> OperationResult {
        let schema = try await existingClass(className)
        try Self.checkWhere(constraints, of: schema)
        let changes = try Self.fieldChanges(values, of: schema)
        var written = 0, unchanged = 0
        try await pager.forEachPage(of: className, where: constraints, keys: changes.map(\.field.name)) { page throws(PorterError) in
            var writes: [ObjectWrite] = []
            for object in page {
                guard let objectId = object["objectId"]?.stringValue else { continue }
                let body = JSONObject(
                    changes.filter { !Self.holds(object[$0.field.name], $0.value, as: $0.field.type) }.map { change in
                        JSONMember(change.field.name, change.value?.wireJSON ?? Self.deleteOperation)
                    })
                if body.isEmpty {
                    unchanged += 1
                } else {
                    writes.append(.update(className, objectId, body))
                }
            }
            let tally = try await writer.send(writes, alreadyDone: [.objectNotFound])
            written += tally.written
            unchanged += tally.alreadyDone
        }
        return OperationResult(
            "updated \(written) \(className) objects (\(unchanged) already up to date)",
            objectsWritten: written, objectsUnchanged: unchanged)
    }

    /// Deletes every object matching `where`, with its relation links: those it owns and those
    /// other objects have to it (Parse Server itself leaves both behind). An object deleted
    /// meanwhile (101) counts as deleted before.
    func deleteObjects(of className: String, where constraints: JSONObject) async throws(PorterError) -> OperationResult {
        let schema = try await existingClass(className)
        try Self.checkWhere(constraints, of: schema)
        let owned = schema.fields.compactMap { field -> (name: String, targetClass: String)? in
            if case .relation(let target) = field.type { return (field.name, target) }
            return nil
        }
        let incoming = try await api.schemas().flatMap { owner in
            owner.fields.compactMap { field -> (className: String, field: String)? in
                field.type == .relation(targetClass: className) ? (owner.className, field.name) : nil
            }
        }
        var deleted = 0, gone = 0
        try await pager.forEachPage(of: className, where: constraints, keys: []) { page throws(PorterError) in
            let ids = page.compactMap { $0["objectId"]?.stringValue }
            var unlinks: [ObjectWrite] = []
            for relation in owned {
                for objectId in ids {
                    let linked = try await pager.relatedIds(owner: className, objectId: objectId, field: relation.name, targetClass: relation.targetClass)
                    if !linked.isEmpty {
                        unlinks.append(
                            .update(
                                className, objectId, JSONObject([relation.name: Self.relationOperation("RemoveRelation", linked, of: relation.targetClass)])))
                    }
                }
            }
            _ = try await writer.send(unlinks, alreadyDone: [.objectNotFound])
            for relation in incoming {
                try await unlink(ids, of: className, from: relation.field, of: relation.className)
            }
            let tally = try await writer.send(ids.map { .delete(className, $0) }, alreadyDone: [.objectNotFound])
            deleted += tally.written
            gone += tally.alreadyDone
        }
        return OperationResult(
            "deleted \(deleted) \(className) objects and their relation links (\(gone) were gone already)",
            objectsWritten: deleted, objectsUnchanged: gone)
    }

    /// Removes the links to `ids` from the `field` Relation of every `owner` object that has one,
    /// asking for the owners of 50 objects at a time (the `where` travels in the URL).
    private func unlink(_ ids: [String], of className: String, from field: String, of owner: String) async throws(PorterError) {
        for start in stride(from: 0, to: ids.count, by: 50) {
            let chunk = Array(ids[start..<min(start + 50, ids.count)])
            let pointers = chunk.map { ParseValue.pointer(PointerRef(className: className, objectId: $0)).wireJSON }
            let remove = Self.relationOperation("RemoveRelation", chunk, of: className)
            try await pager.forEachPage(of: owner, where: JSONObject([field: .object(JSONObject(["$in": .array(pointers)]))]), keys: []) {
                owners throws(PorterError) in
                _ = try await writer.send(
                    owners.compactMap { $0["objectId"]?.stringValue }.map { .update(owner, $0, JSONObject([field: remove])) }, alreadyDone: [.objectNotFound])
            }
        }
    }

    /// The `set` of an `updateObjects`, checked against the class: each field exists and is not
    /// a Relation or one Parse maintains, each value decodes as the field's type (`nil`: unset).
    /// Every problem is listed in one exit-1 error, before anything is written.
    static func fieldChanges(_ values: JSONObject, of schema: ClassSchema) throws(PorterError) -> [(field: SchemaField, value: ParseValue?)] {
        var changes: [(field: SchemaField, value: ParseValue?)] = []
        var problems: [String] = []
        for member in values {
            let name = "\(schema.className).\(member.key)"
            let field = member.key == "ACL" ? SchemaField(name: "ACL", type: .acl) : schema.field(named: member.key)
            guard let field, !["objectId", "createdAt", "updatedAt"].contains(member.key) else {
                problems.append(ParseNames.defaultFields.contains(member.key) ? "\(name) cannot be set" : "\(schema.className) has no field \(member.key)")
                continue
            }
            if field.type.isRelation {
                problems.append("\(name) is a Relation: its links are not values to set")
                continue
            }
            if member.value == deleteOperation {
                changes.append((field, nil))
                continue
            }
            if member.value["__op"] != nil {
                problems.append("\(name): only values and {\"__op\":\"Delete\"} can be set, not \(member.value.serialized())")
                continue
            }
            do {
                let value = try ParseValue(wire: member.value, as: field.type)
                guard value == .null || value.fieldType == field.type else {
                    problems.append("\(name) is \(field.type), not \(value.fieldType.map(\.description) ?? "null"): \(member.value.serialized())")
                    continue
                }
                changes.append((field, value == .null ? nil : value))
            } catch {
                problems.append("\(name): \(error.message): \(member.value.serialized())")
            }
        }
        guard problems.isEmpty else { throw PorterError(.invalidData, "set: \(problems.joined(separator: "; "))") }
        return changes
    }
}
