/// Decodes a `Transfer-Encoding: chunked` body as its bytes arrive. Chunk extensions and
/// trailer fields are read and dropped.
struct ChunkedDecoder {
    private enum State {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailer
        case done
    }

    /// The longest chunk-size line (with extensions) accepted.
    static let maxLineBytes = 4096

    let maxBodyBytes: Int
    /// The body decoded so far.
    private(set) var body: [UInt8] = []
    private var state = State.sizeLine
    private var trailerBytes = 0

    init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    /// Whether the last chunk and the trailer have been read.
    var isComplete: Bool {
        if case .done = state { true } else { false }
    }

    /// Decodes what it can from the start of `bytes` and returns how many bytes it used; the
    /// rest (an incomplete line, or what follows the body) is for the next call or the next request.
    mutating func consume(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> Int {
        var index = bytes.startIndex
        while true {
            switch state {
            case .sizeLine:
                guard let (line, next) = try Self.line(in: bytes[index...]) else { return index - bytes.startIndex }
                let size = try chunkSize(line)
                state = size == 0 ? .trailer : .data(remaining: size)
                index = next
            case .data(let remaining):
                let count = min(remaining, bytes.endIndex - index)
                guard count > 0 else { return index - bytes.startIndex }
                body.append(contentsOf: bytes[index..<(index + count)])
                state = count == remaining ? .dataEnd : .data(remaining: remaining - count)
                index += count
            case .dataEnd:
                guard let (line, next) = try Self.line(in: bytes[index...]) else { return index - bytes.startIndex }
                guard line.isEmpty else { throw .malformed }
                state = .sizeLine
                index = next
            case .trailer:
                guard let (line, next) = try Self.line(in: bytes[index...]) else { return index - bytes.startIndex }
                trailerBytes += next - index
                guard trailerBytes <= HTTPParser.maxHeadBytes else { throw .headersTooLarge }
                if line.isEmpty { state = .done }
                index = next
            case .done:
                return index - bytes.startIndex
            }
        }
    }

    /// The hexadecimal size before any `;extension`, checked against the room left under `maxBodyBytes`.
    private func chunkSize(_ line: ArraySlice<UInt8>) throws(HTTPRequestError) -> Int {
        let digits = ASCII.trimmingBlanks(line.prefix { $0 != ASCII.semicolon })
        guard !digits.isEmpty else { throw .malformed }
        var size = 0
        for byte in digits {
            guard let value = ASCII.hexValue(byte) else { throw .malformed }
            guard size <= (maxBodyBytes - body.count) >> 4 else { throw .bodyTooLarge }
            size = size << 4 | Int(value)
        }
        guard size <= maxBodyBytes - body.count else { throw .bodyTooLarge }
        return size
    }

    /// The line at the start of `bytes` without its CRLF or LF, and the index after it; nil while
    /// the line's end has not arrived.
    private static func line(in bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> (ArraySlice<UInt8>, Int)? {
        guard let lineFeed = bytes.prefix(maxLineBytes + 1).firstIndex(of: ASCII.lineFeed) else {
            if bytes.count > maxLineBytes { throw .malformed }
            return nil
        }
        var line = bytes[..<lineFeed]
        if line.last == ASCII.carriageReturn { line = line.dropLast() }
        return (line, lineFeed + 1)
    }
}
