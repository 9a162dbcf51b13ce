import Foundation
import PorterHTTP
@_exported import PorterTestSupport
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

        func enter() {
            lock.withLock {
                current += 1; maximum = max(maximum, current)
            }
        }
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
        let echo = Echo(
            method: request.method, path: request.path, query: request.query.map { [$0.name, $0.value] },
            body: String(decoding: request.body, as: UTF8.self), remoteAddress: request.remoteAddress,
            contentType: request.headers["content-type"])
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        if request.path == "/close" { headers.add("Connection", "close") }
        return HTTPResponse(status: 200, headers: headers, body: Array(try JSONEncoder().encode(echo)))
    }
}

extension RawResponse {
    func echo() throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: Data(body))
    }
}

extension XCTestCase {
    /// A started server for `handler`, stopped when the test ends.
    func startServer(
        _ handler: any HTTPHandler = EchoHandler(), host: String = "127.0.0.1", maxBodyBytes: Int = 1 << 20,
        idleTimeout: Double = 30
    ) throws -> HTTPServer {
        let server = HTTPServer(host: host, handler: handler, limits: HTTPServer.Limits(maxBodyBytes: maxBodyBytes, idleTimeout: idleTimeout))
        try server.start()
        addTeardownBlock { server.stop() }
        return server
    }
}
