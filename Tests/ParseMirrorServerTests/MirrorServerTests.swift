import Foundation
import ParseMirrorServer
import ParseModel
import PorterHTTP
import PorterPipeline
import PorterSQLite
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``MirrorServer`` as an app's test suite uses it: started and stopped with async calls, on a
/// free port, answering URLSession requests, and leaving the mirror file closed behind it.
final class MirrorServerTests: XCTestCase {
    private let configuration = ParseServerConfiguration(applicationId: "fixtureApp", masterKey: "fixture-master-key")

    func testServesTheObjectsImportedIntoTheMirrorOnAFreePort() async throws {
        let mirror = try temporaryFolder("fixture").appendingPathComponent("library.sqlite").path
        let dataset = PackageFolders.fixtures.appendingPathComponent("library")
        _ = try await Importer(manifest: try ManifestLoader.load(dataset.path)).run(into: SQLiteMirror(path: mirror))

        let server = try await MirrorServer.start(mirror: mirror, configuration: configuration)
        XCTAssertGreaterThan(server.port, 0)
        XCTAssertEqual(server.url.absoluteString, "http://127.0.0.1:\(server.port)/parse")
        let (status, body) = try await get(server.url, "classes/Genre?limit=100", masterKey: nil)
        await server.stop()

        XCTAssertEqual(status, 200)
        guard case .array(let results)? = body["results"] else { return XCTFail("no results: \(body.serialized())") }
        let names = results.compactMap { item -> String? in if case .string(let name)? = item["name"] { name } else { nil } }
        let csv = try String(contentsOf: dataset.appendingPathComponent("genres.csv"), encoding: .utf8)
        let expected = csv.split(separator: "\n").dropFirst().map(String.init)
        XCTAssertEqual(names.sorted(), expected.sorted(), "every Genre of genres.csv, as imported")
        XCTAssertTrue(results.allSatisfy { $0["objectId"] != nil && $0["createdAt"] != nil })
    }

