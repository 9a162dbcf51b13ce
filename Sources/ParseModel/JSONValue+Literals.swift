/// JSON written as Swift literals: `["publishingYear": ["$gte": 2000]]` for a Parse `where`.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A floating-point number.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An object, members in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements.map { JSONMember($0.0, $0.1) })) }
}

/// An object written as a Swift literal, members in the literal's order.
extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with these members, in this order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements.map { JSONMember($0.0, $0.1) }) }
}
