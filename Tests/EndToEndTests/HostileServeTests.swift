import Foundation
import ParseModel
import PorterTestSupport
import XCTest

/// `parse-porter serve` against the attacks of issue 34, each sent to the running command: no
/// request may hold the server hostage, leak what it hides, or cost unbounded work. Each asserts
/// the answer and a bound (time, memory, how long others wait) far from the normal case.
final class HostileServeTests: XCTestCase {
    private func serve(_ arguments: [String] = []) throws -> ServeProcess {
        try ServeProcess(mirror: temporaryFolder().appendingPathComponent("served.sqlite"), test: self, arguments: arguments)
    }

    /// Logs `username` in every 0.2 s on another thread until `work` returns; the slowest log-in.
    private func slowestLogIn(_ server: ServeProcess, _ username: String, during work: () -> Void) -> Double {
        let done = DispatchSemaphore(value: 0), stop = NSLock()
        nonisolated(unsafe) var stopped = false, slowest = 0.0, answered = 0
        Thread {
            while !stop.withLock({ stopped }) {
                let reply = server.send("POST", "/login", #"{"username":"\#(username)","password":"pw-\#(username)"}"#, auth: .appOnly)
                if reply?.status == 200 { answered += 1 }
                slowest = max(slowest, reply?.seconds ?? .infinity)
                Thread.sleep(forTimeInterval: 0.2)
            }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.3)
        work()
        stop.withLock { stopped = true }
        done.wait()
        XCTAssertGreaterThan(answered, 0, "log-ins were answered")
        return slowest
    }

    /// Item 1: AddUnique of 20,000 values on an array of 20,000 compared every pair inside the
    /// write lock (over 300 s; Remove of 40,000: 188 s, and every log-in waited as long). Both
    /// hash now; an array past 100,000 elements is 116.
    func testAddUniqueAndRemoveOnLargeArraysTakeLinearTime() throws {
        let server = try serve()
        _ = try server.signUp("legit")
        let created = try XCTUnwrap(server.send("POST", "/classes/Tags", #"{"a":[\#((0..<20_000).map(String.init).joined(separator: ","))]}"#))
        let id = try XCTUnwrap(created.json["objectId"]?.stringValue, "\(created.json)")
        var added: ServeProcess.Reply?, removed: ServeProcess.Reply?
        let slowest = slowestLogIn(server, "legit") {
            added = server.send(
                "PUT", "/classes/Tags/\(id)", #"{"a":{"__op":"AddUnique","objects":[\#((10_000..<30_000).map(String.init).joined(separator: ","))]}}"#)
            removed = server.send(
                "PUT", "/classes/Tags/\(id)",
                #"{"a":{"__op":"Remove","objects":[\#((0..<40_000).filter { $0 % 2 == 0 }.map(String.init).joined(separator: ","))]}}"#)
        }
        let add = try XCTUnwrap(added, "no answer within 60 s"), remove = try XCTUnwrap(removed, "no answer within 60 s")
        guard case .array(let union)? = add.json["a"], case .array(let rest)? = remove.json["a"] else { return XCTFail("\(add.json) \(remove.json)") }
        XCTAssertEqual(union.count, 30_000)
        XCTAssertEqual(rest.count, 15_000)
        XCTAssertEqual(rest.first, .integer(1), "the odd numbers stay, in order")
        XCTAssertLessThan(add.seconds + remove.seconds, 15, "about 1 s on an idle machine")
        XCTAssertLessThan(slowest, 10, "log-ins beside them wait at most that long")
        let tooMany = try XCTUnwrap(
            server.send("PUT", "/classes/Tags/\(id)", #"{"a":{"__op":"Add","objects":[\#((0..<85_001).map(String.init).joined(separator: ","))]}}"#))
        XCTAssertEqual(tooMany.status, 400)
        XCTAssertEqual(tooMany.code, 116)
        XCTAssertEqual(tooMany.json["error"]?.stringValue, "Tags.a would hold 100001 elements; the server allows at most 100000 in an Array")
    }

    /// Item 2: a transactional batch of slow `$regex` GETs held the write lock for every query's
    /// full time limit in turn (1 write + 20 queries: 70 s, a log-in waited as long). Once it has
    /// held the lock 0.25 s (`--batch-lock-time`) while a log-in waits, it is cut short, undone and
    /// answered 124.
    func testATransactionalBatchGivesTheWriteLockUpToALogIn() throws {
        let server = try serve()
        _ = try server.signUp("legit")
        let rows = Array(repeating: #"{"method":"POST","path":"/parse/classes/Slow","body":{"t":"\#(String(repeating: "a", count: 22))b"}}"#, count: 100)
        for _ in 0..<5 { XCTAssertEqual(server.send("POST", "/batch", #"{"requests":[\#(rows.joined(separator: ","))]}"#)?.status, 200) }
        XCTAssertEqual(server.send("POST", "/classes/Note", #"{"x":0}"#)?.status, 201)
        let slowQuery = #"{"method":"GET","path":"/parse/classes/Slow","body":{"where":{"t":{"$regex":"^(a|aa)*$"}},"limit":1}}"#
        let batch =
            #"{"transaction":true,"requests":[{"method":"POST","path":"/parse/classes/Note","body":{"x":1}},\#(Array(repeating: slowQuery, count: 20).joined(separator: ","))]}"#
        var answer: ServeProcess.Reply?
        let slowest = slowestLogIn(server, "legit") { answer = server.send("POST", "/batch", batch, auth: .appOnly, timeout: 300) }
        let reply = try XCTUnwrap(answer)
        XCTAssertEqual(reply.status, 400, "\(reply.json)")
        XCTAssertEqual(reply.code, 124)
        XCTAssertTrue(reply.json["error"]?.stringValue?.hasPrefix("The batch held the write lock longer than the server allows") ?? false, "\(reply.json)")
        XCTAssertLessThan(reply.seconds, 15, "about 1.5 s on an idle machine")
        XCTAssertLessThan(slowest, 10, "the log-in waited about 1 s")
        XCTAssertEqual(server.send("GET", "/classes/Note")?.results.count, 1, "the batch's write was undone")
    }

    /// Item 3: connections that connect and say nothing, re-opened as soon as they are cut,
    /// kept every other client out (1 answer in 140 over 70 s). At the cap, a connection that
    /// has waited a second for its client now makes room for a new one.
    func testIdleConnectionsAtTheCapMakeRoomForClients() throws {
        let server = try serve(["--max-connections", "16"])
        nonisolated(unsafe) var stop = false
        let lock = NSLock(), done = DispatchSemaphore(value: 0)
        Thread {
            var held: [RawClient] = []
            while !lock.withLock({ stop }) {
                held.removeAll { client in
                    var byte: UInt8 = 0
                    return recv(client.descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
                }
                while held.count < 24, let client = try? RawClient(port: server.port, timeout: 1) { held.append(client) }
                Thread.sleep(forTimeInterval: 0.05)
            }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 1.5)
        var answered = 0
        for _ in 0..<20 {
            if server.send("GET", "/health", timeout: 5)?.status == 200 { answered += 1 }
            Thread.sleep(forTimeInterval: 0.1)
        }
        lock.withLock { stop = true }
        done.wait()
        XCTAssertGreaterThanOrEqual(answered, 18, "nearly every request is answered while silent connections fill the cap")
    }

    /// Item 4: the result budget was per request, so concurrent GETs of a large answer added up
    /// (12 of 24 MB: the server grew by 0.9-1.1 GB). Concurrent answers now share one budget
    /// (128 MB by default): those past it are 429 (code 100), so 20 at once grow the server by
    /// about as much as five, and the budget is given back once answers are sent.
    func testConcurrentLargeAnswersShareOneMemoryBudget() throws {
        let server = try serve()
        let blob = String(repeating: "x", count: 400_000)
        let creates = Array(repeating: #"{"method":"POST","path":"/parse/classes/Big","body":{"t":"\#(blob)"}}"#, count: 20)
        for _ in 0..<3 { XCTAssertEqual(server.send("POST", "/batch", #"{"requests":[\#(creates.joined(separator: ","))]}"#)?.status, 200) }
        XCTAssertEqual(server.send("GET", "/classes/Big?limit=1000")?.results.count, 60)
        let before = server.residentBytes.now
        let lock = NSLock(), group = DispatchGroup()
        nonisolated(unsafe) var statuses: [Int] = [], complete = true
        for _ in 0..<20 {
            group.enter()
            Thread {
                let reply = server.send("GET", "/classes/Big?limit=1000", timeout: 120)
                lock.withLock {
                    statuses.append(reply?.status ?? 0)
                    if reply?.status == 200 && reply?.results.count != 60 || reply?.status == 429 && reply?.code != 100 { complete = false }
                }
                group.leave()
            }.start()
        }
        group.wait()
        XCTAssertTrue(complete, "each answer is whole, or 429 with code 100")
        let grown = server.residentBytes.peak - before
        XCTAssertEqual(Set(statuses).subtracting([200, 429]), [], "\(statuses)")
        XCTAssertGreaterThan(statuses.filter { $0 == 200 }.count, 0)
        XCTAssertLessThan(grown, 1024 << 20, "at most five 24 MB answers at a time, not twenty (\(grown >> 20) MB)")
        print("20 concurrent GETs of a 24 MB answer: \(statuses.filter { $0 == 200 }.count) answered, the server grew by \(grown >> 20) MB")
        XCTAssertEqual(server.send("GET", "/classes/Big?limit=1000")?.results.count, 60, "the budget was given back")
    }

    /// Item 5: a file uploaded as `x.txt` with `Content-Type: text/html` was served back as HTML
    /// from the API's origin. The type comes from the name, as in Parse Server.
    func testFilesAreServedWithTheTypeOfTheirName() throws {
        let server = try serve()
        let token = try server.signUp("uploader")
        let upload = try XCTUnwrap(
            server.send("POST", "/files/x.txt", bytes: Array("<script>alert(1)</script>".utf8), auth: .session(token), contentType: "text/html"))
        XCTAssertEqual(upload.status, 201)
        let name = try XCTUnwrap(upload.json["name"]?.stringValue)
        let download = try XCTUnwrap(server.send("GET", "/files/\(ServeProcess.appId)/\(name)", auth: .none))
        XCTAssertEqual(download.header("content-type"), "text/plain")
        XCTAssertEqual(download.header("x-content-type-options"), "nosniff")
        let svg = try XCTUnwrap(server.send("POST", "/files/logo.svg", bytes: Array("<svg/>".utf8), contentType: "image/svg+xml"))
        let image = try XCTUnwrap(server.send("GET", "/files/\(ServeProcess.appId)/\(try XCTUnwrap(svg.json["name"]?.stringValue))", auth: .none))
        XCTAssertEqual(image.header("content-type"), "image/svg+xml")
        XCTAssertEqual(image.header("content-security-policy"), "sandbox", "a type that runs scripts is sandboxed")
    }

    /// Item 6: `$text` relevance counted rows the caller cannot read (one public note's score
    /// fell from 2.56 to 0.49 once private notes held the word). Scores now count only rows
    /// the caller may read.
    func testTextScoresCountOnlyRowsTheCallerMayRead() throws {
        let server = try serve()
        for index in 0..<20 {
            let word = index == 0 ? "weather" : "nothing"
            XCTAssertEqual(server.send("POST", "/classes/Note", #"{"text":"public note \#(index) about \#(word)","ACL":{"*":{"read":true}}}"#)?.status, 201)
        }
        let search =
            #"/classes/Note?where=%7B%22text%22%3A%7B%22%24text%22%3A%7B%22%24search%22%3A%7B%22%24term%22%3A%22weather%22%7D%7D%7D%7D&keys=%24score&order=%24score"#
        func score(_ auth: ServeProcess.Auth) -> Double? { server.send("GET", search, auth: auth)?.results.first?["score"]?.doubleValue }
        let alone = try XCTUnwrap(score(.appOnly))
        for _ in 0..<10 { XCTAssertEqual(server.send("POST", "/classes/Note", #"{"text":"private diagnosis weather","ACL":{}}"#)?.status, 201) }
        XCTAssertEqual(try XCTUnwrap(score(.appOnly)), alone, accuracy: 1e-9, "private notes holding the word change nothing the public sees")
        XCTAssertNotEqual(try XCTUnwrap(score(.master)), alone, accuracy: 1e-3, "the master key reads them all")
    }

    /// Item 8: an imported hash of cost 31 made each log-in for its user cost about 40 hours of
    /// a core, and SIGTERM no longer stopped the server. Import refuses a cost above 12, and a
    /// log-in never checks one (the mirror may have it from elsewhere): it answers 101 at once.
    func testCostlyBcryptHashesAreRefusedAtImportAndNeverCheckedAtLogIn() throws {
        let folder = try temporaryFolder()
        let costly = "$2b$31$" + String(repeating: "A", count: 53)
        let export = folder.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
        try Data(#"{"results":[{"objectId":"u1","username":"costly","bcryptPassword":"\#(costly)"}]}"#.utf8).write(
            to: export.appendingPathComponent("_User.json"))
        let mirror = folder.appendingPathComponent("users.sqlite")
        let imported = try CommandRunner.run(["import", export.path, "--target", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 1, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("a bcrypt hash of cost 31, above the 12 taken"), imported.stderr)
        XCTAssertFalse(imported.stderr.contains(costly), "the hash is not shown")

        let server = try ServeProcess(mirror: mirror, test: self)
        _ = try server.signUp("costly")
        let database = try Mirror(mirror, writable: true)
        _ = try database.rows("UPDATE _User SET _hashed_password = '\(costly)' WHERE username = 'costly'")
        let reply = try XCTUnwrap(
            server.send("POST", "/login", #"{"username":"costly","password":"guess"}"#, auth: .appOnly, timeout: 20),
            "no answer within 20 s")
        XCTAssertEqual(reply.status, 404)
        XCTAssertEqual(reply.code, 101)
        XCTAssertLessThan(reply.seconds, 5, "as long as any wrong password")
    }

    /// Item 9: a wrong password for an existing account took 184 ms, one for no account 1.1 ms,
    /// so the time of the answer told which usernames and emails exist. Both check a bcrypt hash.
    func testLogInTakesAsLongForAccountsThatDoNotExist() throws {
        let server = try serve()
        let token = try server.signUp("real")
        let id = try XCTUnwrap(server.send("GET", "/users/me", auth: .session(token))?.json["objectId"]?.stringValue)
        XCTAssertEqual(server.send("PUT", "/users/\(id)", #"{"email":"real@example.com"}"#)?.status, 200)
        func seconds(_ body: String) -> Double {
            let reply = server.send("POST", "/login", body, auth: .appOnly)
            XCTAssertEqual(reply?.code, 101)
            return reply?.seconds ?? .infinity
        }
        let pairs = [
            (#"{"username":"real","password":"wrong"}"#, #"{"username":"ghost","password":"wrong"}"#),
            (#"{"email":"real@example.com","password":"wrong"}"#, #"{"email":"ghost@example.com","password":"wrong"}"#),
        ]
        for (known, unknown) in pairs {
            // Alternated, so that a change of the machine's load between them touches both alike.
            var existingTimes: [Double] = [], missingTimes: [Double] = []
            for _ in 0..<7 {
                existingTimes.append(seconds(known))
                missingTimes.append(seconds(unknown))
            }
            let existing = existingTimes.sorted()[3], missing = missingTimes.sorted()[3]
            XCTAssertGreaterThan(missing, existing / 3, "\(unknown): \(missing) s against \(existing) s for \(known)")
            XCTAssertLessThan(missing, existing * 3, "\(unknown): \(missing) s against \(existing) s for \(known)")
        }
    }

    /// Item 10: `$or` of 993 branches, `$and`/`$nor`/`$all` of 991, `$containedBy` of 494 went
    /// past SQLite's expression depth and answered 500. They are answered now (the SQL nests
    /// as a balanced tree), and a where of more than 10,000 values is 102 before SQL is made.
    func testWideWhereClausesAreAnsweredOrRefusedWithAParseError() throws {
        let server = try serve()
        XCTAssertEqual(server.send("POST", "/classes/W", #"{"n":1,"a":[1,2]}"#)?.status, 201)
        let numbers = (0..<1000).map(String.init)
        let wide = [
            #"{"$or":[\#(numbers.map { #"{"n":\#($0)}"# }.joined(separator: ","))]}"#,
            #"{"$and":[\#(numbers.map { #"{"n":{"$ne":\#(Int($0)! + 2)}}"# }.joined(separator: ","))]}"#,
            #"{"$nor":[\#(numbers.map { #"{"n":\#(Int($0)! + 2)}"# }.joined(separator: ","))]}"#,
            #"{"a":{"$containedBy":[\#(numbers.joined(separator: ","))]}}"#,
        ]
        for whereClause in wide {
            let reply = try XCTUnwrap(server.send("POST", "/classes/W", #"{"_method":"GET","where":\#(whereClause)}"#, auth: .appOnly))
            XCTAssertEqual(reply.status, 200, "\(whereClause.prefix(40)): \(reply.json)")
            XCTAssertEqual(reply.results.count, 1, String(whereClause.prefix(40)))
        }
        let all = try XCTUnwrap(
            server.send("POST", "/classes/W", #"{"_method":"GET","where":{"a":{"$all":[\#(numbers.joined(separator: ","))]}}}"#, auth: .appOnly))
        XCTAssertEqual(all.status, 200)
        XCTAssertEqual(all.results.count, 0, "no object holds all of them")
        let tooWide = try XCTUnwrap(
            server.send(
                "POST", "/classes/W",
                #"{"_method":"GET","where":{"$or":[\#((0..<5001).map { #"{"n":\#($0)}"# }.joined(separator: ","))]}}"#, auth: .appOnly))
        XCTAssertEqual(tooWide.status, 400)
        XCTAssertEqual(tooWide.code, 102)
        XCTAssertEqual(
            tooWide.json["error"]?.stringValue,
            "Query condition holds more than 10000 values (members, list items and branches); split it into several queries")
    }
}
