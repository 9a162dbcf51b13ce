/// A fault in JSON text, at a 1-based line and column (columns count Unicode scalars).
public struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    /// The line of the fault, from 1.
    public let line: Int
    /// The column of the fault, from 1, in Unicode scalars.
    public let column: Int
    /// What is wrong, such as `expected ',' or '}'`.
    public let message: String
    /// The text ended inside a value, and the text seen so far was only a prefix of the
    /// input: reading more may complete it (see `JSONStream`).
    let needsMoreInput: Bool

    /// A fault at `line` and `column`.
    public init(line: Int, column: Int, message: String) {
        self.init(line: line, column: column, message: message, needsMoreInput: false)
    }

    init(line: Int, column: Int, message: String, needsMoreInput: Bool) {
        self.line = line
        self.column = column
        self.message = message
        self.needsMoreInput = needsMoreInput
    }

    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }

    /// The message of a string whose bytes are not UTF-8.
    package static let invalidUTF8Message = "invalid UTF-8 in string"
}

/// Parses JSON text (RFC 8259) into `JSONValue`.
///
/// Integers without fraction or exponent that fit `Int64` become `.integer`, other numbers
/// `.double`. The parser is strict: no NaN or Infinity, no leading zeros, no trailing
/// commas or content, no control characters or invalid UTF-8 in strings, no unpaired
/// surrogate escapes. Nesting deeper than `maximumDepth` is an error (the parser does not
/// recurse, so deep input never overflows the stack). A leading UTF-8 byte order mark is
/// skipped.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maximumDepth = 512

    /// Parses one JSON document: `try JSONParser.parse(#"{"title": "Dune"}"#)["title"]` is `.string("Dune")`.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { utf8 in
            Result { () throws(JSONSyntaxError) in try parse(bytes: UnsafeRawBufferPointer(utf8)) }
        }
        return try result.get()
    }

    /// Parses one JSON document from UTF-8 bytes.
    public static func parse(bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONSyntaxError) in try parse(bytes: buffer) }
        }
        return try result.get()
    }

    /// Parses one JSON document from UTF-8 bytes.
    package static func parse(bytes: UnsafeRawBufferPointer) throws(JSONSyntaxError) -> JSONValue {
        var scanner = JSONScanner(bytes: bytes, at: JSONScanner.Position(), isFinal: true)
        scanner.skipByteOrderMark()
        let value = try scanner.parseValue()
        if try scanner.peekToken() != nil { throw scanner.error("unexpected content after the JSON value") }
        return value
    }
}

/// The scanning core of `JSONParser` and `JSONStream`: reads JSON from a window of bytes
/// that is either the whole input (`isFinal`) or a prefix of what is still to come. In the
/// latter case, running into the window's end throws an error with `needsMoreInput`, and
/// the caller retries from its last committed `position` with a longer window.
struct JSONScanner {
    /// Where the scanner stands, in a form that survives moving to a new window.
    struct Position {
        /// Offset of the next byte in the window.
        var index = 0
        var line = 1
        /// Offset at which the current line starts (negative when it started before the window).
        var lineStart = 0
        /// UTF-8 continuation bytes between `lineStart` and `index`, so that columns count scalars.
        var lineContinuationBytes = 0

        /// The 1-based column of `index`, in Unicode scalars.
        var column: Int { index - lineStart - lineContinuationBytes + 1 }
    }

    let bytes: UnsafeRawBufferPointer
    let isFinal: Bool
    private(set) var position: Position
    /// When set, a line feed ends the input (JSON Lines): it is not skipped as whitespace.
    var stopsAtLineFeed = false
    /// Reused buffer for strings with escapes.
    private var scratch: [UInt8] = []

    init(bytes: UnsafeRawBufferPointer, at position: Position, isFinal: Bool) {
        self.bytes = bytes
        self.position = position
        self.isFinal = isFinal
    }

    var line: Int { position.line }
    var column: Int { position.column }

    /// The column of `index`, further on the current line, when the continuation bytes up to
    /// it are counted.
    private func column(at index: Int) -> Int {
        index - position.lineStart - position.lineContinuationBytes + 1
    }

    // MARK: Errors

