import Foundation
import ParseMirrorServer
import ParseModel
import PorterPipeline
@_exported import PorterTestSupport
import XCTest

@testable import PorterREST

final class ParseServerAddressTests: XCTestCase {
    func testMountPathAndRedaction() throws {
        let address = try ParseServerAddress(url: "https://user:secret@parse.example.com/parse/?x=1", applicationId: "app", masterKey: "mk", restAPIKey: nil)
        XCTAssertEqual(address.mountPath, "/parse")
        XCTAssertFalse(address.description.contains("secret"))
        XCTAssertEqual(try ParseServerAddress(url: "https://parseapi.back4app.com", applicationId: "a", masterKey: nil, restAPIKey: "r").mountPath, "")
    }

    func testMasterKeyOverPlainHTTPOnlyToThisMachine() throws {
        XCTAssertNoThrow(try ParseServerAddress(url: "http://127.0.0.1:1337/parse", applicationId: "a", masterKey: "m", restAPIKey: nil))
        XCTAssertNoThrow(try ParseServerAddress(url: "http://localhost/parse", applicationId: "a", masterKey: "m", restAPIKey: nil))
        XCTAssertThrowsError(try ParseServerAddress(url: "http://10.0.0.5/parse", applicationId: "a", masterKey: "m", restAPIKey: nil)) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .invalidRequest)
            XCTAssertFalse((error as? PorterError)?.message.contains("\"m\"") ?? true)
        }
        XCTAssertNoThrow(try ParseServerAddress(url: "http://10.0.0.5/parse", applicationId: "a", masterKey: "m", restAPIKey: nil, allowInsecureHTTP: true))
        XCTAssertNoThrow(try ParseServerAddress(url: "http://10.0.0.5/parse", applicationId: "a", masterKey: nil, restAPIKey: "r"))
    }

    func testMissingIdOrKeysAndBadURLsAreUsageErrors() {
        for (url, app, master, rest) in [
            ("ftp://x/parse", "a", "m", nil), ("http://127.0.0.1/parse", nil, "m", nil),
            ("http://127.0.0.1/parse", "a", nil, nil) as (String, String?, String?, String?),
        ] {
            XCTAssertThrowsError(try ParseServerAddress(url: url, applicationId: app, masterKey: master, restAPIKey: rest)) { error in
                XCTAssertEqual((error as? PorterError)?.cause, .invalidRequest)
            }
        }
    }
}

final class RetryAndDigestTests: XCTestCase {
    func testBackoffGrowsIsCappedAndHonoursRetryAfter() {
        let policy = RetryPolicy(attempts: 6, initialDelay: 0.25, maximumDelay: 2)
        for _ in 0..<50 {
            XCTAssert((0.125...0.25).contains(policy.delay(after: 1)))
            XCTAssert((0.5...1.0).contains(policy.delay(after: 3)))
            XCTAssert((1.0...2.0).contains(policy.delay(after: 9)))
            XCTAssertEqual(policy.delay(after: 1, retryAfter: 5), 5)
        }
        XCTAssertTrue(RetryPolicy.isRetryable(status: 503))
        XCTAssertTrue(RetryPolicy.isRetryable(status: 429))
        XCTAssertFalse(RetryPolicy.isRetryable(status: 400))
    }

    func testDigestsTreatValuesAsParseStoresThem() {
        XCTAssertEqual(FieldDigest.of(.double(2)), FieldDigest.of(.integer(2)))
        XCTAssertNotEqual(FieldDigest.of(.double(2.5)), FieldDigest.of(.integer(2)))
        XCTAssertEqual(FieldDigest.of(.file(ParseFile(name: "a.png", url: "http://x/a.png"))), FieldDigest.of(.file(ParseFile(name: "a.png"))))
        XCTAssertEqual(FieldDigest.of(.null), 0)
        XCTAssertNotEqual(FieldDigest.of(.string("")), 0)
        XCTAssertEqual(FieldDigest.of(.object(["a": .integer(1), "b": .double(3)])), FieldDigest.of(.object(["b": .integer(3), "a": .double(1)])))
    }

