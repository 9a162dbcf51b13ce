import Foundation
import ParseMirrorServer
import ParseModel
import PorterHTTP
import PorterPipeline
import PorterSQLite
import PorterTestSupport
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The API behind a real ``HTTPServer``, and the `parse-porter serve` command.
final class HTTPTests: XCTestCase {
    private static func send(_ method: String, _ url: String, body: String? = nil, master: Bool = true) throws -> (
        status: Int, json: JSONValue, headers: [AnyHashable: Any]
    ) {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.httpMethod = method
        request.setValue(TestServer.appId, forHTTPHeaderField: "X-Parse-Application-Id")
        if master { request.setValue(TestServer.masterKey, forHTTPHeaderField: "X-Parse-Master-Key") }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body.map { Data($0.utf8) }
        let (data, response) = try URLSession.shared.blockingData(for: request)
        return (response.statusCode, (try? JSONParser.parse(bytes: Array(data))) ?? .null, response.allHeaderFields)
    }

    func testConcurrentWritersAllLand() throws {
        let server = try TestServer()
        let http = HTTPServer(port: 0, handler: server.api)
        let port = try http.start()
        defer { http.stop() }
        let url = "http://127.0.0.1:\(port)/parse"
        XCTAssertEqual(try Self.send("POST", "\(url)/classes/Counter", body: #"{"n":0}"#).status, 201)
        let threads = 8, perThread = 25
        let failures = NSLock()
        nonisolated(unsafe) var problems: [String] = []
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<perThread {
                do {
                    let reply = try Self.send("POST", "\(url)/classes/Book", body: #"{"thread":\#(thread),"i":\#(i),"field\#(thread)":"x"}"#)
                    if reply.status != 201 { failures.withLock { problems.append(reply.json.serialized()) } }
                    let query = try Self.send("GET", "\(url)/classes/Book?limit=1&where=%7B%7D", master: false)
                    if query.status != 200 { failures.withLock { problems.append(query.json.serialized()) } }
                } catch {
                    failures.withLock { problems.append("\(error)") }
                }
            }
        }
        XCTAssertEqual(problems, [])
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["\(threads * perThread)"]])
        let fields = try XCTUnwrap(server.send("GET", "/schemas/Book").json["fields"])
        for thread in 0..<threads { XCTAssertEqual(fields["field\(thread)"], .parse(#"{"type":"String"}"#), "every thread's new field was added once") }
    }

    func testHeadersOverHTTP() throws {
        let server = try TestServer()
        let http = HTTPServer(port: 0, handler: server.api)
        let port = try http.start()
        defer { http.stop() }
        let created = try Self.send("POST", "http://127.0.0.1:\(port)/parse/classes/Book", body: #"{"title":"Emma"}"#)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(
            created.headers["Location"] as? String,
            "http://127.0.0.1:\(port)/parse/classes/Book/\(created.json["objectId"]?.text ?? "")")
        XCTAssertEqual(created.headers["Cache-Control"] as? String, "no-store")
        XCTAssertEqual(created.headers["Content-Type"] as? String, "application/json; charset=utf-8")
    }

    // MARK: parse-porter serve

    /// The `parse-porter` beside the test bundle (`swift test` builds it).
    private static let binary: URL? = {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("parse-porter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    private func serve(_ arguments: [String], environment: [String: String] = [:]) throws -> (process: Process, stdout: Pipe, stderr: Pipe) {
        let process = Process()
        process.executableURL = try XCTUnwrap(Self.binary, "parse-porter is not built")
        process.arguments = ["serve"] + arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PARSE_") }
        env.merge(environment) { $1 }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    private func firstLine(of pipe: Pipe) -> String {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }

    func testServeCommand() throws {
        let directory = try temporaryFolder("serve")
        let mirror = directory.appendingPathComponent("app.sqlite").path
        let key = "super-secret-master-key"
        let (process, out, err) = try serve([mirror, "--port", "0", "--app-id", TestServer.appId], environment: ["PARSE_MASTER_KEY": key])
        let line = firstLine(of: out)
        let match = try XCTUnwrap(line.wholeMatch(of: /serving (.+) at http:\/\/127\.0\.0\.1:(\d+)\/parse/), line)
        XCTAssertEqual(String(match.1), mirror)
        let url = "http://127.0.0.1:\(match.2)/parse"
        var request = URLRequest(url: try XCTUnwrap(URL(string: "\(url)/classes/Book")))
        request.httpMethod = "POST"
        request.setValue(TestServer.appId, forHTTPHeaderField: "X-Parse-Application-Id")
        request.setValue(key, forHTTPHeaderField: "X-Parse-Master-Key")
        request.httpBody = Data(#"{"title":"Emma"}"#.utf8)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status = 0
        URLSession.shared.dataTask(with: request) { _, response, _ in
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        done.wait()
        XCTAssertEqual(status, 201)
        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(log.contains("POST /parse/classes/Book 201"), log)
        XCTAssertFalse(log.contains(key) || line.contains(key))
        for suffix in ["-wal", "-shm"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: mirror + suffix), "serve closes the mirror when it stops: no \(suffix) left")
        }
        let database = try SQLiteDatabase(path: mirror, create: false)
        defer { database.close() }
        XCTAssertEqual(try database.rows("SELECT title FROM Book"), [["Emma"]])
    }

    /// SIGTERM or SIGINT sent as soon as `serve` has printed its line stops it cleanly. (Before,
    /// the signals were ignored until Dispatch had installed its handler on a thread of its own,
    /// after the line: one sent in between was lost, and `serve` ran on, blocked in `accept`.)
    func testSignalRightAfterTheServingLineStopsServe() throws {
        let directory = try temporaryFolder("serve")
        let mirror = directory.appendingPathComponent("app.sqlite").path
        for run in 1...30 {
            let (process, out, _) = try serve([mirror, "--port", "0", "--app-id", TestServer.appId, "--master-key", TestServer.masterKey, "--quiet"])
            XCTAssertTrue(firstLine(of: out).hasPrefix("serving "), "run \(run)")
            if run.isMultiple(of: 2) { process.interrupt() } else { process.terminate() }
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            guard !process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return XCTFail("run \(run): serve was still running 10 s after \(run.isMultiple(of: 2) ? "SIGINT" : "SIGTERM")")
            }
            XCTAssertEqual(process.terminationReason, .exit, "run \(run)")
            XCTAssertEqual(process.terminationStatus, 0, "run \(run)")
        }
    }

    func testServeRefusesAnInMemoryMirror() throws {
        let (process, out, err) = try serve([":memory:", "--port", "0", "--app-id", TestServer.appId, "--master-key", TestServer.masterKey])
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "serve exits by itself instead of serving")
        XCTAssertEqual(process.terminationStatus, 2)
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(message.contains(#"":memory:" is not a mirror file"#), message)
        XCTAssertEqual(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "", "nothing was served")
    }

    /// Runs curl with `arguments`; its stdout.
    private func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", "-g", "--path-as-is"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func testRequestLogHasTimesEscapesControlCharactersAndExplainsInternalErrors() throws {
        let directory = try temporaryFolder("serve")
        let mirror = directory.appendingPathComponent("app.sqlite").path
        let (process, out, err) = try serve([mirror, "--port", "0", "--app-id", TestServer.appId, "--master-key", TestServer.masterKey])
        let line = firstLine(of: out)
        let port = try XCTUnwrap(line.firstMatch(of: /:(\d+)\/parse/).map { String($0.1) }, line)
        let url = "http://127.0.0.1:\(port)/parse"
        let app = ["-H", "X-Parse-Application-Id: \(TestServer.appId)"]
        XCTAssertTrue(
            try curl(app + ["-H", "X-Parse-Master-Key: \(TestServer.masterKey)", "-d", #"{"title":"Emma"}"#, "\(url)/classes/Book"]).contains("objectId"))
        let database = try SQLiteDatabase(path: mirror, create: false)
        _ = try database.rows(#"UPDATE _SCHEMA SET schema = json_set(schema, '$.fields.ghost', json('{"type":"String"}')) WHERE className = 'Book'"#)
        database.close()
        let failed = try curl(app + ["\(url)/classes/Book"])
        XCTAssertEqual(failed, #"{"code":1,"message":"Internal server error."}"#)
        _ = try curl(app + ["\(url)/classes/Bo%0A2026-01-01T00:00:00.000Z%20GET%20/forged%20200%1B[31m%5C"])
        process.terminate()
        process.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = log.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, log)
        for entry in lines { XCTAssertNotNil(entry.prefixMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (POST|GET) /#), entry) }
        let failure = try XCTUnwrap(lines.first { $0.contains(" 500 ") }, log)
        XCTAssertTrue(failure.contains("GET /parse/classes/Book 500"), failure)
        XCTAssertTrue(failure.contains("no such column"), failure)
        XCTAssertTrue(log.contains(#"/parse/classes/Bo\u{A}2026-01-01T00:00:00.000Z GET /forged 200\u{1B}[31m\\ 400"#), log)
        XCTAssertFalse(log.contains("\u{1B}"))
        XCTAssertFalse(log.contains(TestServer.masterKey))
    }

    /// Serves a new mirror with `options`; its URL, the process and the mirror's path.
    private func serveNewMirror(_ options: [String]) throws -> (url: String, process: Process, mirror: String) {
        let directory = try temporaryFolder("serve")
        let mirror = directory.appendingPathComponent("app.sqlite").path
        let (process, out, _) = try serve([mirror, "--port", "0", "--app-id", TestServer.appId, "--master-key", TestServer.masterKey, "--quiet"] + options)
        addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
        }
        let line = firstLine(of: out)
        let port = try XCTUnwrap(line.firstMatch(of: /:(\d+)\/parse/).map { String($0.1) }, line)
        return ("http://127.0.0.1:\(port)/parse", process, mirror)
    }

    func testClientClassCreationIsAnOption() throws {
        let on = try serveNewMirror(["--allow-client-class-creation"])
        let created = try Self.send("POST", "\(on.url)/classes/Gadget", body: #"{"name":"lamp","watts":40}"#, master: false)
        XCTAssertEqual(created.status, 201, created.json.serialized())
        let schema = try Self.send("GET", "\(on.url)/schemas/Gadget")
        XCTAssertEqual(schema.json["fields"]?["watts"], .parse(#"{"type":"Number"}"#))
        XCTAssertEqual(
            try Self.send("GET", "\(on.url)/classes/Gadget", master: false).json["results"],
            .parse(
                #"[{"objectId":"\#(created.json["objectId"]?.text ?? "")","name":"lamp","watts":40,"createdAt":"\#(created.json["createdAt"]?.text ?? "")","updatedAt":"\#(created.json["createdAt"]?.text ?? "")"}]"#
            ))

        let off = try serveNewMirror([])
        let refused = try Self.send("POST", "\(off.url)/classes/Gadget", body: #"{"name":"lamp"}"#, master: false)
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.json, .parse(#"{"code":119,"error":"This user is not allowed to access non-existent class: Gadget"}"#))
        XCTAssertEqual(ParseErrorCode(errorBody: try Self.send("GET", "\(off.url)/schemas/Gadget").json), .invalidClassName, "no class was made")
        XCTAssertEqual(try Self.send("POST", "\(off.url)/classes/Gadget", body: #"{"name":"lamp"}"#).status, 201, "the master key may")
    }

    func testHealthAnswersEveryMethodAndServerInfoNamesParsePorter() throws {
        let served = try serveNewMirror([])
        for method in ["GET", "POST", "PUT", "DELETE", "HEAD"] {
            let reply = try Self.send(method, "\(served.url)/health", body: method == "POST" ? "{}" : nil, master: false)
            XCTAssertEqual(reply.status, 200, method)
            if method != "HEAD" { XCTAssertEqual(reply.json, .parse(#"{"status":"ok"}"#), method) }
        }
        let info = try Self.send("GET", "\(served.url)/serverInfo")
        XCTAssertEqual(info.status, 200)
        XCTAssertEqual(info.json["serverName"], .string("ParsePorter"))
        XCTAssertEqual(info.json["serverVersion"], .string(PorterRelease.version))
        XCTAssertNil(info.json["parseServerVersion"])
        XCTAssertEqual(info.json["features"]?["schemas"]?["addClass"], .bool(true))
    }

    func testServeRefusals() throws {
        let noKey = try serve([temporaryFolder().appendingPathComponent("unused.sqlite").path, "--app-id", "a"])
        noKey.process.waitUntilExit()
        XCTAssertEqual(noKey.process.terminationStatus, 2)
        let badPath = try serve(["/nonexistent-\(UUID().uuidString)/app.sqlite", "--app-id", "a", "--master-key", "k", "--port", "0"])
        badPath.process.waitUntilExit()
        XCTAssertEqual(badPath.process.terminationStatus, 3)
        let error = String(decoding: badPath.stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertFalse(error.contains("\"k\""), error)

        let busy = HTTPServer(port: 0, handler: try TestServer().api)
        let port = try busy.start()
        defer { busy.stop() }
        let taken = try serve([temporaryFolder().appendingPathComponent("unused.sqlite").path, "--app-id", "a", "--master-key", "k", "--port", "\(port)"])
        taken.process.waitUntilExit()
        XCTAssertEqual(taken.process.terminationStatus, 3)
    }
}
