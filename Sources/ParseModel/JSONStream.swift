/// Why a `JSONStream` could not go on.
package enum JSONStreamError: Error, Sendable {
    /// The text is not valid JSON.
    case syntax(JSONSyntaxError)
    /// The read function failed; the message says why.
    case readFailed(String)
    /// A value (with the whitespace before it) is larger than the stream's limit, in bytes.
    case valueTooLarge(limit: Int)
}

/// Where one member of an object is in its text, as offsets from the object's `{`: the key
/// without its quotes (escapes not decoded), and the value's whole token (a string with its quotes).
package struct JSONMemberSpan: Sendable {
    package var keyStart: Int32
    package var keyEnd: Int32
    package var valueStart: Int32
    package var valueEnd: Int32

    package init(keyStart: Int32, keyEnd: Int32, valueStart: Int32, valueEnd: Int32) {
        (self.keyStart, self.keyEnd, self.valueStart, self.valueEnd) = (keyStart, keyEnd, valueStart, valueEnd)
    }
}

/// A value read by ``JSONStream/scanValue(members:)``: an object's text, its members' spans
/// beside it, or any other value parsed whole.
package enum JSONScannedValue {
    /// The object's bytes, valid until the stream is used again.
    case object(UnsafeRawBufferPointer)
    case other(JSONValue)
}

