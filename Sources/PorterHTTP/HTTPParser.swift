/// A parsed request line and header block, with what they say about the body and the connection.
struct RequestHead {
    /// How the body that follows the head is delimited.
    enum BodyFraming: Equatable {
        case none
        case length(Int)
        case chunked
    }

    /// The method, upper-cased.
    var method: String
    /// The request target as sent, e.g. `/classes/Book?limit=10`.
    var target: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    var minorVersion: Int
    var headers: HTTPHeaders
    var bodyFraming: BodyFraming
    /// Whether the client wants the connection kept open after the response.
    var keepAlive: Bool
    /// Whether the client waits for `100 Continue` before sending the body.
    var expectsContinue: Bool
}

/// Request parsing as pure functions over received bytes.
enum HTTPParser {
    /// The largest request line plus header block accepted.
    static let maxHeadBytes = 64 * 1024

    /// The head at the start of `bytes` and the number of bytes it takes (its final empty line
    /// included), or nil while the head's end has not arrived. Empty lines before the request
    /// line are skipped; lines may end in CRLF or a bare LF.
    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestError) -> (head: RequestHead, length: Int)? {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        while let lineFeed = bytes[lineStart...].firstIndex(of: ASCII.lineFeed) {
            let next = lineFeed + 1
            guard next - bytes.startIndex <= maxHeadBytes else { throw .headersTooLarge }
            var line = bytes[lineStart..<lineFeed]
            if line.last == ASCII.carriageReturn { line = line.dropLast() }
            lineStart = next
            if line.isEmpty {
                if lines.isEmpty { continue }
                return (try parse(lines), next - bytes.startIndex)
            }
            lines.append(line)
        }
        guard bytes.count <= maxHeadBytes else { throw .headersTooLarge }
        return nil
    }

    private static func parse(_ lines: [ArraySlice<UInt8>]) throws(HTTPRequestError) -> RequestHead {
        let parts = lines[0].split(separator: ASCII.space, omittingEmptySubsequences: false)
        guard parts.count == 3, isToken(parts[0]), !parts[1].isEmpty, parts[1].allSatisfy({ $0 > ASCII.space && $0 != 0x7F }),
            let minorVersion = httpMinorVersion(parts[2])
        else { throw .malformed }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ASCII.colon), isToken(line[..<colon]) else { throw .malformed }
            let value = line[(colon + 1)...]
            guard value.allSatisfy({ $0 == ASCII.tab || ($0 >= ASCII.space && $0 != 0x7F) }) else { throw .malformed }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            headers.add(name, String(decoding: ASCII.trimmingBlanks(value), as: UTF8.self))
        }
        let connection = listValues("Connection", in: headers)
        return RequestHead(
            method: String(decoding: parts[0], as: UTF8.self).uppercased(),
            target: String(decoding: parts[1], as: UTF8.self),
            minorVersion: minorVersion,
            headers: headers,
            bodyFraming: try bodyFraming(headers),
            keepAlive: minorVersion >= 1 ? !connection.contains("close") : connection.contains("keep-alive"),
            expectsContinue: minorVersion >= 1 ? try expectsContinue(headers) : false)
    }

    /// The minor version of `HTTP/1.x`; nil for anything else.
    private static func httpMinorVersion(_ text: ArraySlice<UInt8>) -> Int? {
        let prefix = Array("HTTP/1.".utf8)
        guard text.count == prefix.count + 1, text.starts(with: prefix), let digit = text.last,
            ASCII.digits ~= digit
        else { return nil }
        return Int(digit - ASCII.zero)
    }

    private static func bodyFraming(_ headers: HTTPHeaders) throws(HTTPRequestError) -> RequestHead.BodyFraming {
        let lengths = Set(
            headers.filter { $0.name.lowercased() == "content-length" }
                .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
                .map { $0.trimmingASCIISpaces })
        let encodings = listValues("Transfer-Encoding", in: headers)
        if !encodings.isEmpty {
            guard lengths.isEmpty else { throw .malformed }
            guard encodings == ["chunked"] else { throw .unsupportedTransferEncoding }
            return .chunked
        }
        guard let length = lengths.first else { return .none }
        guard lengths.count == 1, !length.isEmpty, length.utf8.allSatisfy({ ASCII.digits ~= $0 }) else { throw .malformed }
        guard let count = Int(length) else { throw .bodyTooLarge }
        return count == 0 ? .none : .length(count)
    }

    private static func expectsContinue(_ headers: HTTPHeaders) throws(HTTPRequestError) -> Bool {
        guard let expect = headers["Expect"] else { return false }
        guard expect.lowercased() == "100-continue" else { throw .unsupportedExpectation }
        return true
    }

    /// The lower-cased, trimmed elements of every comma-separated field called `name`.
    private static func listValues(_ name: String, in headers: HTTPHeaders) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name.lowercased() == lowered }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingASCIISpaces.lowercased() }
            .filter { !$0.isEmpty }
    }

    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)

    /// RFC 9110 `token`: letters, digits and ``!#$%&'*+-.^_`|~``.
    private static func isToken(_ bytes: ArraySlice<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { ASCII.isAlphanumeric($0) || tokenSymbols.contains($0) }
    }
}