    /// An error at the current position.
    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(line: line, column: column, message: message)
    }

    /// The input (or, with `stopsAtLineFeed`, the line) ended inside a value; retry-able when
    /// the window is not the whole input.
    func endOfInput() -> JSONSyntaxError {
        if stopsAtLineFeed && position.index < bytes.count && bytes[position.index] == UInt8(ascii: "\n") {
            return error("unexpected end of line")
        }
        return JSONSyntaxError(line: line, column: column, message: "unexpected end of input", needsMoreInput: !isFinal)
    }

    /// An error for `byte`, found where a value should start.
    private func unexpected(_ byte: UInt8) -> JSONSyntaxError {
        switch byte {
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            return error("NaN and Infinity are not valid JSON numbers")
        case 0x21...0x7E:
            return error("expected a value, found '\(Character(Unicode.Scalar(byte)))'")
        default:
            return error("expected a value, found byte 0x\(String(byte, radix: 16, uppercase: true))")
        }
    }

    // MARK: Whitespace and tokens

    mutating func skipByteOrderMark() {
        guard position.index == 0, bytes.count >= 3,
            bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF
        else { return }
        position.index = 3
        position.lineStart = 3
    }

    /// Skips spaces, tabs, carriage returns and line feeds (not line feeds with `stopsAtLineFeed`).
    mutating func skipWhitespace() {
        var index = position.index
        defer { position.index = index }
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "\n") where !stopsAtLineFeed:
                index += 1
                position.line += 1
                position.lineStart = index
                position.lineContinuationBytes = 0
            default:
                return
            }
        }
    }

    /// The next non-whitespace byte, not consumed; `nil` at the end of the whole input
    /// (or of the line, with `stopsAtLineFeed`).
    mutating func peekToken() throws(JSONSyntaxError) -> UInt8? {
        skipWhitespace()
        if position.index < bytes.count {
            let byte = bytes[position.index]
            return byte == UInt8(ascii: "\n") ? nil : byte
        }
        if isFinal { return nil }
        throw endOfInput()
    }

    /// Consumes the next byte; only for bytes other than line feeds.
    mutating func advance() {
        position.index += 1
    }

    /// Consumes `byte` as the next token, or fails with `message`.
    mutating func expect(_ byte: UInt8, _ message: @autoclosure () -> String) throws(JSONSyntaxError) {
        guard let next = try peekToken() else { throw endOfInput() }
        guard next == byte else { throw error(message()) }
        advance()
    }

    /// An object key and the colon after it; without `decoding`, the key is checked and "".
    mutating func parseKey(decoding: Bool = true) throws(JSONSyntaxError) -> String {
        guard let next = try peekToken() else { throw endOfInput() }
        guard next == UInt8(ascii: "\"") else { throw error("expected a string as object key") }
        let key = try parseString(decoding: decoding)
        try expect(UInt8(ascii: ":"), "expected ':' after object key")
        return key
    }

    // MARK: Values

    /// One open array or object while parsing (the parser keeps its own stack, not the call stack).
    private struct Container {
        let isObject: Bool
        var elements: [JSONValue] = []
        var members: [JSONMember] = []
        var key = ""
    }

    /// Parses one value, skipping whitespace before it (not after it). Without `building`, the
    /// value is checked as strictly and `.null` returned (nothing is allocated for it); `depth`:
    /// the arrays and objects it is nested in.
    mutating func parseValue(building: Bool = true, depth: Int = 0) throws(JSONSyntaxError) -> JSONValue {
        var open: [Container] = []
        nextValue: while true {
            guard let first = try peekToken() else { throw endOfInput() }
            var value: JSONValue
            switch first {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard open.count + depth < JSONParser.maximumDepth else {
                    throw error("nesting is deeper than \(JSONParser.maximumDepth) levels")
                }
                let isObject = first == UInt8(ascii: "{")
                advance()
                let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                guard try peekToken() == closing else {
                    var container = Container(isObject: isObject)
                    if isObject { container.key = try parseKey(decoding: building) }
                    open.append(container)
                    continue nextValue
                }
                advance()
                value = isObject ? .object(JSONObject()) : .array([])
            case UInt8(ascii: "\""):
                let text = try parseString(decoding: building)
                value = building ? .string(text) : .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try parseNumber()
            case UInt8(ascii: "t"):
                try parseLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try parseLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try parseLiteral("null")
                value = .null
            default:
                throw unexpected(first)
            }

            // Add the value to the innermost open container, closing containers that end here.
            while let top = open.indices.last {
                guard let separator = try peekToken() else { throw endOfInput() }
                if open[top].isObject {
                    if building { open[top].members.append(JSONMember(open[top].key, value)) }
                    if separator == UInt8(ascii: ",") {
                        advance()
                        open[top].key = try parseKey(decoding: building)
                        continue nextValue
                    }
                    guard separator == UInt8(ascii: "}") else { throw error("expected ',' or '}' after object member") }
                    advance()
                    let closed = open.removeLast()
                    value = building ? .object(JSONObject(closed.members)) : .null
                } else {
                    if building { open[top].elements.append(value) }
                    if separator == UInt8(ascii: ",") {
                        advance()
                        continue nextValue
                    }
                    guard separator == UInt8(ascii: "]") else { throw error("expected ',' or ']' after array element") }
                    advance()
                    let closed = open.removeLast()
                    value = building ? .array(closed.elements) : .null
                }
            }
            return value
        }
    }

    /// Checks the object that starts at the next byte (its `{`) as `parseValue()` does, and
    /// appends each member's key and value to `members` (offsets from the `{`) instead of
    /// building it. Faults are those `parseValue()` reports, at the same places.
    mutating func scanObject(into members: inout [JSONMemberSpan]) throws(JSONSyntaxError) {
        let start = position.index
        advance()
        guard try peekToken() != UInt8(ascii: "}") else { return advance() }
        while true {
            guard let next = try peekToken() else { throw endOfInput() }
            guard next == UInt8(ascii: "\"") else { throw error("expected a string as object key") }
            let keyStart = position.index + 1
            _ = try parseString(decoding: false)
            let keyEnd = position.index - 1
            try expect(UInt8(ascii: ":"), "expected ':' after object key")
            guard try peekToken() != nil else { throw endOfInput() }
            let valueStart = position.index
            _ = try parseValue(building: false, depth: 1)
            members.append(
                JSONMemberSpan(
                    keyStart: Int32(keyStart - start), keyEnd: Int32(keyEnd - start), valueStart: Int32(valueStart - start),
                    valueEnd: Int32(position.index - start)))
            guard let separator = try peekToken() else { throw endOfInput() }
            guard separator == UInt8(ascii: ",") || separator == UInt8(ascii: "}") else { throw error("expected ',' or '}' after object member") }
            advance()
            if separator == UInt8(ascii: "}") { return }
        }
    }

    private mutating func parseLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let start = position.index
        for offset in 0..<literal.utf8CodeUnitCount {
            guard start + offset < bytes.count else {
                if isFinal { throw error("invalid literal, expected '\(literal)'") }
                throw endOfInput()
            }
            guard bytes[start + offset] == literal.utf8Start[offset] else {
                throw error("invalid literal, expected '\(literal)'")
            }
        }
        position.index = start + literal.utf8CodeUnitCount
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = position.index
        var index = start
        let isNegative = bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }

        func failure(_ message: String, at index: Int) -> JSONSyntaxError {
            JSONSyntaxError(line: line, column: column + (index - start), message: message)
        }
        func digit(at index: Int) -> Int64? {
            guard index < bytes.count else { return nil }
            let digit = bytes[index] &- UInt8(ascii: "0")
            return digit < 10 ? Int64(digit) : nil
        }
        /// The index after the digits at `index`, of which there must be at least one.
        func skipDigits(from index: Int, after what: String) throws(JSONSyntaxError) -> Int {
            guard digit(at: index) != nil else {
                if index == bytes.count && !isFinal { throw endOfInput() }
                throw failure("expected a digit after \(what)", at: index)
            }
            var end = index + 1
            while digit(at: end) != nil { end += 1 }
            return end
        }

        // Integer part, accumulated as a negative number so that Int64.min fits.
        var magnitude: Int64 = 0
        var fitsInt64 = true
        if digit(at: index) == 0 {
            index += 1
            if digit(at: index) != nil { throw failure("leading zeros are not allowed", at: start) }
        } else {
            if index < bytes.count && bytes[index] == UInt8(ascii: "I") {
                throw failure("NaN and Infinity are not valid JSON numbers", at: index)
            }
            let digitsStart = index
            index = try skipDigits(from: index, after: "'-'")
            for offset in digitsStart..<index where fitsInt64 {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.subtractingReportingOverflow(Int64(bytes[offset] &- UInt8(ascii: "0")))
                magnitude = sum
                fitsInt64 = !overflow1 && !overflow2
            }
        }

        var isInteger = true
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            index = try skipDigits(from: index, after: "the decimal point")
        }
        if index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            index = try skipDigits(from: index, after: "the exponent")
        }
        // A number running into the end of a partial window may continue in the next one.
        if index == bytes.count && !isFinal { throw endOfInput() }

        if isInteger && fitsInt64 && (isNegative || magnitude != .min) {
            position.index = index
            return .integer(isNegative ? magnitude : -magnitude)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else {
            throw failure("number \(text) is out of range", at: start)
        }
        position.index = index
        return .double(double)
    }

    // MARK: Strings

    /// Parses a string; the next byte is its opening quote. Without `decoding`, the string is
    /// checked as strictly (escapes, UTF-8) and "" returned.
    mutating func parseString(decoding: Bool = true) throws(JSONSyntaxError) -> String {
        let openingColumn = column
        let start = position.index + 1
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = try makeString(UnsafeRawBufferPointer(rebasing: bytes[start..<index]), openingColumn: openingColumn, decoding: decoding)
                position.index = index + 1
                return string
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(from: start, backslash: index, openingColumn: openingColumn, decoding: decoding)
            }
            try checkStringByte(byte, at: index)
            index += 1
        }
        position.index = index
        throw endOfInput()
    }

    /// Rejects control characters and counts continuation bytes for columns.
    private mutating func checkStringByte(_ byte: UInt8, at index: Int) throws(JSONSyntaxError) {
        if byte < 0x20 {
            let message = byte == UInt8(ascii: "\n") ? "unterminated string" : "control character in string"
            throw JSONSyntaxError(line: line, column: column(at: index), message: message)
        }
        if byte & 0xC0 == 0x80 { position.lineContinuationBytes += 1 }
    }

    /// The text of `utf8`, or only the check that it is UTF-8 ("" without `decoding`).
    private func makeString(_ utf8: UnsafeRawBufferPointer, openingColumn: Int, decoding: Bool = true) throws(JSONSyntaxError) -> String {
        let string = decoding ? String(validUTF8: utf8) : (String.isValidUTF8(utf8) ? "" : nil)
        guard let string else {
            throw JSONSyntaxError(line: line, column: openingColumn, message: JSONSyntaxError.invalidUTF8Message)
        }
        return string
    }

    /// The slow path of `parseString`, from its first backslash.
    private mutating func parseEscapedString(
        from start: Int, backslash: Int, openingColumn: Int, decoding: Bool
    ) throws(JSONSyntaxError) -> String {
        scratch.removeAll(keepingCapacity: true)
        var segmentStart = start
        var index = backslash
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[segmentStart..<index]))
                let result = scratch.withUnsafeBytes { utf8 in
                    Result { () throws(JSONSyntaxError) in try makeString(utf8, openingColumn: openingColumn, decoding: decoding) }
                }
                position.index = index + 1
                return try result.get()
            case UInt8(ascii: "\\"):
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[segmentStart..<index]))
                position.index = index
                index = try appendEscape(at: index)
                segmentStart = index
            default:
                try checkStringByte(byte, at: index)
                index += 1
            }
        }
        position.index = index
        throw endOfInput()
    }

    /// Decodes the escape sequence at `index` (a backslash) into `scratch`; returns the index after it.
    private mutating func appendEscape(at index: Int) throws(JSONSyntaxError) -> Int {
        guard index + 1 < bytes.count else { throw endOfInput() }
        let decoded: UInt8
        switch bytes[index + 1] {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = UInt8(ascii: "\n")
        case UInt8(ascii: "r"): decoded = UInt8(ascii: "\r")
        case UInt8(ascii: "t"): decoded = UInt8(ascii: "\t")
        case UInt8(ascii: "u"):
            return try appendUnicodeEscape(at: index)
        default:
            throw error("invalid escape sequence in string")
        }
        scratch.append(decoded)
        return index + 2
    }

    /// Decodes `\uXXXX`, or a surrogate pair `\uD83D\uDE00`, at `index`.
    private mutating func appendUnicodeEscape(at index: Int) throws(JSONSyntaxError) -> Int {
        let high = try hexQuad(at: index + 2)
        var end = index + 6
        var scalarValue = UInt32(high)
        switch high {
        case 0xD800...0xDBFF:
            guard end + 1 < bytes.count || isFinal else { throw endOfInput() }
            guard end + 1 < bytes.count, bytes[end] == UInt8(ascii: "\\"), bytes[end + 1] == UInt8(ascii: "u") else {
                throw error("unpaired surrogate in \\u escape")
            }
            let low = try hexQuad(at: end + 2)
            guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
            scalarValue = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            end += 6
        case 0xDC00...0xDFFF:
            throw error("unpaired surrogate in \\u escape")
        default:
            break
        }
        // Surrogates are excluded above, so every remaining value is a scalar.
        UTF8.encode(Unicode.Scalar(scalarValue)!) { scratch.append($0) }
        return end
    }

    /// The value of four hex digits at `index`.
    private func hexQuad(at index: Int) throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for offset in index..<index + 4 {
            guard offset < bytes.count else {
                if isFinal { throw error("invalid \\u escape, expected four hex digits") }
                throw endOfInput()
            }
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape, expected four hex digits")
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }
}
