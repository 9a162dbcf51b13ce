import Foundation
import ParseMirrorServer
import ParseModel
import PorterHTTP
import PorterPipeline
import PorterREST
import PorterTestSupport
import Synchronization
import XCTest

/// The client's async API against real servers on a free loopback port: a served mirror, and
/// handlers that answer slowly or not at all, to cancel requests in flight and retries.
final class ParseRESTClientAsyncTests: XCTestCase {
    private var directory: URL!
    private var mirror: ParseMirrorAPI!

    override func setUpWithError() throws {
        directory = try temporaryFolder("porter-rest-async")
        mirror = try ParseMirrorAPI(
            mirrorPath: directory.appendingPathComponent("m.sqlite").path,
            configuration: ParseServerConfiguration(applicationId: "app", masterKey: "mk"))
    }

    private func client(_ port: Int, retry: RetryPolicy = RetryPolicy(attempts: 2, initialDelay: 0.01, maximumDelay: 0.02)) throws -> ParseRESTClient {
        ParseRESTClient(
            address: try ParseServerAddress(url: "http://127.0.0.1:\(port)/parse", applicationId: "app", masterKey: "mk", restAPIKey: nil),
            timeout: 30, retry: retry)
    }

    /// One client shared by twenty tasks at once: every object arrives, and the tallies count every request.
    func testConcurrentTasksShareOneClientAndEveryObjectArrives() async throws {
        let server = HTTPServer(port: 0, handler: mirror)
        let client = try client(try server.start())
        defer { server.stop() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for number in 0..<20 {
                group.addTask {
                    let body = JSONValue.object(JSONObject(["title": .string("Book \(number)"), "n": .integer(Int64(number))]))
                    let created = try await client.send("POST", "/classes/Book", body: body, phase: "create")
                    XCTAssertNotNil(created["objectId"]?.stringValue)
                }
            }
            try await group.waitForAll()
        }
        let stored = try await client.send("GET", "/classes/Book", query: [("order", "n"), ("limit", "100")], phase: "read")
        guard case .array(let books)? = stored["results"] else { return XCTFail("no results: \(stored)") }
        XCTAssertEqual(books.map { $0["n"] }, (0..<20).map { JSONValue.integer(Int64($0)) })
        XCTAssertEqual(books.map { $0["title"] }, (0..<20).map { JSONValue.string("Book \($0)") })
        XCTAssertEqual(
            client.requestTallies,
            [
                RequestTally(phase: "create", requests: 20, operations: 20),
                RequestTally(phase: "read", requests: 1, operations: 1),
            ])
    }

    /// Cancelling a request just as its answer comes in never hangs the task awaiting it.
    /// Foundation's own `data(for:)` could: its cancellation handler waited for the session's
    /// queue while that queue waited to resume the task (a migration's lock wait hung CI so).
    /// The cancel lands before, during and after the answers of a few hundred requests.
    func testCancellingARequestAsItsAnswerComesInNeverHangs() async throws {
        let server = HTTPServer(port: 0, handler: mirror)
        let client = try client(try server.start())
        defer { server.stop() }
        let rounds = 600
        let finished = Mutex(0)
        let work = Task.detached {
            for round in 0..<rounds {
                let request = Task { try await client.send("GET", "/schemas", phase: "read") }
                let until = DispatchTime.now().uptimeNanoseconds + UInt64(round % 60) * 20_000
                while DispatchTime.now().uptimeNanoseconds < until {}
                request.cancel()
                _ = await request.result
                finished.withLock { $0 += 1 }
            }
        }
        let deadline = Date().addingTimeInterval(120)
        while finished.withLock({ $0 }) < rounds && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let done = finished.withLock { $0 }
        XCTAssertEqual(done, rounds, "a cancelled request hung after \(done) rounds")
        if done == rounds { await work.value }
    }

    /// A refusal is thrown as the server said it, with Parse's error code.
    func testARefusalCarriesParsesCode() async throws {
        let server = HTTPServer(port: 0, handler: mirror)
        let client = try client(try server.start())
        defer { server.stop() }
        do {
            _ = try await client.send("GET", "/classes/Book/nothere", phase: "read")
            XCTFail("a missing object was found")
        } catch {
            guard case .refused(let answer) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(answer, ParseErrorAnswer(status: 404, code: .objectNotFound, message: "Object not found."))
        }
    }

    /// The server has the request and takes its time: cancelling the task ends the wait at once.
    func testCancellingTheTaskEndsTheWaitForTheRequestInFlight() async throws {
        let slow = SlowHandler(delay: 3, inner: mirror)
        let server = HTTPServer(port: 0, handler: slow)
        let client = try client(try server.start())
        defer { server.stop() }
        let request = Task { try await client.send("GET", "/classes/Book", phase: "slow") }
        try await slow.waitForArrival()
        let cancelled = Date()
        request.cancel()
        do {
            let answer = try await request.value
            XCTFail("the request was answered: \(answer)")
        } catch {
            guard case .cancelled? = error as? ParseRESTFailure else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1, "the answer takes 3 s; the cancellation must not wait for it")
        XCTAssertEqual(slow.arrivals, 1, "a cancelled request is not sent again")
    }

    /// The server keeps answering 503: a cancellation during the wait before the next attempt ends it.
    func testCancellingTheTaskEndsTheWaitBetweenRetries() async throws {
        let busy = SlowHandler(delay: 0, inner: Unavailable())
        let server = HTTPServer(port: 0, handler: busy)
        let client = try client(try server.start(), retry: RetryPolicy(attempts: 5, initialDelay: 20, maximumDelay: 20))
        defer { server.stop() }
        let request = Task { try await client.send("GET", "/classes/Book", phase: "busy") }
        try await busy.waitForArrival()
        try await Task.sleep(for: .milliseconds(100))
        let cancelled = Date()
        request.cancel()
        do {
            _ = try await request.value
            XCTFail("a server answering 503 gave an answer")
        } catch {
            guard case .cancelled? = error as? ParseRESTFailure else { return XCTFail("\(error)") }
        }
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1, "the next attempt was 10 s or more away")
        XCTAssertEqual(busy.arrivals, 1)
    }
}

/// Counts the requests that arrive, then answers them as `inner` does after `delay` seconds.
private final class SlowHandler: HTTPHandler {
    let delay: Double
    let inner: any HTTPHandler
    private let arrived = Mutex(0)

    init(delay: Double, inner: any HTTPHandler) {
        self.delay = delay
        self.inner = inner
    }

    var arrivals: Int { arrived.withLock { $0 } }

    func respond(to request: HTTPRequest) throws -> HTTPResponse {
        arrived.withLock { $0 += 1 }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        return try inner.respond(to: request)
    }

    /// Returns once a request has arrived (within 5 s).
    func waitForArrival() async throws {
        for _ in 0..<500 where arrivals == 0 { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertGreaterThan(arrivals, 0, "no request arrived")
    }
}

/// A server that is overloaded: every request gets HTTP 503.
private struct Unavailable: HTTPHandler {
    func respond(to request: HTTPRequest) throws -> HTTPResponse {
        HTTPResponse(status: 503, body: Array(#"{"code":1,"error":"overloaded"}"#.utf8))
    }
}
