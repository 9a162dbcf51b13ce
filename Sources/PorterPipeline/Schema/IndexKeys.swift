import ParseModel

/// Indexes as `/schemas` spells them (Parse's Mongo notation), checked the same way in schema
/// files and migration files: each index a non-empty mapping of field names to 1, -1, "text",
/// "2d", "2dsphere" or "hashed", a whole double such as `1.0` counting as its integer.
package enum IndexKeys {
    /// What an index may map a field to.
    package static let kinds: [JSONValue] = [.integer(1), .integer(-1), .string("text"), .string("2d"), .string("2dsphere"), .string("hashed")]
    /// ``kinds`` as messages list them.
    package static let kindList = #"1, -1, "text", "2d", "2dsphere" or "hashed""#

    /// Whether two indexes' keys are the same: the same fields, kinds and order, a whole double
    /// counting as its integer. With `liveInJSONBOrder` (the live keys come from a Parse Server on
    /// PostgreSQL, whose `_SCHEMA` keeps them as `jsonb`), live keys in ``jsonbOrder(_:)`` say
    /// nothing of the index's order, and match the declared keys in any order.
    package static func same(_ declared: JSONValue, _ live: JSONValue, liveInJSONBOrder: Bool = false) -> Bool {
        let declared = declared.canonicalNumbers(), live = live.canonicalNumbers()
        guard declared != live else { return true }
        guard liveInJSONBOrder, case .object(let declaredKeys) = declared, case .object(let liveKeys) = live,
            liveKeys.members.map(\.key) == jsonbOrder(liveKeys.members.map(\.key))
        else { return false }
        return JSONObject(declaredKeys.members.sorted { precedesInJSONB($0.key, $1.key) }) == liveKeys
    }

    /// Keys in the order PostgreSQL's `jsonb` keeps an object's keys: shorter first (in UTF-8
    /// bytes), then by their bytes (`jsonb.c`, `lengthCompareJsonbString`).
    package static func jsonbOrder(_ keys: [String]) -> [String] {
        keys.sorted(by: precedesInJSONB)
    }

    private static func precedesInJSONB(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
    }

    /// A class's `indexes`, `{"title_1": {"title": 1}, …}`, with whole doubles as integers.
    package static func checkIndexes(_ json: JSONValue, at path: String, fail: (String, String) -> PorterError) throws(PorterError) -> JSONValue {
        guard case .object(let indexes) = json else { throw fail(path, "must map index names to their keys, not \(json.kindName)") }
        var checked = JSONObject()
        for index in indexes { checked.members.append(JSONMember(index.key, try check(index.value, at: "\(path).\(index.key)", fail: fail))) }
        return .object(checked)
    }

    /// One index's keys, `{"title": 1, "year": -1}` (their order matters), with whole doubles as
    /// integers.
    package static func check(_ json: JSONValue, at path: String, fail: (String, String) -> PorterError) throws(PorterError) -> JSONValue {
        guard case .object(let keys) = json, !keys.isEmpty else {
            throw fail(path, #"must map fields to \#(kindList) (like {"title": 1}), not \#(json.serialized())"#)
        }
        for key in keys {
            if key.key.isEmpty { throw fail(path, "an indexed field needs a name") }
            guard kinds.contains(key.value.canonicalNumbers()) else {
                throw fail("\(path).\(key.key)", "must be \(kindList), not \(key.value.serialized())")
            }
        }
        return json.canonicalNumbers()
    }
}
