import ParseModel

/// Indexes as `/schemas` spells them (Parse's Mongo notation), checked the same way in schema
/// files and migration files: each index a non-empty mapping of field names to 1, -1, "text",
/// "2d", "2dsphere" or "hashed", a whole double such as `1.0` counting as its integer.
package enum IndexKeys {
    /// What an index may map a field to.
    package static let kinds: [JSONValue] = [.integer(1), .integer(-1), .string("text"), .string("2d"), .string("2dsphere"), .string("hashed")]
    /// ``kinds`` as messages list them.
    package static let kindList = #"1, -1, "text", "2d", "2dsphere" or "hashed""#

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
