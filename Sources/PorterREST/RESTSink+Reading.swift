import ParseModel
import PorterPipeline

/// Reading what the server has: a class's objects, paged by objectId, and relation links.
extension RESTSink {
    /// Objects per page when reading a class (Parse Server has no maximum unless `maxLimit` is set).
    static let pageSize = 1000

    /// The class as the server has it, read on first use.
    func remoteClass(_ className: String) throws(PorterError) -> RemoteClass {
        if let known = remote[className] { return known }
        let schema = declared[className] ?? ClassSchema(className: className, fields: [])
        let fields = schema.fields.filter { !$0.type.isRelation }
        let state = RemoteClass(className: className, key: naturalKeys[className] ?? [], fieldNames: fields.map(\.name))
        remote[className] = state
        let types = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.type) })
        let keys = fields.isEmpty ? "objectId" : fields.map(\.name).joined(separator: ",")
        var last: String?
        while true {
            var constraint = JSONObject()
            if let last { constraint["objectId"] = .object(JSONObject(["$gt": .string(last)])) }
            let page = try results(of: "/classes/\(className)", phase: "read \(className)",
                                   JSONObject(["where": .object(constraint), "order": .string("objectId"), "limit": .integer(Int64(Self.pageSize)), "keys": .string(keys)]))
            for object in page {
                guard case .string(let serverId)? = object["objectId"] else { continue }
                last = serverId
                var values: [String: ParseValue] = [:]
                for (name, type) in types {
                    values[name] = object[name].flatMap { try? ParseValue(wire: $0, as: type) } ?? .null
                }
                values["ACL"] = object["ACL"].flatMap { try? ParseValue(wire: $0, as: .acl) } ?? .null
                guard let key = state.serverKey({ values[$0] }, serverId: serverId) else { continue }
                let digests = state.fieldNames.map { FieldDigest.of(values[$0] ?? .null) }
                state.recordExisting(key: key, .init(serverId: serverId, digests: digests, createdNow: false))
            }
            if page.count < Self.pageSize { return state }
        }
    }

    /// The results of one query; a class the server does not have yet has none.
    func results(of path: String, phase: String, _ parameters: JSONObject) throws(PorterError) -> [JSONObject] {
        let query = parameters.map { member -> (String, String) in
            if case .string(let text) = member.value { return (member.key, text) }
            return (member.key, member.value.serialized())
        }
        let json: JSONValue
        do {
            json = try client.send("GET", path, query: query, phase: phase)
        } catch {
            // Reading a class that does not exist yet without the master key (PARSE_REST.md §5).
            if case .refused(_, 119?, _) = error { return [] }
            throw withSummary(PorterError(.target, "\(client.address): reading \(path): \(ParseRESTErrors.describe(error))"))
        }
        guard case .array(let items)? = json["results"] else {
            throw PorterError(.target, "\(client.address)\(path): a query answered without results")
        }
        return items.compactMap { if case .object(let object) = $0 { object } else { nil } }
    }

    /// The server objectIds each owner links to in a relation field, read with `$relatedTo`
    /// queries sent as GET operations of `/batch` requests, paged by objectId.
    func currentLinks(owner className: String, field: String, targetClass: String, ownerIds: [String]) throws(PorterError) -> [String: Set<String>] {
        var links: [String: Set<String>] = [:]
        var pending = ownerIds.map { ($0, String?.none) }
        while !pending.isEmpty {
            let operations = pending.map { ownerId, after -> BatchOperation in
                var constraint = JSONObject(["$relatedTo": .object(JSONObject([
                    "object": ParseValue.pointer(PointerRef(className: className, objectId: ownerId)).wireJSON, "key": .string(field)]))])
                if let after { constraint["objectId"] = .object(JSONObject(["$gt": .string(after)])) }
                return BatchOperation(method: "GET", path: "/classes/\(targetClass)", body: JSONObject([
                    "where": .object(constraint), "keys": .string("objectId"), "order": .string("objectId"), "limit": .integer(Int64(Self.pageSize))]))
            }
            let answers = try send(operations, phase: "read \(className).\(field)")
            var next: [(String, String?)] = []
            for ((ownerId, _), answer) in zip(pending, answers) {
                guard case .success(let json) = answer, case .array(let items)? = json["results"] else {
                    throw PorterError(.target, "\(client.address): reading the \(className).\(field) links of \(ownerId) failed: \(answer)")
                }
                let ids = items.compactMap { item -> String? in if case .string(let id)? = item["objectId"] { id } else { nil } }
                links[ownerId, default: []].formUnion(ids)
                if ids.count == Self.pageSize, let last = ids.last { next.append((ownerId, last)) }
            }
            pending = next
        }
        return links
    }
}

extension FieldType {
    var isRelation: Bool {
        if case .relation = self { return true }
        return false
    }
}
