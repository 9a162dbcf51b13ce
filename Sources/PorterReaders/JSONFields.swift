import ParseModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A JSON record's top-level members as spans of the record's text, in one buffer: one
/// allocation per record, where a `JSONValue` made a `String` per string and per member name
/// and an array per object and array. A value becomes a `JSONValue` only where it is read as
/// one (``value(at:)``); coercions read its token (``withValue(at:_:)``). The text was checked
/// by the reader as strictly as the parser checks it, so reading it again cannot fail.
package struct JSONFields: Sendable {
    /// `count` members of 4 native `Int32`s each (key start, key end, value start, value end,
    /// offsets into the text; a key start's top bit set when the key is not plain ASCII without
    /// escapes), then the object's text from its `{` to its `}`.
    @usableFromInline let storage: [UInt8]
    /// How many members the object has, duplicates included.
    package let count: Int

    private static let spanBytes = 4 * MemoryLayout<Int32>.stride
    private static let notPlain = Int32.min

    /// The members `members` of the object whose text is `text`.
    package init(members: [JSONMemberSpan], text: UnsafeRawBufferPointer) {
        count = members.count
        let header = members.count * Self.spanBytes
        storage = [UInt8](unsafeUninitializedCapacity: header + text.count) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            for (index, member) in members.enumerated() {
                let key = UnsafeRawBufferPointer(rebasing: text[Int(member.keyStart)..<Int(member.keyEnd)])
                let isPlain = !key.contains { $0 >= 0x80 || $0 == UInt8(ascii: "\\") }
                let span = base + index * Self.spanBytes
                span.storeBytes(of: isPlain ? member.keyStart : member.keyStart | Self.notPlain, as: Int32.self)
                span.storeBytes(of: member.keyEnd, toByteOffset: 4, as: Int32.self)
                span.storeBytes(of: member.valueStart, toByteOffset: 8, as: Int32.self)
                span.storeBytes(of: member.valueEnd, toByteOffset: 12, as: Int32.self)
            }
            if let start = text.baseAddress { memcpy(base + header, start, text.count) }
            initialized = header + text.count
        }
    }

    private func field(_ index: Int, _ offset: Int) -> Int {
        storage.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: index * Self.spanBytes + offset * 4, as: Int32.self)) }
    }

    /// `body` on the bytes of the text from `start` to `end`.
    private func withText<R>(_ start: Int, _ end: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        storage.withUnsafeBytes { raw in
            let base = count * Self.spanBytes
            return body(UnsafeRawBufferPointer(rebasing: raw[(base + start)..<(base + end)]).assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Where the name of the member at `index` is (without its quotes), and whether it is
    /// plain: ASCII without escapes, so that its bytes are its text.
    private func keySpan(_ index: Int) -> (start: Int, end: Int, isPlain: Bool) {
        let start = field(index, 0)
        return (start & Int(Int32.max), field(index, 1), start >= 0)
    }

    /// The position of the last member named `name` (the one `JSONObject`'s subscript gives), compared
    /// as `String`s compare (escapes decoded, canonically equivalent text equal); `nil` when none is.
    /// `isASCII`: whether `name` is ASCII, when plain keys are compared byte by byte.
    package func index(of name: String, isASCII: Bool) -> Int? {
        var utf8 = name
        return utf8.withUTF8 { wanted in
            for index in stride(from: count - 1, through: 0, by: -1) {
                let key = keySpan(index)
                guard key.isPlain, isASCII else {
                    if self.key(at: index) == name { return index }
                    continue
                }
                guard key.end - key.start == wanted.count else { continue }
                if wanted.isEmpty || withText(key.start, key.end, { memcmp($0.baseAddress!, wanted.baseAddress!, wanted.count) == 0 }) {
                    return index
                }
            }
            return nil
        }
    }

    /// `body` on the token of the value at `index`: a string with its quotes and escapes, a
    /// number as written, `true`, `false`, `null`, or an object's or array's text.
    package func withValue<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withText(field(index, 2), field(index, 3), body)
    }

    /// The value at `index`. A string without escapes, a literal, and an object whose members
    /// are such strings (a Pointer, a Date) are made from their token, which the reader checked
    /// as the parser checks it; anything else is parsed.
    package func value(at index: Int) -> JSONValue {
        withValue(at: index) { token in
            switch token[0] {
            case UInt8(ascii: "\""):
                let text = UnsafeBufferPointer(rebasing: token[1..<token.count - 1])
                guard let start = text.baseAddress else { return .string("") }
                guard memchr(start, Int32(UInt8(ascii: "\\")), text.count) == nil else { return Self.parse(token) }
                return .string(String(decoding: text, as: UTF8.self))
            case UInt8(ascii: "t"): return .bool(true)
            case UInt8(ascii: "f"): return .bool(false)
            case UInt8(ascii: "n"): return .null
            case UInt8(ascii: "{"): return Self.objectOfPlainStrings(token) ?? Self.parse(token)
            default: return Self.parse(token)
            }
        }
    }

    /// The object `token` (checked JSON text) when every key and value in it is a string
    /// without escapes; `nil` when one is not.
    private static func objectOfPlainStrings(_ token: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var cursor = CheckedJSONCursor(token)
        if cursor.skipWhitespace() == UInt8(ascii: "}") { return .object(JSONObject()) }
        var members: [JSONMember] = []
        members.reserveCapacity(4)
        while true {
            guard let key = cursor.plainString() else { return nil }
            cursor.skipWhitespace()
            cursor.advance()  // the colon
            guard let value = cursor.plainString() else { return nil }
            members.append(JSONMember(String(decoding: key, as: UTF8.self), .string(String(decoding: value, as: UTF8.self))))
            if cursor.skipWhitespace() == UInt8(ascii: "}") { return .object(JSONObject(members)) }
            cursor.advance()  // the comma
        }
    }

    /// The name of the member at `index`, escapes decoded.
    package func key(at index: Int) -> String {
        let key = keySpan(index)
        guard !key.isPlain else { return withText(key.start, key.end) { String(decoding: $0, as: UTF8.self) } }
        // The key's token: its quotes are around its span.
        return withText(key.start - 1, key.end + 1) { Self.parse($0).stringValue ?? "" }
    }

    /// The member names in order, duplicates included.
    package var keys: [String] { (0..<count).map(key(at:)) }

    /// The whole object.
    package var object: JSONObject {
        guard case .object(let object) = withText(0, storage.count - count * Self.spanBytes, Self.parse) else { return JSONObject() }
        return object
    }

    /// JSON text the reader has checked.
    private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> JSONValue {
        guard let value = try? JSONParser.parse(bytes: UnsafeRawBufferPointer(text)) else {
            preconditionFailure("JSON text a reader checked does not parse")
        }
        return value
    }
}

/// Walks JSON text the reader has already checked (an object's or array's token), so that a
/// few simple shapes can be read from it without the parser: past its opening bracket, over
/// whitespace and strings without escapes. Reading past the token's end cannot happen on
/// checked text, whose closing bracket stops every walk.
package struct CheckedJSONCursor {
    private let text: UnsafeBufferPointer<UInt8>
    private var index = 1

    /// A cursor just past the opening `{` or `[` of `text`.
    package init(_ text: UnsafeBufferPointer<UInt8>) { self.text = text }

    /// Skips whitespace; returns the byte it stops at.
    @discardableResult
    package mutating func skipWhitespace() -> UInt8 {
        while text[index] == 0x20 || text[index] == 0x09 || text[index] == 0x0A || text[index] == 0x0D { index += 1 }
        return text[index]
    }

    /// Steps over the byte it is at (a `:` or `,`).
    package mutating func advance() { index += 1 }

    /// The bytes of the string that starts next (after whitespace), without its quotes, and moves
    /// past it; `nil` for another token or a string with an escape.
    package mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard skipWhitespace() == UInt8(ascii: "\"") else { return nil }
        var end = index + 1
        while text[end] != UInt8(ascii: "\"") {
            if text[end] == UInt8(ascii: "\\") { return nil }
            end += 1
        }
        defer { index = end + 1 }
        return UnsafeBufferPointer(rebasing: text[(index + 1)..<end])
    }
}