    func testPathsThatAreNotAFileAreRefusedAtStart() async throws {
        let folder = try temporaryFolder("fixture")
        let before = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath)
        for path in [":memory:", "", "file::memory:", "file:\(folder.path)/uri.sqlite?mode=memory&cache=shared"] {
            do {
                let server = try await MirrorServer.start(mirror: path, configuration: configuration)
                await server.stop()
                XCTFail("\(path) was served")
            } catch let error as PorterError {
                XCTAssertEqual(error.cause, .invalidRequest)
                XCTAssertTrue(error.message.hasPrefix("\"\(path)\" is not a mirror file"), error.message)
                XCTAssertTrue(error.message.contains("give the path of a file"), error.message)
                XCTAssertFalse(error.message.contains("--"), "no command-line wording: \(error.message)")
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing was created")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: FileManager.default.currentDirectoryPath), before)
    }

    /// A mirror another process is writing in rollback-journal mode (a second `migrate` runner
    /// that created the file a moment before) is opened once that write ends: SQLite refuses the
    /// switch to WAL at once while the write lock is held, without waiting.
    func testAMirrorUnderAnotherWriteIsOpenedOnceTheWriteEnds() throws {
        let path = try temporaryFolder("fixture").appendingPathComponent("app.sqlite").path
        // Used by one thread at a time: here, then by the closure once this thread waits.
        nonisolated(unsafe) let other = try SQLiteDatabase(path: path, create: true)
        try other.execute("BEGIN IMMEDIATE")
        try other.execute("CREATE TABLE Earlier (x)")
        let committed = expectation(description: "the other write ends")
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            try? other.execute("COMMIT")
            committed.fulfill()
        }
        let api = try ParseMirrorAPI(mirrorPath: path, configuration: configuration)
        defer { api.close() }
        wait(for: [committed], timeout: 5)
        let mirror = try SQLiteDatabase(path: path, create: false)
        defer { mirror.close() }
        XCTAssertEqual(try mirror.rows("PRAGMA journal_mode"), [["wal"]])
        XCTAssertEqual(try mirror.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"), [["Earlier"], ["_PorterMigrations"], ["_SCHEMA"]])
        other.close()
    }

    func testStopClosesTheMirrorLeavingNoWriteAheadLog() async throws {
        let mirror = try temporaryFolder("fixture").appendingPathComponent("app.sqlite").path
        let server = try await MirrorServer.start(mirror: mirror, configuration: configuration)
        let (created, _) = try await send(server.url, "POST", "classes/Note", body: #"{"text":"kept"}"#)
        XCTAssertEqual(created, 201)
        _ = try await get(server.url, "classes/Note", masterKey: nil)
        XCTAssertTrue(FileManager.default.fileExists(atPath: mirror + "-wal"), "a running server has the log open")

        await server.stop()
        await server.stop()
        for suffix in ["-wal", "-shm"] { XCTAssertFalse(FileManager.default.fileExists(atPath: mirror + suffix), "\(suffix) left") }
        XCTAssertThrowsError(try RawClient(port: server.port), "no longer listening")
        let late = server.api.respond(
            to: HTTPRequest(
                method: "GET", path: "/parse/classes/Note",
                headers: HTTPHeaders([("X-Parse-Application-Id", "fixtureApp")])))
        XCTAssertEqual(late.status, 500, "a closed mirror answers nothing")
        for suffix in ["-wal", "-shm"] { XCTAssertFalse(FileManager.default.fileExists(atPath: mirror + suffix), "\(suffix) reopened") }

        let database = try SQLiteDatabase(path: mirror, create: false)
        defer { database.close() }
        XCTAssertEqual(try database.rows("SELECT text FROM Note"), [["kept"]], "the write was checkpointed into the file")
    }

    func testTwoServersAtOnceOnTheirOwnPortsAndMirrors() async throws {
        let folder = try temporaryFolder("fixture")
        let first = try await MirrorServer.start(mirror: folder.appendingPathComponent("first.sqlite").path, configuration: configuration)
        let second = try await MirrorServer.start(mirror: folder.appendingPathComponent("second.sqlite").path, configuration: configuration)
        XCTAssertNotEqual(first.port, second.port)
        let createdInFirst = try await send(first.url, "POST", "classes/Note", body: #"{"text":"first"}"#).status
        let createdInSecond = try await send(second.url, "POST", "classes/Note", body: #"{"text":"second"}"#).status
        XCTAssertEqual([createdInFirst, createdInSecond], [201, 201])
        let inFirst = try await get(first.url, "classes/Note", masterKey: nil).body
        let inSecond = try await get(second.url, "classes/Note", masterKey: nil).body
        await first.stop()
        let afterFirstStopped = try await get(second.url, "classes/Note", masterKey: nil)
        XCTAssertEqual(afterFirstStopped.body["results"]?[0]?["text"], .string("second"), "the other server still answers")
        await second.stop()
        XCTAssertEqual(inFirst["results"]?[0]?["text"], .string("first"))
        XCTAssertEqual(inSecond["results"]?[0]?["text"], .string("second"))
        XCTAssertEqual(inFirst["results"]?[1], nil)
        XCTAssertEqual(inSecond["results"]?[1], nil)
    }

    func testStopWithConnectionsStillOpenReturnsPromptly() async throws {
        let mirror = try temporaryFolder("fixture").appendingPathComponent("app.sqlite").path
        let server = try await MirrorServer.start(mirror: mirror, configuration: configuration)
        // One connection kept alive after an answered request, one in the middle of a request head.
        let idle = try RawClient(port: server.port, timeout: 5)
        idle.send("GET /parse/health HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(idle.readResponse()?.bodyText, #"{"status":"ok"}"#)
        let partial = try RawClient(port: server.port, timeout: 5)
        partial.send("POST /parse/classes/Note HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"text\":")
        try await Task.sleep(for: .milliseconds(100))

        let started = ContinuousClock.now
        await server.stop()
        let elapsed = ContinuousClock.now - started

        XCTAssertLessThan(elapsed, .seconds(2), "stop cuts open connections instead of waiting for their timeouts")
        XCTAssertNotNil(idle.readToEnd(), "the kept-alive connection was closed")
        XCTAssertNotNil(partial.readToEnd(), "the half-sent request's connection was closed")
        for suffix in ["-wal", "-shm"] { XCTAssertFalse(FileManager.default.fileExists(atPath: mirror + suffix), "\(suffix) left") }
        let database = try SQLiteDatabase(path: mirror, create: false)
        defer { database.close() }
        XCTAssertEqual(try database.rows("SELECT count(*) FROM sqlite_master WHERE name = 'Note'"), [["0"]], "nothing of the partial body was written")
    }

    // MARK: Requests, as an app would send them

    private func get(_ base: URL, _ path: String, masterKey: String?) async throws -> (status: Int, body: JSONValue) {
        try await send(base, "GET", path, masterKey: masterKey)
    }

    private func send(
        _ base: URL, _ method: String, _ path: String, body: String? = nil,
        masterKey: String? = "fixture-master-key"
    ) async throws -> (status: Int, body: JSONValue) {
        var request = URLRequest(url: try XCTUnwrap(URL(string: base.absoluteString + "/" + path)))
        request.httpMethod = method
        request.setValue("fixtureApp", forHTTPHeaderField: "X-Parse-Application-Id")
        if let masterKey { request.setValue(masterKey, forHTTPHeaderField: "X-Parse-Master-Key") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONParser.parse(bytes: Array(data))) ?? .null)
    }
}
