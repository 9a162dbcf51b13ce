/// A JSON document as read from a source file or manifest: integers stay exact (`Int64`),
/// object members keep their source order.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The member `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The value at a dotted path (`address.city`) through nested objects.
    package func value(atPath components: [String]) -> JSONValue? {
        var current = self
        for component in components {
            guard let next = current[component] else { return nil }
            current = next
        }
        return current
    }

    /// The text of a string value; `nil` for any other kind.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A short name of the JSON kind, for error messages.
    package var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// One `"key": value` pair of a JSON object.
public struct JSONMember: Hashable, Sendable {
    /// The member's name.
    public var key: String
    /// The member's value.
    public var value: JSONValue
    /// A member `"key": value`.
    public init(_ key: String, _ value: JSONValue) { self.key = key; self.value = value }
}

/// A JSON object that keeps its members in source order; the last of duplicate keys wins on lookup.
public struct JSONObject: Hashable, Sendable, Sequence {
    /// The members in source order, duplicates kept.
    public var members: [JSONMember]

    /// An object with these members, in this order.
    public init(_ members: [JSONMember] = []) { self.members = members }

    /// An object from a literal: `JSONObject(["title": .string("Dune"), "year": .integer(1965)])`.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        self.members = pairs.map { JSONMember($0.key, $0.value) }
    }

    /// The value of the last member named `key`; setting replaces every member of that name (`nil` removes them).
    public subscript(key: String) -> JSONValue? {
        get { members.last(where: { $0.key == key })?.value }
        set {
            members.removeAll { $0.key == key }
            if let newValue { members.append(JSONMember(key, newValue)) }
        }
    }

    /// The member names in order.
    public var keys: [String] { members.map(\.key) }
    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }
    /// The members in order.
    public func makeIterator() -> IndexingIterator<[JSONMember]> { members.makeIterator() }
}
