import ParseModel
import PorterCore

/// Creating and updating objects, patching pointers and linking relations.
extension RESTSink {
    /// Creates or updates objects of one class in `/batch` requests, one outcome per object in order.
    public func write(_ objects: [ResolvedObject], className: String, mode: WriteMode) throws(PorterError) -> [WriteOutcome] {
        try write(objects, className: className, mode: mode, relations: []).outcomes
    }

    /// Creates the objects the server lacks, with their links in the create body; updates the
    /// changed fields and links of the others. One `/batch` phase per call.
    public func write(_ objects: [ResolvedObject], className: String, mode: WriteMode, relations: [RelationBatch]) throws(PorterError)
        -> (outcomes: [WriteOutcome], links: [String: LinkChanges])
    {
        let state = try remoteClass(className)
        var linksByOwner: [String: [(batch: Int, related: [String])]] = [:]
        for (index, batch) in relations.enumerated() {
            for link in batch.links { linksByOwner[link.ownerId, default: []].append((index, link.relatedIds)) }
        }
        var outcomes = [WriteOutcome?](repeating: nil, count: objects.count)
        var plans: [ObjectPlan] = []
        var sent: [Int] = []
        // One batch at a time is planned and queued, so the server works while the next is planned.
        let outgoing = OutgoingBatches(sink: self, phase: "write \(className)")
        for start in stride(from: 0, to: objects.count, by: options.batchSize) {
            let first = plans.count
            for index in start..<min(start + options.batchSize, objects.count) {
                switch plan(objects[index], state: state, mode: mode, relations: relations, links: linksByOwner[objects[index].objectId] ?? []) {
                case .failure(let failure): outcomes[index] = .failed(failure.reason)
                case .success(var plan):
                    plan.index = index
                    plans.append(plan)
                }
            }
            try readCurrentLinks(for: &plans[first...], className: className, relations: relations)
            var operations: [BatchOperation] = []
            var lookups: [Int: JSONObject] = [:]
            for position in first..<plans.count {
                guard let operation = operation(for: plans[position], className: className, relations: relations) else {
                    outcomes[plans[position].index] = .unchanged
                    continue
                }
                if plans[position].existing == nil { lookups[operations.count] = plans[position].lookup }
                operations.append(operation)
                sent.append(position)
            }
            outgoing.submit(operations, recover: recovery(className: className, state: state, lookups: lookups))
        }
        let results = try outgoing.finish()
        var links: [String: LinkChanges] = [:]
        for (position, result) in zip(sent, results) {
            let plan = plans[position]
            guard case .success(let answer) = result else {
                if case .failure(let error) = result { outcomes[plan.index] = .failed("the server refused \(className): \(error)") }
                continue
            }
            for (batch, change) in plan.linkChanges(relations) {
                links[relations[batch].field, default: LinkChanges()].added += change.added
                links[relations[batch].field, default: LinkChanges()].removed += change.removed
                if let existing = plan.existing, change != LinkChanges() {
                    linksChanged(
                        owner: className, field: relations[batch].field, ownerId: existing.serverId, added: plan.linksToAdd(batch),
                        removed: plan.linksToRemove(batch))
                }
            }
            referencesAhead += plan.ahead.map { ReferenceAhead(className: className, objectId: plan.identity, field: $0.field, target: $0.target) }
            if plan.existing != nil {
                state.update(identity: plan.identity, digests: plan.changed.map { ($0.position, $0.digest) })
                outcomes[plan.index] = plan.changed.isEmpty ? .unchanged : .updated
                if !plan.changed.isEmpty { counted(className, updated: 1) }
                if !plan.changed.isEmpty || plan.linkChanges(relations).contains(where: { $0.1 != LinkChanges() }) {
                    timestamps.updated.insert("\(className)/\(plan.existing!.serverId)")
                }
            } else {
                // Counted by what the server answered: without the key, and also when it ignored one
                // (a wrong key, an address outside maintenanceKeyIps, a server before 6.5).
                if let createdAt = plan.createdAt, answer["createdAt"]?.stringValue != ParseValue.date(createdAt).wireJSON["iso"]?.stringValue {
                    timestamps.notKept += 1
                }
                let serverId: String = if case .string(let id)? = answer["objectId"] { id } else { plan.identity }
                var digests = state.emptyDigests
                for change in plan.changed { digests[change.position] = change.digest }
                state.recordCreated(identity: plan.identity, key: plan.key, .init(serverId: serverId, digests: digests, createdNow: true))
                outcomes[plan.index] = .inserted
                counted(className, created: 1)
            }
        }
        for (object, outcome) in zip(objects, outcomes) {
            if case .failed? = outcome, state[object.objectId] == nil { refusedObjects[className, default: []].insert(object.objectId) }
        }
        settleReferencesAhead()
        return (outcomes.map { $0 ?? .unchanged }, links)
    }

