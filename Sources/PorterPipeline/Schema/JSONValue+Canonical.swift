import ParseModel

extension JSONValue {
    /// The value with whole doubles as integers (`1.0` as `1`), as a JavaScript server would
    /// write them; member order kept.
    package func canonicalNumbers() -> JSONValue {
        switch self {
        case .double(let d) where d == d.rounded() && abs(d) < 1e15: .integer(Int64(d))
        case .array(let items): .array(items.map { $0.canonicalNumbers() })
        case .object(let object): .object(JSONObject(object.members.map { JSONMember($0.key, $0.value.canonicalNumbers()) }))
        default: self
        }
    }

    /// The value with every object's members sorted by key, at every depth.
    package func sortingKeys() -> JSONValue {
        switch self {
        case .array(let items): .array(items.map { $0.sortingKeys() })
        case .object(let object): .object(JSONObject(object.members.sorted { $0.key < $1.key }.map { JSONMember($0.key, $0.value.sortingKeys()) }))
        default: self
        }
    }
}
