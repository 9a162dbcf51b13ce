import Foundation
import Glibc
import ParseMirrorServer
import ParseModel
import PorterHTTP
import XCTest

/// A ``TestServer``'s API behind a real ``HTTPServer`` on a free 127.0.0.1 port, and a
/// blocking client that speaks HTTP/1.1 to it over its own socket.
final class LiveMirror: @unchecked Sendable {
    let mirror: TestServer
    let http: HTTPServer
    let port: Int

    init(limits: HTTPServer.Limits = HTTPServer.Limits(), _ configure: (inout ParseServerConfiguration) -> Void = { _ in }) throws {
        mirror = try TestServer(configure)
        http = HTTPServer(port: 0, handler: mirror.api, limits: limits)
        port = try http.start()
    }

    deinit { http.stop() }

    /// One request on a new connection; the reply as ``TestServer/Reply``, or nil when the
    /// connection closed (or `timeout` passed) before a whole response arrived.
    func send(_ method: String, _ path: String, _ body: String? = nil, auth: TestServer.Auth = .master,
              timeout: Double = 10) -> TestServer.Reply? {
        guard let client = try? LoopbackClient(port: port, timeout: timeout) else { return nil }
        var head = "\(method) /parse\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        switch auth {
        case .master: head += "X-Parse-Application-Id: \(TestServer.appId)\r\nX-Parse-Master-Key: \(TestServer.masterKey)\r\n"
        case .anonymous: head += "X-Parse-Application-Id: \(TestServer.appId)\r\n"
        case .session(let token): head += "X-Parse-Application-Id: \(TestServer.appId)\r\nX-Parse-Session-Token: \(token)\r\n"
        case .none: break
        }
        let bytes = Array((body ?? "").utf8)
        head += "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n\r\n"
        client.send(Array(head.utf8) + bytes)
        guard let (status, responseBody) = client.readResponse() else { return nil }
        return TestServer.Reply(status: status, json: (try? JSONParser.parse(bytes: responseBody)) ?? .null, headers: HTTPHeaders())
    }

    /// Seconds `work` took.
    static func seconds(_ work: () -> Void) -> Double {
        let start = ContinuousClock.now
        work()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

/// A blocking TCP client on 127.0.0.1 whose every read waits at most `timeout` seconds.
final class LoopbackClient {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int, timeout: Double) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else {
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let whole = timeout.rounded(.down)
        var value = timeval(tv_sec: Int(whole), tv_usec: Int((timeout - whole) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// Writes `bytes`; false when the server closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// The next response's status and body (delimited by `Content-Length`), or nil if the
    /// stream ended or the read timed out first.
    func readResponse() -> (status: Int, body: [UInt8])? {
        let separator = Array("\r\n\r\n".utf8)
        while buffer.firstRange(of: separator) == nil {
            guard fill() else { return nil }
        }
        guard let end = buffer.firstRange(of: separator) else { return nil }
        let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        buffer.removeFirst(end.upperBound)
        let lines = head.components(separatedBy: "\r\n")
        let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while buffer.count < length {
            guard fill() else { return nil }
        }
        defer { buffer.removeFirst(length) }
        return (status, Array(buffer[..<length]))
    }

    /// Whether the server closed the connection (end of stream or reset) before `timeout`.
    func isClosedByServer() -> Bool {
        while true {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno == ECONNRESET) { return true }
            if count < 0 { return false }
        }
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }
}