    /// Drops the references sent ahead whose object the server now has, and sets apart those
    /// whose object it refused: they were written naming nothing (the summary's notes name them).
    func settleReferencesAhead() {
        guard !referencesAhead.isEmpty else { return }
        var pending: [ReferenceAhead] = []
        for reference in referencesAhead where remote[reference.target.className]?[reference.target.objectId] == nil {
            if refusedObjects[reference.target.className]?.contains(reference.target.objectId) == true {
                danglingAhead.append(reference)
            } else {
                pending.append(reference)
            }
        }
        referencesAhead = pending
    }

    /// What to send for one object.
    struct ObjectPlan {
        var index = 0
        let identity: String
        let key: KeyHash?
        /// The server's object, when there is one.
        let existing: RemoteClass.Entry?
        /// Fields to send, with their position in the class's digests.
        var changed: [(name: String, value: ParseValue, position: Int, digest: UInt64)]
        /// Per relation batch: the server objectIds to link, and (for existing owners) those linked now.
        var wantedLinks: [Int: [String]]
        var currentLinks: [Int: Set<String>] = [:]
        let replaceLinks: [Int: Bool]
        /// The key fields as a query constraint: how a create whose answer was lost is found again.
        let lookup: JSONObject
        /// The source's timestamps, which a create with the maintenance key keeps.
        var createdAt: ParseDate?
        var updatedAt: ParseDate?
        /// The references it sends to objects not sent yet (custom objectIds).
        var ahead: [(field: String, target: PointerRef)] = []

        func linksToAdd(_ batch: Int) -> [String] {
            let current = currentLinks[batch] ?? []
            var seen = Set<String>()
            return (wantedLinks[batch] ?? []).filter { !current.contains($0) && seen.insert($0).inserted }
        }

        func linksToRemove(_ batch: Int) -> [String] {
            guard replaceLinks[batch] == true, let current = currentLinks[batch] else { return [] }
            let wanted = Set(wantedLinks[batch] ?? [])
            return current.filter { !wanted.contains($0) }.sorted()
        }

        func linkChanges(_ relations: [RelationBatch]) -> [(Int, LinkChanges)] {
            relations.indices.map { ($0, LinkChanges(added: linksToAdd($0).count, removed: linksToRemove($0).count)) }
        }
    }

