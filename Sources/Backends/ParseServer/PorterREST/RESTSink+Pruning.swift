import ParseModel
import PorterCore

/// `--prune` on a Parse Server: `RemoveRelation` for links the sources no longer list and for
/// the links of objects about to go, then `DELETE`s, all in `/batch` requests. What is read
/// first decides what is sent, so a run cut short is finished by the next.
extension RESTSink {

    /// Deletes the class's objects on the server that `held` does not list, after removing their relation links.
    public func prune(_ className: String, keeping held: HeldObjects) throws(PorterError) -> PruneResult {
        let state = try remoteClass(className)
        if !state.key.isEmpty, let schema = declared[className],
            state.key.contains(where: { name in schema.field(named: name)?.type.targetClass != nil })
        {
            // The loader's key holds the pointed-at object's key, the server's its objectId:
            // an object whose row was rejected (and so never sent) cannot be matched by key.
            let unmatched = held.objectIds.filter { state[$0] == nil }.count
            if unmatched > 0 {
                return PruneResult(
                    skipped: "\(unmatched) of its rows were not written and its key includes a pointer, so they cannot be matched to the server's objects")
            }
        }
        let keys = state.key.isEmpty ? Set(held.objectIds.map { KeyHash(className: className, key: $0) }) : held.keyHashes
        let gone = state.entries(notHeld: held.objectIds, keys: keys)
        guard !gone.isEmpty else { return PruneResult() }
        let names = gone.map { $0.label ?? $0.serverId }.sorted()
        var result = PruneResult(count: gone.count, first: Array(names.prefix(PruneResult.sampleSize)))
        result.links = try unlink(Set(gone.map(\.serverId)), of: className)
        let deletes = gone.map { BatchOperation(method: "DELETE", path: "/classes/\(className)/\($0.serverId)", body: JSONObject()) }
        try check(try send(deletes, phase: "prune \(className)"), what: "delete \(className) objects")
        return result
    }

    /// Removes the links of the owner class's relation `field` that `held` (related objectIds by owner objectId) does not list.
    public func pruneLinks(owner className: String, field: String, targetClass: String, keeping held: [String: Set<String>]) throws(PorterError) -> PruneResult
    {
        let owners = try remoteClass(className)
        // Objects this import created carry only the links the join file lists.
        let ownerIds = owners.existingEntries.map(\.serverId)
        let current = try currentLinks(owner: className, field: field, targetClass: targetClass, ownerIds: ownerIds)
        var wanted: [String: Set<String>] = [:]
        for (owner, related) in held {
            guard let serverOwner = owners[owner]?.serverId else { continue }
            wanted[serverOwner] = Set(related.compactMap { serverPointer(PointerRef(className: targetClass, objectId: $0))?.objectId })
        }
        var stale: [(owner: String, related: [String])] = []
        for owner in ownerIds {
            let remove = (current[owner] ?? []).subtracting(wanted[owner] ?? []).sorted()
            if !remove.isEmpty { stale.append((owner, remove)) }
        }
        let count = stale.map(\.related.count).reduce(0, +)
        guard count > 0 else { return PruneResult() }
        for (owner, related) in stale { for id in related { prunedLinks.insert("\(className).\(field)|\(owner)|\(id)") } }
        try check(
            try send(removals(stale, className: className, field: field, targetClass: targetClass), phase: "prune \(className).\(field)"),
            what: "remove \(className).\(field) links")
        for (owner, related) in stale { linksChanged(owner: className, field: field, ownerId: owner, added: [], removed: related) }
        let ownerLabels = labels(className), targetLabels = labels(targetClass)
        let first = stale.flatMap { owner, related in related.map { "\(ownerLabels[owner] ?? owner) → \(targetLabels[$0] ?? $0)" } }
        return PruneResult(count: count, first: Array(first.prefix(PruneResult.sampleSize)))
    }

    /// Removes every link of the dataset's relations from or to the objects `gone` of `className`,
    /// so that no join row outlives them; the counts by `Owner.field`.
    private func unlink(_ gone: Set<String>, of className: String) throws(PorterError) -> [String: Int] {
        var removed: [String: Int] = [:]
        for schema in declared.values.sorted(by: { $0.className < $1.className }) {
            for field in schema.fields {
                guard case .relation(let targetClass) = field.type, schema.className == className || targetClass == className else { continue }
                let owners =
                    schema.className == className && targetClass != className
                    ? Array(gone) : try remoteClass(schema.className).existingEntries.map(\.serverId)
                let current = try currentLinks(owner: schema.className, field: field.name, targetClass: targetClass, ownerIds: owners.sorted())
                var stale: [(owner: String, related: [String])] = []
                let relation = "\(schema.className).\(field.name)"
                for (owner, related) in current {
                    let remove =
                        (gone.contains(owner) && schema.className == className
                        ? related.sorted()
                        : targetClass == className ? related.filter(gone.contains).sorted() : [])
                        .filter { !prunedLinks.contains("\(relation)|\(owner)|\($0)") }
                    if !remove.isEmpty { stale.append((owner, remove)) }
                }
                guard !stale.isEmpty else { continue }
                try check(
                    try send(
                        removals(stale, className: schema.className, field: field.name, targetClass: targetClass),
                        phase: "prune \(relation)"), what: "remove \(relation) links")
                for (owner, related) in stale {
                    for id in related { prunedLinks.insert("\(relation)|\(owner)|\(id)") }
                    linksChanged(owner: schema.className, field: field.name, ownerId: owner, added: [], removed: related)
                }
                removed[relation] = stale.map(\.related.count).reduce(0, +)
            }
        }
        return removed
    }

    private func removals(_ stale: [(owner: String, related: [String])], className: String, field: String, targetClass: String) -> [BatchOperation] {
        stale.sorted { $0.owner < $1.owner }.map { owner, related in
            let operation = Self.relationOperation(add: [], remove: related.map { PointerRef(className: targetClass, objectId: $0) })!
            return BatchOperation(method: "PUT", path: "/classes/\(className)/\(owner)", body: JSONObject([field: operation]))
        }
    }

    /// Throws when the server refused operations; an object already gone (a retried `DELETE`) is done.
    private func check(_ results: [BatchResult], what: String) throws(PorterError) {
        let refused = results.compactMap { result -> ParseError? in
            guard case .failure(let error) = result, error.code != .objectNotFound else { return nil }
            return error
        }
        guard let first = refused.first else { return }
        throw withSummary(PorterError(.target, "\(client.address): the server refused to \(what) (\(refused.count) refused, first: \(first))"))
    }

    /// The labels of a class's objects read from the server, by server objectId.
    private func labels(_ className: String) -> [String: String] {
        Dictionary((remote[className]?.existingEntries ?? []).compactMap { entry in entry.label.map { (entry.serverId, $0) } }, uniquingKeysWith: { a, _ in a })
    }
}