    func testRelationOperations() {
        let add = [PointerRef(className: "Author", objectId: "a1")], remove = [PointerRef(className: "Author", objectId: "a2")]
        XCTAssertNil(RESTSink.relationOperation(add: [], remove: []))
        XCTAssertEqual(RESTSink.relationOperation(add: add, remove: [])?["__op"], .string("AddRelation"))
        XCTAssertEqual(RESTSink.relationOperation(add: [], remove: remove)?["__op"], .string("RemoveRelation"))
        let both = RESTSink.relationOperation(add: add, remove: remove)
        XCTAssertEqual(both?["__op"], .string("Batch"))
        guard case .array(let ops)? = both?["ops"] else { return XCTFail("no ops") }
        XCTAssertEqual(ops.map { $0["__op"] }, [.string("AddRelation"), .string("RemoveRelation")])
    }
}

/// The batch sender against a real served mirror on a free loopback port.
final class BatchSenderTests: XCTestCase {
    private var server: ServedMirror!
    private var client: ParseRESTClient!

    override func setUpWithError() throws {
        server = try ServedMirror(in: self, configuration: ParseServerConfiguration(applicationId: "app", masterKey: "mk"))
        client = ParseRESTClient(
            address: try ParseServerAddress(url: server.url, applicationId: "app", masterKey: "mk", restAPIKey: nil),
            timeout: 5, retry: RetryPolicy(attempts: 2, initialDelay: 0.01, maximumDelay: 0.02))
    }

    func testResultsComeInOrderWithPerItemErrors() throws {
        let sender = BatchSender(client: client, batchSize: 3, concurrency: 2)
        var operations = (0..<10).map { BatchOperation(method: "POST", path: "/classes/Item", body: JSONObject(["n": .integer(Int64($0))])) }
        operations[4] = BatchOperation(method: "POST", path: "/classes/Item", body: JSONObject(["n": .string("not a number")]))
        let results = try sender.send(operations, phase: "test")
        XCTAssertEqual(results.count, 10)
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let json): XCTAssertNotEqual(index, 4); XCTAssertNotNil(json["objectId"])
            case .failure(let error): XCTAssertEqual(index, 4); XCTAssertEqual(error.code, .incorrectType)
            }
        }
        let stored = try client.sendBlocking("GET", "/classes/Item", query: [("order", "n"), ("limit", "100")], phase: "check")
        guard case .array(let items)? = stored["results"] else { return XCTFail("no results") }
        XCTAssertEqual(items.map { $0["n"] }, [0, 1, 2, 3, 5, 6, 7, 8, 9].map { JSONValue.integer(Int64($0)) })
        // 10 operations in batches of 3: 4 requests.
        XCTAssertEqual(client.requestTallies.first { $0.phase == "test" }, RequestTally(phase: "test", requests: 4, operations: 10))
    }

    func testBodiesOverTheLimitAreSplit() throws {
        var sender = BatchSender(client: client, batchSize: 50, concurrency: 1)
        sender.maximumBodyBytes = 2_000
        let text = String(repeating: "x", count: 300)
        let operations = (0..<20).map {
            BatchOperation(method: "POST", path: "/classes/Note", body: JSONObject(["text": .string(text), "n": .integer(Int64($0))]))
        }
        let results = try sender.send(operations, phase: "split")
        XCTAssertEqual(results.filter { if case .success = $0 { true } else { false } }.count, 20)
        let requests = client.requestTallies.first { $0.phase == "split" }?.requests ?? 0
        XCTAssertGreaterThanOrEqual(requests, 4, "20 bodies of 300+ bytes cannot go in one 2 kB request")
    }

    func testAServerThatIsGoneIsReportedAfterTheRetries() throws {
        // The client has had an answer: a refused connection now is a server away for a while.
        _ = try client.sendBlocking("GET", "/classes/Item", phase: "before")
        server.stop()
        let sender = BatchSender(client: client, batchSize: 5, concurrency: 1)
        XCTAssertThrowsError(try sender.send([BatchOperation(method: "POST", path: "/classes/Item", body: JSONObject())], phase: "gone")) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .target)
            XCTAssertTrue((error as? PorterError)?.message.contains("gave up after 2 attempts") ?? false, "\(error)")
        }
    }

    /// A connection refused before any answer: nothing listens there, and no retry changes that.
    func testNothingListeningFailsAtOnce() throws {
        server.stop()
        let started = Date()
        let sender = BatchSender(client: client, batchSize: 5, concurrency: 1)
        XCTAssertThrowsError(try sender.send([BatchOperation(method: "POST", path: "/classes/Item", body: JSONObject())], phase: "never")) { error in
            XCTAssertEqual(
                (error as? PorterError)?.message,
                "\(client.address): connection refused: nothing is listening there (is the server running, and are the host and port right?)")
        }
        XCTAssertEqual(client.requestTallies.first { $0.phase == "never" }?.requests, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5)
    }
}
