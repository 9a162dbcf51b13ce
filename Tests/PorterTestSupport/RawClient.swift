import Foundation
import Glibc

/// A response as a raw client read it.
public struct RawResponse {
    public var statusLine: String
    /// Header fields with lower-cased names, in order.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public var status: Int { Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0 }
    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    public func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
}

/// A blocking TCP client for writing exact bytes to a test server and reading exactly what
/// arrives: partial requests, slow clients, connections held open.
public final class RawClient {
    public let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host` (IPv4 or IPv6 numeric) on `port`; every read waits at most `timeout` seconds.
    public init(port: Int, host: String = "127.0.0.1", timeout: Double = 5) throws {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list?.pointee else {
            throw POSIXError(.EINVAL)
        }
        defer { freeaddrinfo(list) }
        // Kept in a local until connected: once every property is set, a throw runs `deinit`,
        // which would close the descriptor a second time (and with it whatever reused its number).
        let descriptor = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard descriptor >= 0, connect(descriptor, info.ai_addr, info.ai_addrlen) == 0 else {
            let failure = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            if descriptor >= 0 { close(descriptor) }
            throw failure
        }
        self.descriptor = descriptor
        let whole = timeout.rounded(.down)
        var value = timeval(tv_sec: Int(whole), tv_usec: Int((timeout - whole) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Writes `bytes`; false when the server closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Writes one HTTP/1.1 request for `target` that asks the server to close the connection
    /// once it has answered: `headers` (name, value) in order, then `body` with its length.
    @discardableResult
    public func sendRequest(_ method: String, _ target: String, host: String, headers: [(String, String)], body: [UInt8]) -> Bool {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        return send(Array((head + "Content-Length: \(body.count)\r\n\r\n").utf8) + body)
    }

    /// Reads more bytes into the buffer: recv's result (0 at end of stream, -1 on error or timeout).
    private func fill() -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 { buffer += chunk[..<count] }
        return count
    }

    /// The bytes up to and including the first empty line, or nil if the stream ended first.
    public func readHead() -> String? {
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                defer { buffer.removeFirst(end.upperBound) }
                return String(decoding: buffer[..<end.upperBound], as: UTF8.self)
            }
            guard fill() > 0 else { return nil }
        }
    }

    /// The next response (its body delimited by `Content-Length`), or nil if the stream ended
    /// or a read timed out first.
    public func readResponse() -> RawResponse? {
        guard let head = readHead() else { return nil }
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let headers = lines.dropFirst().map { line in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (name: line[..<colon].lowercased(), value: line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(statusLine: lines.first ?? "", headers: headers, body: [])
        let length = Int(response.header("content-length") ?? "0") ?? 0
        while buffer.count < length {
            guard fill() > 0 else { return nil }
        }
        response.body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return response
    }

    /// Everything until the server closes (or resets) the connection; nil if it stays open
    /// past the timeout.
    public func readToEnd() -> [UInt8]? {
        while true {
            let count = fill()
            if count == 0 || (count < 0 && errno == ECONNRESET) {
                defer { buffer.removeAll() }
                return buffer
            }
            if count < 0 { return nil }
        }
    }

    /// Whether the server closed the connection (end of stream or reset) before the timeout.
    public func isClosedByServer() -> Bool { readToEnd() != nil }
}