    private func plan(
        _ object: ResolvedObject, state: RemoteClass, mode: WriteMode, relations: [RelationBatch],
        links: [(batch: Int, related: [String])]
    ) -> Result<ObjectPlan, PlanFailure> {
        var values: [String: ParseValue] = [:]
        var fields: [(String, ParseValue)] = object.fields.map { ($0.name, $0.value) }
        if let acl = object.acl { fields.append(("ACL", .acl(acl))) }
        var ahead: [(field: String, target: PointerRef)] = []
        for (name, value) in fields {
            guard let translated = serverValue(value) else { return .failure(PlanFailure(unresolved(value, field: name))) }
            values[name] = translated
            if case .pointer(let target) = value, isAhead(target) { ahead.append((name, target)) }
        }
        let key = state.serverKey({ values[$0] }, serverId: state.key.isEmpty ? object.objectId : nil)
        let existing = state.entry(identity: object.objectId, key: key)
        if existing != nil && mode == .insert {
            return .failure(PlanFailure("\(state.className) \(object.objectId) already exists on the server (mode: insert)"))
        }
        var changed: [(name: String, value: ParseValue, position: Int, digest: UInt64)] = []
        for (name, _) in fields {
            guard let position = state.fieldPositions[name] else { continue }
            let value = values[name]!
            if value == .null && (mode == .merge || existing == nil) { continue }
            let digest = FieldDigest.of(value)
            if let existing, existing.digests[position] == digest { continue }
            changed.append((name, value, position, digest))
        }
        var wanted: [Int: [String]] = [:]
        for (batch, related) in links {
            wanted[batch] = wanted[batch] ?? []
            for id in related {
                let target = PointerRef(className: relations[batch].targetClass, objectId: id)
                guard let serverTarget = serverPointer(target) else {
                    return .failure(PlanFailure(unresolved(.pointer(target), field: relations[batch].field)))
                }
                wanted[batch, default: []].append(serverTarget.objectId)
                if isAhead(target) { ahead.append((relations[batch].field, target)) }
            }
        }
        var lookup = JSONObject()
        if state.key.isEmpty {
            lookup["objectId"] = .string(object.objectId)
        } else {
            for name in state.key { lookup[name] = values[name]?.wireJSON ?? .null }
        }
        return .success(
            ObjectPlan(
                identity: object.objectId, key: key, existing: existing, changed: changed, wantedLinks: wanted,
                replaceLinks: Dictionary(uniqueKeysWithValues: relations.enumerated().map { ($0, $1.replace) }), lookup: lookup,
                createdAt: object.createdAt, updatedAt: object.updatedAt, ahead: ahead))
    }

    struct PlanFailure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Why a value naming an object of the dataset cannot be sent: the server has no such object.
    func unresolved(_ value: ParseValue, field: String) -> String {
        if case .pointer(let pointer) = value {
            return "\(field) points to a \(pointer.className) the server does not have: it was refused, or the sources hold none "
                + "(a server that assigns its own objectIds holds no pointer to an object never created)"
        }
        return "\(field): cannot be sent"
    }

    /// The value with pointers to objects of this import turned into the server's objectIds;
    /// `nil` when the target is not on the server.
    func serverValue(_ value: ParseValue) -> ParseValue? {
        switch value {
        case .pointer(let pointer): return serverPointer(pointer).map(ParseValue.pointer)
        // Parse Server stores and answers a Polygon's ring closed: sent so, a re-run finds it unchanged.
        case .polygon(let polygon): return .polygon(polygon.closed)
        default: return value
        }
    }

    func serverPointer(_ pointer: PointerRef) -> PointerRef? {
        // A class outside the dataset is referred to by its objectId as it is.
        guard declared[pointer.className] != nil else { return pointer }
        if let entry = remote[pointer.className]?[pointer.objectId] {
            return PointerRef(className: pointer.className, objectId: entry.serverId)
        }
        // Not sent yet: with custom objectIds it will be created under the loader's id, unless the server refused it.
        guard acceptsCustomObjectIds, refusedObjects[pointer.className]?.contains(pointer.objectId) != true else { return nil }
        return pointer
    }

    /// Whether a reference names an object of the dataset not on the server yet (custom objectIds only).
    private func isAhead(_ target: PointerRef) -> Bool {
        acceptsCustomObjectIds && declared[target.className] != nil && remote[target.className]?[target.objectId] == nil
    }

    /// Fills in the links existing owners have now, for the relation batches that name them.
    private func readCurrentLinks(for plans: inout ArraySlice<ObjectPlan>, className: String, relations: [RelationBatch]) throws(PorterError) {
        for (batch, relation) in relations.enumerated() {
            let owners = plans.indices.filter { plans[$0].wantedLinks[batch] != nil && plans[$0].existing.map { !$0.createdNow } == true }
            guard !owners.isEmpty else { continue }
            let current = try currentLinks(
                owner: className, field: relation.field, targetClass: relation.targetClass,
                ownerIds: owners.map { plans[$0].existing!.serverId })
            for index in owners { plans[index].currentLinks[batch] = current[plans[index].existing!.serverId] ?? [] }
        }
    }

