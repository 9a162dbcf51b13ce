import ParseModel
import PorterCore

/// Reads what a Parse Server has: the `/schemas` entries, a class's objects paged by objectId
/// (never by skip, Docs/ParseServer.md#paging), and relation links with `$relatedTo` queries
/// sent as GET operations of `/batch` requests (Docs/ParseServer.md#relations). The import sink
/// reads through it before it writes, ``RESTObjectSource`` for export and pull.
struct RESTReader {
    let client: ParseRESTClient
    /// Sends the `$relatedTo` queries, `batchSize` per request, `concurrency` requests at a time.
    let sender: BatchSender
    /// Objects per page (Parse Server has no maximum unless `maxLimit` is set).
    let pageSize: Int

    init(client: ParseRESTClient, sender: BatchSender, pageSize: Int = 1000) {
        self.client = client
        self.sender = sender
        self.pageSize = pageSize
    }

    /// The entries of `GET /schemas` (master key); refusals are explained as for a first request.
    func schemaEntries(phase: String) throws(PorterError) -> [JSONValue] {
        let json: JSONValue
        do {
            json = try client.sendBlocking("GET", "/schemas", phase: phase)
        } catch {
            throw ParseRESTErrors.preflight(error, address: client.address)
        }
        guard case .array(let results)? = json["results"] else {
            throw PorterError(.target, "\(client.address)/schemas: the answer has no results; is this a Parse Server?")
        }
        return results
    }

    /// The whole answer to one query (`results`, and `count` when asked for).
    func query(_ path: String, phase: String, _ parameters: JSONObject) throws(PorterError) -> JSONValue {
        let query = parameters.map { member -> (String, String) in
            if case .string(let text) = member.value { return (member.key, text) }
            return (member.key, member.value.serialized())
        }
        do {
            return try client.sendBlocking("GET", path, query: query, phase: phase)
        } catch {
            // Reading a class that does not exist yet without the master key (Docs/ParseServer.md#classes-that-do-not-exist).
            if case .refused(let answer) = error, answer.code == .operationForbidden { return .object(JSONObject(["results": .array([])])) }
            throw PorterError(.target, "\(client.address): reading \(path): \(ParseRESTErrors.describe(error))")
        }
    }

    /// The results of one query; a class the server does not have yet has none.
    func results(of path: String, phase: String, _ parameters: JSONObject) throws(PorterError) -> [JSONObject] {
        guard case .array(let items)? = try query(path, phase: phase, parameters)["results"] else {
            throw PorterError(.target, "\(client.address)\(path): a query answered without results")
        }
        return items.compactMap { if case .object(let object) = $0 { object } else { nil } }
    }

    /// Hands the class's objects that match `constraints` to `page`, a page at a time in
    /// objectId order: `order=objectId` with `objectId $gt` the last one seen. `keys` limits
    /// the fields read (`nil`: all of them).
    func pages(
        of className: String, matching constraints: JSONObject?, keys: String?, phase: String,
        _ page: ([JSONObject]) throws(PorterError) -> Void
    ) throws(PorterError) {
        var last: String?
        while true {
            var parameters = JSONObject([
                "where": .object(Self.constraints(constraints, after: last)), "order": .string("objectId"),
                "limit": .integer(Int64(pageSize)),
            ])
            if let keys { parameters["keys"] = .string(keys) }
            let objects = try results(of: "/classes/\(className)", phase: phase, parameters)
            try page(objects)
            guard objects.count >= pageSize, case .string(let id)? = objects.last?["objectId"], id != last else { return }
            last = id
        }
    }

    /// `constraints` narrowed to objectIds after `last`: the key is added, or both go in an
    /// `$and` when `constraints` already constrains the objectId.
    static func constraints(_ constraints: JSONObject?, after last: String?) -> JSONObject {
        guard let last else { return constraints ?? JSONObject() }
        let after = JSONValue.object(JSONObject(["$gt": .string(last)]))
        guard var combined = constraints, !combined.isEmpty else { return JSONObject(["objectId": after]) }
        if combined["objectId"] != nil {
            return JSONObject(["$and": .array([.object(combined), .object(JSONObject(["objectId": after]))])])
        }
        combined["objectId"] = after
        return combined
    }

