import Foundation
import ParseModel

/// Turns `Encodable` values into records, and learns each field's Parse type from the Swift
/// type of its values: what a manifest would declare, read off the values themselves. A
/// property's name is the field's name; `String` is a String, integers and floating-point
/// numbers a Number, `Bool` a Boolean, `Date` a Date (to the millisecond), `Data` Bytes, `URL`
/// a String, a nested value an Object, an array an Array. `nil` leaves the field unset.
struct RowEncoder {
    /// The fields seen so far, in the order first seen, each with the type of its first value.
    private(set) var fields: [(name: String, type: FieldType)] = []

    /// The record of `row`, a JSON object; the fields it adds are appended to ``fields``.
    mutating func encode<Row: Encodable>(_ row: Row) throws -> [String: JSONValue] {
        let node = Node()
        try node.encode(row, codingPath: [])
        guard case .object(let members) = node.content else {
            throw EncodingError.invalidValue(
                row, EncodingError.Context(codingPath: [], debugDescription: "the value is not encoded as an object with properties"))
        }
        var record: [String: JSONValue] = [:]
        for (name, child) in members {
            guard let type = child.fieldType else { continue }  // nil: unset
            if !fields.contains(where: { $0.name == name }) { fields.append((name, type)) }
            record[name] = child.json
        }
        return record
    }
}

/// One value being encoded; containers fill it in as they are asked for.
private final class Node {
    enum Content {
        case empty
        case value(JSONValue, FieldType?)
        case object([(String, Node)])
        case array([Node])
    }

    var content = Content.empty

    /// The value as JSON, dates and bytes in Parse's typed form (`{"__type": "Date", …}`).
    var json: JSONValue {
        switch content {
        case .empty: .null
        case .value(let value, _): value
        case .object(let members): .object(JSONObject(members.map { JSONMember($0.0, $0.1.json) }))
        case .array(let items): .array(items.map(\.json))
        }
    }

    /// The Parse type of the value; `nil` for `nil`.
    var fieldType: FieldType? {
        switch content {
        case .empty: nil
        case .value(_, let type): type
        case .object: .object
        case .array: .array
        }
    }

    /// Encodes `value` here; `Date`, `Data` and `URL` take Parse's forms, not their own encoding.
    func encode<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        switch value {
        case let date as Date:
            content = .value(.object(JSONObject(["__type": .string("Date"), "iso": .string(ParseDate(date).iso)])), .date)
        case let data as Data:
            content = .value(.object(JSONObject(["__type": .string("Bytes"), "base64": .string(data.base64EncodedString())])), .bytes)
        case let url as URL:
            content = .value(.string(url.absoluteString), .string)
        default:
            try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    func set(_ value: JSONValue, _ type: FieldType?) { content = .value(value, type) }

    func set(_ number: Double, codingPath: [any CodingKey]) throws {
        guard number.isFinite else {
            throw EncodingError.invalidValue(number, EncodingError.Context(codingPath: codingPath, debugDescription: "\(number) is no JSON number"))
        }
        set(.double(number), .number)
    }

    func set<I: BinaryInteger>(_ integer: I, codingPath: [any CodingKey]) throws {
        if let exact = Int64(exactly: integer) { set(.integer(exact), .number) } else { try set(Double(integer), codingPath: codingPath) }
    }

    func member(_ key: String) -> Node {
        let child = Node()
        if case .object(var members) = content {
            members.removeAll { $0.0 == key }
            members.append((key, child))
            content = .object(members)
        } else {
            content = .object([(key, child)])
        }
        return child
    }

    func appendItem() -> Node {
        let child = Node()
        if case .array(let items) = content { content = .array(items + [child]) } else { content = .array([child]) }
        return child
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([]) }
        return KeyedEncodingContainer(KeyedNodeContainer(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleNodeContainer(node: node, codingPath: codingPath) }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null, nil) }
    func encode(_ value: Bool, forKey key: Key) throws { node.member(key.stringValue).set(.bool(value), .boolean) }
    func encode(_ value: String, forKey key: Key) throws { node.member(key.stringValue).set(.string(value), .string) }
    func encode(_ value: Double, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: Float, forKey key: Key) throws { try node.member(key.stringValue).set(Double(value), codingPath: codingPath + [key]) }
    func encode(_ value: Int, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: Int64, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: UInt64, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: Int8, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: Int16, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: Int32, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: UInt, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: UInt8, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: UInt16, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode(_ value: UInt32, forKey key: Key) throws { try node.member(key.stringValue).set(value, codingPath: codingPath + [key]) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try node.member(key.stringValue).encode(value, codingPath: codingPath + [key]) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superEncoder() -> any Encoder { NodeEncoder(node: node.member("super"), codingPath: codingPath) }
    func superEncoder(forKey key: Key) -> any Encoder { NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key]) }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let items) = node.content { return items.count }
        return 0
    }

    private var indexPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

    func encodeNil() throws { node.appendItem().set(.null, nil) }
    func encode(_ value: Bool) throws { node.appendItem().set(.bool(value), .boolean) }
    func encode(_ value: String) throws { node.appendItem().set(.string(value), .string) }
    func encode(_ value: Double) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: Float) throws { try node.appendItem().set(Double(value), codingPath: indexPath) }
    func encode(_ value: Int) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: Int64) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: UInt64) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: Int8) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: Int16) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: Int32) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: UInt) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: UInt8) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: UInt16) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode(_ value: UInt32) throws { try node.appendItem().set(value, codingPath: indexPath) }
    func encode<T: Encodable>(_ value: T) throws { let path = indexPath; try node.appendItem().encode(value, codingPath: path) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = indexPath
        return NodeEncoder(node: node.appendItem(), codingPath: path).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = indexPath
        return NodeEncoder(node: node.appendItem(), codingPath: path).unkeyedContainer()
    }

    func superEncoder() -> any Encoder {
        let path = indexPath
        return NodeEncoder(node: node.appendItem(), codingPath: path)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    func encodeNil() throws { node.set(.null, nil) }
    func encode(_ value: Bool) throws { node.set(.bool(value), .boolean) }
    func encode(_ value: String) throws { node.set(.string(value), .string) }
    func encode(_ value: Double) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: Float) throws { try node.set(Double(value), codingPath: codingPath) }
    func encode(_ value: Int) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: Int64) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: UInt64) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: Int8) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: Int16) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: Int32) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: UInt) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: UInt8) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: UInt16) throws { try node.set(value, codingPath: codingPath) }
    func encode(_ value: UInt32) throws { try node.set(value, codingPath: codingPath) }
    func encode<T: Encodable>(_ value: T) throws { try node.encode(value, codingPath: codingPath) }
}

/// The coding key of an array's item.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