    /// The create or update for a plan; `nil` when nothing changed.
    private func operation(for plan: ObjectPlan, className: String, relations: [RelationBatch]) -> BatchOperation? {
        var body = JSONObject()
        for change in plan.changed {
            body[change.name] = change.value == .null ? .object(JSONObject(["__op": .string("Delete")])) : change.value.wireJSON
        }
        for (batch, relation) in relations.enumerated() {
            let add = plan.linksToAdd(batch).map { PointerRef(className: relation.targetClass, objectId: $0) }
            let remove = plan.linksToRemove(batch).map { PointerRef(className: relation.targetClass, objectId: $0) }
            if let operation = Self.relationOperation(add: add, remove: remove) { body[relation.field] = operation }
        }
        if let existing = plan.existing {
            return body.isEmpty ? nil : BatchOperation(method: "PUT", path: "/classes/\(className)/\(existing.serverId)", body: body)
        }
        if acceptsCustomObjectIds { body["objectId"] = .string(plan.identity) }
        addTimestamps(of: plan, to: &body)
        if className == "_User" { addRandomPassword(to: &body) }
        return BatchOperation(method: "POST", path: "/classes/\(className)", body: body)
    }

    /// `AddRelation`, `RemoveRelation`, or both in a `Batch` operation; `nil` for no change.
    static func relationOperation(add: [PointerRef], remove: [PointerRef]) -> JSONValue? {
        func op(_ name: String, _ pointers: [PointerRef]) -> JSONValue {
            .object(JSONObject(["__op": .string(name), "objects": .array(pointers.map { ParseValue.pointer($0).wireJSON })]))
        }
        switch (add.isEmpty, remove.isEmpty) {
        case (true, true): return nil
        case (false, true): return op("AddRelation", add)
        case (true, false): return op("RemoveRelation", remove)
        case (false, false): return .object(JSONObject(["__op": .string("Batch"), "ops": .array([op("AddRelation", add), op("RemoveRelation", remove)])]))
        }
    }

    /// Finds creates whose answer was lost but which the server carried out, by their key
    /// (or objectId), so that they are not sent twice.
    func recovery(className: String, state: RemoteClass, lookups: [Int: JSONObject]) -> BatchSender.Recovery? {
        guard !lookups.isEmpty else { return nil }
        let client = client, key = state.key
        let types = Dictionary(uniqueKeysWithValues: (declared[className]?.fields ?? []).map { ($0.name, $0.type) })
        let keys = (["objectId"] + key).joined(separator: ",")
        return { @Sendable (pending: [Int]) throws(PorterError) -> [Int: JSONValue] in
            let wanted = pending.filter { lookups[$0] != nil }
            var byKey: [KeyHash: Int] = [:]
            for index in wanted {
                let lookup = lookups[index]!
                let serverKey = RemoteClass.serverKey(
                    className: className, key: key,
                    { name in
                        lookup[name].flatMap { try? ParseValue(wire: $0, as: types[name]) }
                    }, serverId: key.isEmpty ? Self.text(lookup["objectId"]) : nil)
                if let serverKey { byKey[serverKey] = index }
            }
            var found: [Int: JSONValue] = [:]
            for start in stride(from: 0, to: wanted.count, by: 50) {
                let clauses = wanted[start..<min(start + 50, wanted.count)].map { JSONValue.object(lookups[$0]!) }
                let query = [("where", JSONValue.object(JSONObject(["$or": .array(clauses)])).serialized()), ("keys", keys), ("limit", "1000")]
                let json: JSONValue
                do throws(ParseRESTFailure) {
                    json = try client.sendBlocking("GET", "/classes/\(className)", query: query, phase: "recover \(className)")
                } catch {
                    throw PorterError(.target, "\(client.address): checking which \(className) objects arrived: \(ParseRESTErrors.describe(error))")
                }
                guard case .array(let items)? = json["results"] else { continue }
                for case .object(let object) in items {
                    guard let serverId = Self.text(object["objectId"]) else { continue }
                    let serverKey = RemoteClass.serverKey(
                        className: className, key: key,
                        { name in
                            object[name].flatMap { try? ParseValue(wire: $0, as: types[name]) }
                        }, serverId: serverId)
                    if let serverKey, let index = byKey[serverKey] {
                        found[index] = .object(JSONObject(["objectId": .string(serverId)]))
                    }
                }
            }
            return found
        }
    }

    static func text(_ json: JSONValue?) -> String? {
        if case .string(let text)? = json { return text }
        return nil
    }
}
