import Foundation
import ParseModel
import PorterHTTP
import XCTest

/// One client cannot hold the server: slow or partial requests end at the request deadline,
/// connections beyond the cap are refused, batches are capped, reads and password hashing run
/// outside the write lock, and query results are capped per request. Over HTTP on 127.0.0.1.
final class HostileLoadTests: XCTestCase {
    func testSlowClientIsCutOffAtTheRequestDeadlineWhileOthersAreAnswered() throws {
        let live = try LiveMirror(limits: HTTPServer.Limits(idleTimeout: 30, requestTimeout: 1))
        nonisolated(unsafe) let slow = try LoopbackClient(port: live.port, timeout: 5)
        slow.send("POST /parse/classes/Book HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n{\"title\":\"")
        let started = ContinuousClock.now
        nonisolated(unsafe) var answer: RawResponse?
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for _ in 0..<20 where slow.send("a") { Thread.sleep(forTimeInterval: 0.1) }  // one byte at a time, never finishing
            answer = slow.readResponse()
        }
        Thread.sleep(forTimeInterval: 0.2)
        let normalSeconds = LiveMirror.seconds { XCTAssertEqual(live.send("POST", "/classes/Book", #"{"title":"Emma"}"#)?.status, 201) }
        group.wait()
        let elapsed = ContinuousClock.now - started
        XCTAssertEqual(answer?.status, 408, "the partial request is answered 408 at its deadline")
        XCTAssertLessThan(elapsed, .seconds(4))
        XCTAssertLessThan(normalSeconds, 1, "another client is answered meanwhile")
        XCTAssertTrue(slow.isClosedByServer())
        XCTAssertEqual(try live.mirror.rows("SELECT title FROM Book"), [["Emma"]], "nothing of the partial body was written")
    }

    /// At the cap, a connection still sending its request is cut only once it has taken
    /// `idleTimeoutAtCapacity` (1 s): before, the next connection is refused with 503; after,
    /// the slowest makes room for it.
    func testConnectionsBeyondTheCapAreRefusedUntilOneHasTakenTooLong() throws {
        let live = try LiveMirror(limits: HTTPServer.Limits(requestTimeout: 30, maxConnections: 4))
        let partial = try (0..<4).map { _ in try LoopbackClient(port: live.port, timeout: 5) }
        for client in partial { client.send("GET /parse/health HTTP/1.1\r\nHost: x\r\n") }
        Thread.sleep(forTimeInterval: 0.2)
        let refused = try LoopbackClient(port: live.port, timeout: 5)
        let answer = refused.readResponse()
        XCTAssertEqual(answer?.status, 503)
        XCTAssertEqual(answer.map { String(decoding: $0.body, as: UTF8.self) }, #"{"error":"too many connections: try again later"}"#)
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertEqual(live.send("GET", "/classes/Book")?.status, 200, "a connection that took over 1 s made room")
        XCTAssertEqual(partial.filter(\.isClosedNow).count, 1, "one, the slowest, was closed")
    }

    /// At the cap, a connection that has sent nothing (or is idle between requests) makes room
    /// for a new one at once: open sockets alone cannot keep clients out.
    func testIdleConnectionsMakeRoomAtTheCap() throws {
        let live = try LiveMirror(limits: HTTPServer.Limits(requestTimeout: 30, maxConnections: 4))
        let idle = try (0..<4).map { _ -> LoopbackClient in
            Thread.sleep(forTimeInterval: 0.05)
            return try LoopbackClient(port: live.port, timeout: 5)
        }
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertEqual(live.send("GET", "/classes/Book")?.status, 200)
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(idle.map(\.isClosedNow), [true, false, false, false], "the longest idle made room")
    }

    func testBatchOverTheLimitIsRefusedBeforeAnythingRuns() throws {
        let live = try LiveMirror()
        let creates = (0..<101).map { #"{"method":"POST","path":"/parse/classes/Book","body":{"n":\#($0)}}"# }
        let reply = try XCTUnwrap(live.send("POST", "/batch", #"{"requests":[\#(creates.joined(separator: ","))]}"#))
        XCTAssertParseError(
            reply, status: 400, code: .invalidJSON,
            message: "Batch request contains 101 sub-requests, which exceeds the limit of 100.")
        XCTAssertFalse(try live.mirror.tableExists("Book"), "nothing ran")
        let fits = try XCTUnwrap(live.send("POST", "/batch", #"{"requests":[\#(creates.prefix(100).joined(separator: ","))]}"#))
        XCTAssertEqual(fits.status, 200)
        XCTAssertEqual(try live.mirror.rows("SELECT count(*) FROM Book"), [["100"]])
    }

    /// 20 log-ins in a batch hash bcrypt for seconds; a write from another client does not wait for them.
    func testBatchedLogInsDoNotHoldTheWriteLock() throws {
        let live = try LiveMirror()
        _ = live.mirror.signUp("reader", password: "pw")
        let logins = Array(repeating: #"{"method":"POST","path":"/parse/login","body":{"username":"reader","password":"pw"}}"#, count: 20)
        let group = DispatchGroup()
        nonisolated(unsafe) var batch: TestServer.Reply?
        nonisolated(unsafe) var batchSeconds = 0.0
        DispatchQueue.global().async(group: group) {
            batchSeconds = LiveMirror.seconds { batch = live.send("POST", "/batch", #"{"requests":[\#(logins.joined(separator: ","))]}"#, timeout: 60) }
        }
        Thread.sleep(forTimeInterval: 0.3)
        var writeSeconds = 0.0
        for i in 0..<3 {
            writeSeconds = max(writeSeconds, LiveMirror.seconds { XCTAssertEqual(live.send("POST", "/classes/Note", #"{"i":\#(i)}"#)?.status, 201) })
        }
        group.wait()
        guard case .array(let items)? = batch?.json else { return XCTFail("no batch answer") }
        XCTAssertEqual(items.count, 20)
        XCTAssertEqual(Set(items.map { $0["success"]?["sessionToken"]?.text?.isEmpty == false }), [true], "every log-in succeeded")
        XCTAssertGreaterThan(batchSeconds, writeSeconds, "the batch was still hashing")
        XCTAssertLessThan(writeSeconds, 0.5, "writes beside the log-in batch are answered at once")
        XCTAssertEqual(try live.mirror.rows("SELECT count(*) FROM _Session"), [["21"]])
    }

    func testBatchedSignUpsAndQueriesKeepTheirResultsInOrder() throws {
        let live = try LiveMirror()
        let reply = try XCTUnwrap(
            live.send(
                "POST", "/batch",
                """
                {"requests":[{"method":"POST","path":"/parse/users","body":{"username":"ann","password":"a1"}},
                             {"method":"GET","path":"/parse/classes/_User","body":{"where":{"username":"ann"}}},
                             {"method":"POST","path":"/parse/classes/Book","body":{"title":"Dune"}},
                             {"method":"POST","path":"/parse/login","body":{"username":"ann","password":"a1"}},
                             {"method":"PUT","path":"/parse/classes/Book/missing","body":{"title":"x"}}]}
                """))
        guard case .array(let items) = reply.json, items.count == 5 else { return XCTFail(reply.json.serialized()) }
        XCTAssertNotNil(items[0]["success"]?["sessionToken"])
        XCTAssertEqual(items[1]["success"]?["results"].map { if case .array(let r) = $0 { r.count } else { -1 } }, 1, "the query sees the sign-up before it")
        XCTAssertNotNil(items[2]["success"]?["objectId"])
        XCTAssertNotNil(items[3]["success"]?["sessionToken"], "the password hashed before the lock logs in")
        XCTAssertEqual(ParseErrorCode(errorBody: items[4]["error"]), .objectNotFound)
    }

    func testResultsBeyondTheRequestBudgetAreRefused() throws {
        let live = try LiveMirror { $0.limits.resultBytes = 200_000 }
        let page = String(repeating: "x", count: 10_000)
        let creates = (0..<40).map { _ in #"{"method":"POST","path":"/parse/classes/Book","body":{"text":"\#(page)"}}"# }
        XCTAssertEqual(live.send("POST", "/batch", #"{"requests":[\#(creates.joined(separator: ","))]}"#)?.status, 200)
        XCTAssertEqual(live.send("GET", "/classes/Book?limit=15")?.results.count, 15, "150 kB fits")
        let tooMuch = try XCTUnwrap(live.send("GET", "/classes/Book?limit=40"))
        XCTAssertParseError(tooMuch, status: 400, code: .invalidQuery)
        XCTAssertTrue(tooMuch.error?.contains("limit") ?? false)
        let gets = Array(repeating: #"{"method":"GET","path":"/parse/classes/Book?limit=15"}"#, count: 3)
        let batch = try XCTUnwrap(live.send("POST", "/batch", #"{"requests":[\#(gets.joined(separator: ","))]}"#))
        guard case .array(let items) = batch.json else { return XCTFail(batch.json.serialized()) }
        XCTAssertNotNil(items[0]["success"], "the first query fits the batch's budget")
        XCTAssertEqual(ParseErrorCode(errorBody: items[2]["error"]), .invalidQuery, "the batch's queries share one budget")
        XCTAssertEqual(live.send("GET", "/classes/Book?limit=15&keys=objectId")?.results.count, 15, "a new request has a new budget")
    }
}

extension LoopbackClient {
    /// Whether the server has closed the connection, without waiting.
    var isClosedNow: Bool {
        var byte: UInt8 = 0
        let count = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || count < 0 && errno == ECONNRESET
    }
}
