import ParseModel
import PorterCore

/// The plan's later phases: cyclic pointers patched in, and relation links to classes loaded later.
extension RESTSink {
    /// Sets `field` of existing objects (pointers to objects written later), in `/batch` requests; one outcome per value, in order.
    public func patch(className: String, field: String, values: [(objectId: String, value: ParseValue)]) throws(PorterError) -> [WriteOutcome] {
        let state = try remoteClass(className)
        guard let position = state.fieldPositions[field] else { return values.map { _ in .failed("\(className).\(field) is not a field") } }
        var outcomes = [WriteOutcome](repeating: .unchanged, count: values.count)
        var operations: [BatchOperation] = [], sent: [(index: Int, identity: String, digest: UInt64)] = []
        for (index, (identity, value)) in values.enumerated() {
            guard let entry = state[identity] else {
                outcomes[index] = .failed("\(className) \(identity) is not on the server (it was refused)")
                continue
            }
            guard let serverValue = serverValue(value) else {
                outcomes[index] = .failed(unresolved(value, field: field))
                continue
            }
            let digest = FieldDigest.of(serverValue)
            guard digest != entry.digests[position] else { continue }
            let wire = serverValue == .null ? JSONValue.object(JSONObject(["__op": .string("Delete")])) : serverValue.wireJSON
            operations.append(BatchOperation(method: "PUT", path: "/classes/\(className)/\(entry.serverId)", body: JSONObject([JSONMember(field, wire)])))
            sent.append((index, identity, digest))
        }
        let results = try send(operations, phase: "patch \(className).\(field)")
        for (item, result) in zip(sent, results) {
            switch result {
            case .success:
                state.update(identity: item.identity, digests: [(position, item.digest)])
                outcomes[item.index] = .updated
                counted(className, updated: 1)
                if let serverId = state[item.identity]?.serverId { timestamps.updated.insert("\(className)/\(serverId)") }
            case .failure(let error):
                outcomes[item.index] = .failed("the server refused \(className).\(field): \(error)")
            }
        }
        return outcomes
    }

    /// Adds (and with `replace`, removes) links, one update per owner with all its targets.
    public func link(owner className: String, field: String, targetClass: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) -> LinkChanges {
        let state = try remoteClass(className)
        var order: [String] = []
        var wanted: [String: [String]] = [:]
        for link in links {
            if wanted[link.ownerId] == nil { order.append(link.ownerId) }
            wanted[link.ownerId, default: []].append(contentsOf: link.relatedIds)
        }
        // Links whose owner or target is not on the server (the server refused it) are refused
        // too, and counted, rather than dropped.
        var changes = LinkChanges()
        var owners: [(identity: String, entry: RemoteClass.Entry, targets: [String])] = []
        for identity in order {
            guard let entry = state[identity] else {
                changes.refused.append("\(className) \(identity) is not on the server, so its \(wanted[identity]!.count) \(field) links were not sent")
                changes.refusedLinks += wanted[identity]!.count
                continue
            }
            var targets: [String] = []
            for related in wanted[identity]! {
                if let target = serverPointer(PointerRef(className: targetClass, objectId: related))?.objectId {
                    targets.append(target)
                } else {
                    changes.refused.append(
                        "\(className) \(identity): the \(field) link to \(targetClass) \(related) was not sent: that object is not on the server")
                    changes.refusedLinks += 1
                }
            }
            owners.append((identity, entry, targets))
        }
        let existing = owners.filter { !$0.entry.createdNow }.map(\.entry.serverId)
        let current = existing.isEmpty ? [:] : try currentLinks(owner: className, field: field, targetClass: targetClass, ownerIds: existing)
        var operations: [BatchOperation] = [], pending: [(owner: String, add: [String], remove: [String])] = []
        for owner in owners {
            let now = current[owner.entry.serverId] ?? []
            var seen = Set<String>()
            let add = owner.targets.filter { !now.contains($0) && seen.insert($0).inserted }
            let remove = replace ? now.subtracting(owner.targets).sorted() : []
            guard
                let operation = Self.relationOperation(
                    add: add.map { PointerRef(className: targetClass, objectId: $0) },
                    remove: remove.map { PointerRef(className: targetClass, objectId: $0) })
            else { continue }
            operations.append(
                BatchOperation(method: "PUT", path: "/classes/\(className)/\(owner.entry.serverId)", body: JSONObject([JSONMember(field, operation)])))
            pending.append((owner.entry.serverId, add, remove))
        }
        let results = try send(operations, phase: "relations \(className).\(field)")
        for (item, result) in zip(pending, results) {
            switch result {
            case .success:
                changes.added += item.add.count
                changes.removed += item.remove.count
                timestamps.updated.insert("\(className)/\(item.owner)")
                linksChanged(owner: className, field: field, ownerId: item.owner, added: item.add, removed: item.remove)
            case .failure(let error):
                changes.refused.append("the server refused the links of \(className) \(item.owner): \(error)")
                changes.refusedLinks += item.add.count + item.remove.count
            }
        }
        return changes
    }
}
