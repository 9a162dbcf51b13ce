import ParseModel
import PorterPipeline

/// Reads the objects of a class that match a `where`, a page at a time, in objectId order:
/// each page asks for `objectId > last seen` (never `skip`), so objects written, deleted or
/// no longer matching between pages are neither skipped nor seen twice (Docs/ParseServer.md#paging).
struct ObjectPager {
    let api: ParseAPI
    /// Objects asked for per query. Paging stops at the first empty page, because a server's
    /// `maxLimit` may silently return fewer objects than asked for.
    var pageSize = 500

    /// Calls `body` with each page of the objects of `className` matching `where`, carrying
    /// `objectId` and the fields in `keys`.
    func forEachPage(
        of className: String, where constraints: JSONObject = JSONObject(), keys: [String],
        _ body: ([JSONObject]) async throws(PorterError) -> Void
    ) async throws(PorterError) {
        var last: String?
        while true {
            let answer: JSONValue
            do {
                answer = try await api.send(
                    "GET", "/classes/\(className)",
                    query: [
                        ("where", Self.constraints(constraints, after: last).serialized()), ("order", "objectId"),
                        ("limit", String(pageSize)), ("keys", (["objectId"] + keys).joined(separator: ",")),
                    ], body: nil)
            } catch {
                throw error.porterError("reading \(className) objects")
            }
            guard case .array(let results)? = answer["results"] else {
                throw PorterError(.target, "reading \(className) objects: the answer has no results array")
            }
            var page: [JSONObject] = []
            for case .object(let object) in results { page.append(object) }
            guard let next = page.last?["objectId"]?.stringValue else { return }
            try await body(page)
            last = next
        }
    }

    /// The objectIds of the objects of `targetClass` linked from one owner's Relation field.
    func relatedIds(owner className: String, objectId: String, field: String, targetClass: String) async throws(PorterError) -> [String] {
        let owner = ParseValue.pointer(PointerRef(className: className, objectId: objectId)).wireJSON
        var ids: [String] = []
        try await forEachPage(
            of: targetClass, where: JSONObject(["$relatedTo": .object(JSONObject(["object": owner, "key": .string(field)]))]),
            keys: []
        ) { page in ids += page.compactMap { $0["objectId"]?.stringValue } }
        return ids
    }

    /// `where` narrowed to objectIds after `last`: a member of its own, or `$and` when `where`
    /// constrains the objectId too (a `$relatedTo` must stay at the top level).
    private static func constraints(_ constraints: JSONObject, after last: String?) -> JSONValue {
        guard let last else { return .object(constraints) }
        let after = JSONValue.object(JSONObject(["$gt": .string(last)]))
        guard constraints["objectId"] != nil else {
            var narrowed = constraints
            narrowed["objectId"] = after
            return .object(narrowed)
        }
        return .object(JSONObject(["$and": .array([.object(constraints), .object(JSONObject(["objectId": after]))])]))
    }
}