    /// The links of the relation field `className.field` to `targetIds`, read from the targets'
    /// side: per target, the owners whose `field` holds it (`where={"field": <pointer>}`), as
    /// GET operations of `/batch` requests, paged per target by objectId. Parse Server answers
    /// that through the join table's primary key, `(relatedId, owningId)`, where a `$relatedTo`
    /// query (``links(owner:field:targetClass:ownerIds:phase:)``) reads the whole join table
    /// for each owner (`PostgresStorageAdapter.js`, `createTable`; `DatabaseController.js`,
    /// `relatedIds` and `owningIds`). The related objectIds, by owner; owners with none are left out.
    func linksByTarget(owner className: String, field: String, targetClass: String, targetIds: [String], phase: String) throws(PorterError) -> [String: Set<
        String
    >] {
        var links: [String: Set<String>] = [:]
        try idQueries(
            targetIds, path: "/classes/\(className)", phase: phase, what: { "the \(className).\(field) links to \($0)" },
            where: { JSONObject([field: ParseValue.pointer(PointerRef(className: targetClass, objectId: $0)).wireJSON]) },
            found: { targetId, owners in for owner in owners { links[owner, default: []].insert(targetId) } })
        return links
    }

    /// The objectIds each owner links to in the relation field `className.field`, read with
    /// `$relatedTo` queries sent as GET operations of `/batch` requests, paged per owner by
    /// objectId. Every owner has an entry.
    func links(owner className: String, field: String, targetClass: String, ownerIds: [String], phase: String) throws(PorterError) -> [String: Set<String>] {
        var links = Dictionary(ownerIds.map { ($0, Set<String>()) }, uniquingKeysWith: { a, _ in a })
        try idQueries(
            ownerIds, path: "/classes/\(targetClass)", phase: phase, what: { "the \(className).\(field) links of \($0)" },
            where: { ownerId in
                JSONObject([
                    "$relatedTo": .object(
                        JSONObject([
                            "object": ParseValue.pointer(PointerRef(className: className, objectId: ownerId)).wireJSON, "key": .string(field),
                        ]))
                ])
            },
            found: { ownerId, related in links[ownerId, default: []].formUnion(related) })
        return links
    }

    /// One query of `path` per item, `where` its constraints, for the objectIds it finds: GET
    /// operations of `/batch` requests, each paged by objectId until it has given everything.
    /// Each page goes to `found` with its item; `what` names an item's query in an error.
    private func idQueries(
        _ items: [String], path: String, phase: String, what: (String) -> String, where constraints: (String) -> JSONObject,
        found: (String, [String]) -> Void
    ) throws(PorterError) {
        var pending = items.map { ($0, String?.none) }
        while !pending.isEmpty {
            let operations = pending.map { item, after in
                BatchOperation(
                    method: "GET", path: path,
                    body: JSONObject([
                        "where": .object(Self.constraints(constraints(item), after: after)), "keys": .string("objectId"), "order": .string("objectId"),
                        "limit": .integer(Int64(pageSize)),
                    ]))
            }
            let answers = try sender.send(operations, phase: phase)
            var next: [(String, String?)] = []
            for ((item, _), answer) in zip(pending, answers) {
                guard case .success(let json) = answer, case .array(let results)? = json["results"] else {
                    throw PorterError(.target, "\(client.address): reading \(what(item)) failed: \(answer)")
                }
                let ids = results.compactMap { result -> String? in if case .string(let id)? = result["objectId"] { id } else { nil } }
                found(item, ids)
                if ids.count >= pageSize, let last = ids.last { next.append((item, last)) }
            }
            pending = next
        }
    }
}