/// A pull parser over JSON text that is read in chunks, for inputs too large to hold:
/// the caller walks the outer structure token by token (`beginArray`, `nextElement`,
/// `beginObject`, `nextKey`) and parses the pieces it wants whole (`parseValue`).
///
/// The stream holds one chunk plus the value being parsed; a value larger than the chunk
/// grows the buffer until it fits, up to `maximumValueBytes`. A leading UTF-8 byte order
/// mark is skipped. `line` and `column` give the position reached; after `peek()`,
/// `nextElement()` or `nextKey()` that is the next token, so after `nextElement()` returns
/// `true` they locate the element about to be parsed.
///
/// A stream is a reference type that is used by one reader at a time.
package final class JSONStream {
    /// Fills the start of the buffer and returns the number of bytes written, 0 only at the
    /// end of the input. Throws `JSONStreamError.readFailed` when the input cannot be read.
    package typealias ReadFunction = (UnsafeMutableRawBufferPointer) throws(JSONStreamError) -> Int

    private let read: ReadFunction
    private let maximumValueBytes: Int
    private var storage: UnsafeMutableRawBufferPointer
    /// Bytes of `storage` that hold input.
    private var filled = 0
    private var reachedEnd = false
    private var position = JSONScanner.Position()
    /// Input bytes dropped from the front of `storage`.
    private var discarded: Int64 = 0
    private var checkedByteOrderMark = false
    /// For each array or object begun and not yet closed: whether it has had an element.
    private var openContainers: [(isObject: Bool, hasElements: Bool)] = []

    /// The largest value a stream parses unless told otherwise: 64 MiB, above any object a
    /// Parse Server accepts (its request bodies are at most 20 MB by default).
    package static let defaultMaximumValueBytes = 64 << 20

    /// - Parameters:
    ///   - chunkSize: The buffer's initial size (at least 16); `read` fills its free part.
    ///   - maximumValueBytes: The largest value parsed whole; a larger one is
    ///     ``JSONStreamError/valueTooLarge(limit:)`` (memory is about twice this at most).
    ///   - read: Supplies the input; see `ReadFunction`.
    package init(chunkSize: Int = 1 << 16, maximumValueBytes: Int = JSONStream.defaultMaximumValueBytes, read: @escaping ReadFunction) {
        self.read = read
        self.maximumValueBytes = max(maximumValueBytes, chunkSize)
        storage = .allocate(byteCount: max(chunkSize, 16), alignment: 1)
    }

    deinit {
        storage.deallocate()
    }

    /// Line of the next unread byte (1-based).
    package var line: Int { position.line }

    /// Column of the next unread byte (1-based, in Unicode scalars).
    package var column: Int { position.column }

    /// Input bytes consumed so far.
    package var bytesConsumed: Int64 { discarded + Int64(position.index) }

    /// The next non-whitespace byte, not consumed; `nil` at the end of the input.
    package func peek() throws(JSONStreamError) -> UInt8? {
        try attempt { scanner throws(JSONSyntaxError) in try scanner.peekToken() }
    }

    /// Parses the next value whole.
    package func parseValue() throws(JSONStreamError) -> JSONValue {
        try attempt { scanner throws(JSONSyntaxError) in try scanner.parseValue() }
    }

    /// Like ``parseValue()``, but an object is checked, not built: its members' spans replace
    /// the contents of `members`, and its text is handed back (faults as `parseValue()`'s).
    package func scanValue(members: inout [JSONMemberSpan]) throws(JSONStreamError) -> JSONScannedValue {
        let range = try attempt { scanner throws(JSONSyntaxError) -> Range<Int>? in try Self.scan(&scanner, into: &members) }
        guard let range else { return .other(try parseValue()) }
        return .object(UnsafeRawBufferPointer(rebasing: storage[range]))
    }

    /// Like ``nextLineValue()``, with an object scanned as ``scanValue(members:)`` scans it.
    package func nextLineScan(members: inout [JSONMemberSpan]) throws(JSONStreamError) -> (line: Int, value: JSONScannedValue)? {
        guard try peek() != nil else { return nil }
        let line = position.line
        let range = try attempt { scanner throws(JSONSyntaxError) -> Range<Int>? in
            scanner.stopsAtLineFeed = true
            guard let range = try Self.scan(&scanner, into: &members) else { return nil }
            if try scanner.peekToken() != nil { throw scanner.error("unexpected content after the JSON value") }
            return range
        }
        guard let range else { return try nextLineValue().map { ($0.line, .other($0.value)) } }
        return (line, .object(UnsafeRawBufferPointer(rebasing: storage[range])))
    }

    /// The range of the object at the scanner's next byte, its members' spans in `members`;
    /// `nil`, nothing consumed, when the next value is not an object.
    private static func scan(_ scanner: inout JSONScanner, into members: inout [JSONMemberSpan]) throws(JSONSyntaxError) -> Range<Int>? {
        members.removeAll(keepingCapacity: true)
        guard try scanner.peekToken() == UInt8(ascii: "{") else { return nil }
        let start = scanner.position.index
        try scanner.scanObject(into: &members)
        return start..<scanner.position.index
    }

    /// Consumes the `[` that opens an array; walk it with `nextElement()`.
    package func beginArray() throws(JSONStreamError) {
        try attempt { scanner throws(JSONSyntaxError) in try scanner.expect(UInt8(ascii: "["), "expected '['") }
        openContainers.append((isObject: false, hasElements: false))
    }

    /// Moves to the next element of the innermost array begun: `true` when an element
    /// follows (read it before calling again), `false` once the closing `]` is consumed.
    package func nextElement() throws(JSONStreamError) -> Bool {
        guard let container = openContainers.last, !container.isObject else {
            preconditionFailure("nextElement() outside an array")
        }
        let more = try attempt { scanner throws(JSONSyntaxError) in
            guard let next = try scanner.peekToken() else { throw scanner.endOfInput() }
            if next == UInt8(ascii: "]") {
                scanner.advance()
                return false
            }
            if container.hasElements {
                try scanner.expect(UInt8(ascii: ","), "expected ',' or ']' after array element")
                _ = try scanner.peekToken()
            }
            return true
        }
        noteElement(found: more)
        return more
    }

    /// Consumes the `{` that opens an object; walk it with `nextKey()`.
    package func beginObject() throws(JSONStreamError) {
        try attempt { scanner throws(JSONSyntaxError) in try scanner.expect(UInt8(ascii: "{"), "expected '{'") }
        openContainers.append((isObject: true, hasElements: false))
    }

    /// The key of the next member of the innermost object begun, with its colon consumed
    /// (read the value before calling again); `nil` once the closing `}` is consumed.
    package func nextKey() throws(JSONStreamError) -> String? {
        guard let container = openContainers.last, container.isObject else {
            preconditionFailure("nextKey() outside an object")
        }
        let key = try attempt { scanner throws(JSONSyntaxError) -> String? in
            guard let next = try scanner.peekToken() else { throw scanner.endOfInput() }
            if next == UInt8(ascii: "}") {
                scanner.advance()
                return nil
            }
            if container.hasElements {
                try scanner.expect(UInt8(ascii: ","), "expected ',' or '}' after object member")
            }
            return try scanner.parseKey()
        }
        noteElement(found: key != nil)
        return key
    }

    /// For JSON Lines: skips blank lines and parses the value on the next line, which must
    /// be complete on that line and alone on it. Returns the value with the line it is on,
    /// or `nil` at the end of the input.
    package func nextLineValue() throws(JSONStreamError) -> (line: Int, value: JSONValue)? {
        guard try peek() != nil else { return nil }
        let line = position.line
        let value = try attempt { scanner throws(JSONSyntaxError) in
            scanner.stopsAtLineFeed = true
            let value = try scanner.parseValue()
            if try scanner.peekToken() != nil { throw scanner.error("unexpected content after the JSON value") }
            return value
        }
        return (line, value)
    }

    /// Checks that nothing but whitespace is left.
    package func finish() throws(JSONStreamError) {
        try attempt { scanner throws(JSONSyntaxError) in
            if try scanner.peekToken() != nil { throw scanner.error("unexpected content after the JSON value") }
        }
    }

    /// Marks the innermost container as having an element, or closes it.
    private func noteElement(found: Bool) {
        if found {
            openContainers[openContainers.count - 1].hasElements = true
        } else {
            openContainers.removeLast()
        }
    }

    // MARK: Buffering

    /// Runs `body` on a scanner over the buffered input; when the buffer ends too early,
    /// reads more and runs it again from the same position. Whitespace before the token is
    /// consumed first, so that long runs of it do not have to fit in the buffer.
    private func attempt<Value>(
        _ body: (inout JSONScanner) throws(JSONSyntaxError) -> Value
    ) throws(JSONStreamError) -> Value {
        if !checkedByteOrderMark { try skipByteOrderMark() }
        while true {
            var scanner = JSONScanner(
                bytes: UnsafeRawBufferPointer(rebasing: storage[..<filled]),
                at: position, isFinal: reachedEnd)
            scanner.skipWhitespace()
            position = scanner.position
            do throws(JSONSyntaxError) {
                let result = try body(&scanner)
                position = scanner.position
                return result
            } catch  where error.needsMoreInput {
                try readMore()
            } catch {
                throw .syntax(error)
            }
        }
    }

    private func skipByteOrderMark() throws(JSONStreamError) {
        while filled < 3 && !reachedEnd { try readMore() }
        var scanner = JSONScanner(
            bytes: UnsafeRawBufferPointer(rebasing: storage[..<filled]),
            at: position, isFinal: reachedEnd)
        scanner.skipByteOrderMark()
        position = scanner.position
        checkedByteOrderMark = true
    }

    /// Drops consumed input, grows the buffer when the unconsumed rest fills it, and reads until
    /// it is full or the input ends.
    private func readMore() throws(JSONStreamError) {
        let consumed = position.index
        if consumed > 0 {
            let rest = filled - consumed
            if rest > 0, let base = storage.baseAddress {
                base.copyMemory(from: base + consumed, byteCount: rest)
            }
            filled = rest
            discarded += Int64(consumed)
            position.index = 0
            position.lineStart -= consumed
        }
        if filled == storage.count {
            guard filled < maximumValueBytes else { throw .valueTooLarge(limit: maximumValueBytes) }
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: min(storage.count * 2, maximumValueBytes), alignment: 1)
            larger.copyMemory(from: UnsafeRawBufferPointer(storage))
            storage.deallocate()
            storage = larger
        }
        // Fill the buffer, however little each read gives (an archive entry or a transcoded file
        // gives 64 KiB): the value is scanned again from its start after each refill, so only a
        // buffer that doubles keeps a long value's cost linear.
        while filled < storage.count {
            let count = try read(UnsafeMutableRawBufferPointer(rebasing: storage[filled...]))
            guard count > 0 else {
                reachedEnd = true
                return
            }
            filled += count
        }
    }
}
