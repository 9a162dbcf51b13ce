import Foundation
import Glibc
import PorterHTTP
import XCTest

/// What ``EchoHandler`` answers: the request as the handler saw it.
struct Echo: Codable, Equatable {
    var method: String
    var path: String
    var query: [[String]]
    var body: String
    var remoteAddress: String
    var contentType: String?
}

/// Echoes each request as JSON, except for a few paths: `/abort` throws ``HTTPAbort``, `/fail`
/// throws another error, `/slow` sleeps 5 ms first, `/close` asks to close the connection.
struct EchoHandler: HTTPHandler {
    struct Failure: Error {}

    /// Counts handler calls running at the same time; `maximum` is the most seen.
    final class Concurrency: @unchecked Sendable {
        private let lock = NSLock()
        private var current = 0
        private(set) var maximum = 0

        func enter() { lock.withLock { current += 1; maximum = max(maximum, current) } }
        func leave() { lock.withLock { current -= 1 } }
    }

    var concurrency = Concurrency()

    func respond(to request: HTTPRequest) throws -> HTTPResponse {
        concurrency.enter()
        defer { concurrency.leave() }
        switch request.path {
        case "/abort": throw HTTPAbort()
        case "/fail": throw Failure()
        case "/slow": Thread.sleep(forTimeInterval: 0.005)
        default: break
        }
        let echo = Echo(method: request.method, path: request.path, query: request.query.map { [$0.name, $0.value] },
                        body: String(decoding: request.body, as: UTF8.self), remoteAddress: request.remoteAddress,
                        contentType: request.headers["content-type"])
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        if request.path == "/close" { headers.add("Connection", "close") }
        return HTTPResponse(status: 200, headers: headers, body: Array(try JSONEncoder().encode(echo)))
    }
}

/// A response as a raw client read it.
struct RawResponse {
    var statusLine: String
    /// Header fields with lower-cased names, in order.
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var status: Int { Int(statusLine.split(separator: " ")[1]) ?? 0 }
    var bodyText: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }

    func echo() throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: Data(body))
    }
}

/// A blocking TCP client for writing exact bytes and reading exactly what arrives.
final class RawClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host` (IPv4 or IPv6 numeric) on `port`; every read waits at most 5 seconds.
    init(port: Int, host: String = "127.0.0.1") throws {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list?.pointee else {
            throw POSIXError(.EINVAL)
        }
        defer { freeaddrinfo(list) }
        descriptor = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard descriptor >= 0, connect(descriptor, info.ai_addr, info.ai_addrlen) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// Reads more bytes into the buffer: recv's result (0 at end of stream, -1 on error or timeout).
    private func fill() -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if count > 0 { buffer += chunk[..<count] }
        return count
    }

    /// The bytes up to and including the first empty line, or nil if the stream ended first.
    func readHead() -> String? {
        while true {
            if let end = buffer.firstRange(of: Array("\r\n\r\n".utf8)) {
                defer { buffer.removeFirst(end.upperBound) }
                return String(decoding: buffer[..<end.upperBound], as: UTF8.self)
            }
            guard fill() > 0 else { return nil }
        }
    }

    /// The next response (its body delimited by `Content-Length`), or nil if the stream ended first.
    func readResponse() -> RawResponse? {
        guard let head = readHead() else { return nil }
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let headers = lines.dropFirst().map { line in
            let colon = line.firstIndex(of: ":") ?? line.endIndex
            return (name: line[..<colon].lowercased(), value: line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
        }
        var response = RawResponse(statusLine: lines[0], headers: headers, body: [])
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
    func readToEnd() -> [UInt8]? {
        while true {
            let count = fill()
            if count == 0 || (count < 0 && errno == ECONNRESET) {
                defer { buffer.removeAll() }
                return buffer
            }
            if count < 0 { return nil }
        }
    }
}

extension XCTestCase {
    /// A started server for `handler`, stopped when the test ends.
    func startServer(_ handler: any HTTPHandler = EchoHandler(), host: String = "127.0.0.1", maxBodyBytes: Int = 1 << 20,
                     idleTimeout: Double = 30) throws -> HTTPServer {
        let server = HTTPServer(host: host, handler: handler, limits: HTTPServer.Limits(maxBodyBytes: maxBodyBytes, idleTimeout: idleTimeout))
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }
}
