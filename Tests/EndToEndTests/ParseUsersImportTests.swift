import Foundation
import PorterPostgres
import XCTest

/// A Parse.com-style export with users, roles, sessions and a class with permissions
/// (`Fixtures/parse-com-users`): into a mirror the users log in with their old passwords, roles
/// grant what their ACLs say, permissions and indexes are in force; into a Parse Server the
/// password hashes are refused unless `--users-without-passwords`, and `--maintenance-key`
/// keeps the timestamps.
final class ParseUsersImportTests: XCTestCase {
    let export = CommandRunner.fixtures.appendingPathComponent("parse-com-users").path
    static let passwords = ["ada": "ada-lovelace-1815", "grace": "grace-hopper-1906", "alan": "alan-turing-1912"]
    static let hashes = ["$2a$10$G79K/V8v", "$2b$10$x/YEYBCo", "$2y$10$4jSegTFg"]
    static let maintenanceKey = "maintenance-key-51c0-never-print-me"

    struct Answer {
        let status: Int
        let body: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    }

    /// One request to `server` with the app id and the given extra headers.
    func call(_ server: ServedMirror, _ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) throws -> Answer {
        var arguments = [
            "curl", "-s", "-w", "\n%{http_code}", "-X", method, "-H", "X-Parse-Application-Id: \(ServedMirror.applicationId)",
            "-H", "Content-Type: application/json",
        ]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["-H", "\(name): \(value)"] }
        if let body { arguments += ["--data-binary", body] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments + [server.url + path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return Answer(status: Int(lines.last ?? "") ?? 0, body: lines.dropLast().joined(separator: "\n"))
    }

    let master = ["X-Parse-Master-Key": ServedMirror.masterKey]

    func logIn(_ server: ServedMirror, _ username: String, _ password: String) throws -> Answer {
        try call(server, "POST", "/login", body: #"{"username":"\#(username)","password":"\#(password)"}"#)
    }

    func session(_ server: ServedMirror, _ username: String) throws -> [String: String] {
        let answer = try logIn(server, username, Self.passwords[username]!)
        return ["X-Parse-Session-Token": try XCTUnwrap(answer.json["sessionToken"] as? String, answer.body)]
    }

    func assertNoHash(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        for hash in Self.hashes { XCTAssertFalse(text.contains(hash), "\(what) shows a password hash: \(text)", file: file, line: line) }
        XCTAssertFalse(text.contains("_hashed_password") || text.contains("bcryptPassword"), "\(what): \(text)", file: file, line: line)
    }

    func importIntoMirror(_ arguments: [String] = []) throws -> (URL, [String: Any]) {
        let mirror = try temporaryFolder().appendingPathComponent("users.sqlite")
        let result = try CommandRunner.run(["import", export, "--to", mirror.path, "--json"] + arguments)
        XCTAssertEqual(result.status, 0, result.stderr)
        return (mirror, try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]))
    }

    /// Into a mirror: hashes in `_hashed_password`, the old passwords log in through `serve`, the
    /// hash shows in no answer and no export, roles and permissions are in force.
    func testUsersLogInWithTheirOldPasswordsAndRolesWork() throws {
        let (mirror, summary) = try importIntoMirror()
        XCTAssertEqual((summary["skippedClasses"] as? [[String: String]])?.map { $0["className"] }, ["_Session", "_Installation"])
        XCTAssertTrue((summary["skippedClasses"] as? [[String: String]])?.allSatisfy { ($0["reason"] ?? "").count > 20 } == true)
        XCTAssertEqual(summary["usersWithPasswordHashes"] as? Int, 3)
        let notes = try XCTUnwrap(summary["notes"] as? [String])
        XCTAssertTrue(notes.contains { $0.contains("no classLevelPermissions for _Role, Note") && $0.contains("all-public") }, "\(notes)")
        let rows = try Mirror(mirror).rows("SELECT username, _hashed_password, email, emailVerified, authData FROM _User ORDER BY username")
        XCTAssertEqual(rows.map { $0[0] }, ["ada", "alan", "grace"])
        XCTAssertEqual(rows.map { String($0[1]?.prefix(15) ?? "") }, [Self.hashes[0], Self.hashes[2], Self.hashes[1]])
        XCTAssertEqual(rows[0][2], "ada@example.com")
        XCTAssertEqual(rows.map { $0[3] }, ["1", nil, "0"])
        XCTAssertEqual(rows[1][4], #"{"anonymous":{"id":"5f1c0e2a-8b7d-4c3e-9a6f-1d2e3f4a5b6c"}}"#)
        XCTAssertNil(try Mirror(mirror).value("SELECT 1 FROM sqlite_master WHERE name IN ('_Session', '_Installation')"))
        XCTAssertFalse(try Mirror(mirror).value("SELECT schema FROM _SCHEMA WHERE className = '_User'")!.contains("password"))

        let server = try ServedMirror(path: mirror.path, allowCustomObjectId: false)
        // $2a$ (Parse.com), $2b$ (Parse Server) and $2y$ hashes all check; a wrong password does not.
        for (username, password) in Self.passwords {
            let answer = try logIn(server, username, password)
            XCTAssertEqual(answer.status, 200, "\(username): \(answer.body)")
            XCTAssertEqual(answer.json["username"] as? String, username)
            XCTAssertTrue((answer.json["sessionToken"] as? String)?.hasPrefix("r:") == true, answer.body)
            assertNoHash(answer.body, "log-in")
        }
        let wrong = try logIn(server, "ada", "grace-hopper-1906")
        XCTAssertEqual(wrong.status, 404, wrong.body)
        XCTAssertEqual(wrong.json["code"] as? Int, 101)

        // The hash is in no answer, not even the master key's.
        let ada = try session(server, "ada")
        for (path, headers) in [
            ("/classes/_User", master), ("/users", master), ("/classes/_User/UsAda18150", master), ("/users/me", ada),
            ("/classes/_User?keys=_hashed_password,bcryptPassword,password", master), ("/schemas/_User", master),
        ] {
            let answer = try call(server, "GET", path, headers: headers)
            XCTAssertEqual(answer.status, 200, "\(path): \(answer.body)")
            assertNoHash(answer.body, path)
        }
        // Nor can a query probe it, which would tell it character by character.
        let probe = try call(server, "GET", "/classes/_User?where=%7B%22_hashed_password%22%3A%7B%22%24regex%22%3A%22%5E%5C%5C%242a%22%7D%7D")
        XCTAssertEqual(probe.json["code"] as? Int, 105, probe.body)
        XCTAssertEqual(try call(server, "GET", "/classes/_User?order=_hashed_password").json["code"] as? Int, 105)
        let own = try call(server, "GET", "/users/me", headers: ada).json
        XCTAssertEqual(own["email"] as? String, "ada@example.com")
        XCTAssertEqual(own["emailVerified"] as? Bool, true)
        let exported = try temporaryFolder().appendingPathComponent("out")
        XCTAssertEqual(try CommandRunner.run(["export", "--from", mirror.path, "--to", exported.path, "-q"]).status, 0)
        let userFile = try String(contentsOf: exported.appendingPathComponent("_User.json"), encoding: .utf8)
        XCTAssertTrue(userFile.contains("grace@example.com"), userFile)
        assertNoHash(userFile, "export")

        // role:Editors reads the note: ada directly, grace through Admins (in Editors.roles); alan and anonymous do not.
        XCTAssertEqual(try call(server, "GET", "/classes/Note/NoEditors1", headers: ada).json["text"] as? String, "for the editors only")
        XCTAssertEqual(try call(server, "GET", "/classes/Note/NoEditors1", headers: try session(server, "grace")).status, 200)
        let alan = try session(server, "alan")
        XCTAssertEqual(try call(server, "GET", "/classes/Note/NoEditors1", headers: alan).json["code"] as? Int, 101)
        XCTAssertEqual(try call(server, "GET", "/classes/Note/NoEditors1").json["code"] as? Int, 101)
        XCTAssertEqual((try call(server, "GET", "/classes/Note").json["results"] as? [[String: Any]])?.compactMap { $0["objectId"] as? String }, ["NoPublic01"])

        // Diary's permissions from schema.json: reads need a user, creates the Editors role.
        try assertDiaryPermissions(server, editor: ada, outsider: alan)
    }

    /// Moving an app on from a mirror: `export --include-password-hashes` writes each user's hash
    /// as `bcryptPassword` (with a warning), and the export imported into a second mirror, and into
    /// PostgreSQL, keeps every user's password: the old ones log in through `serve`. Without the
    /// flag no export carries a hash; a format that cannot carry them, or a source that has none
    /// (a Parse Server), is refused before anything is written.
    func testExportWithPasswordHashesKeepsTheLogIns() throws {
        let (first, _) = try importIntoMirror()
        let scratch = try temporaryFolder()
        let out = scratch.appendingPathComponent("out")
        let exported = try CommandRunner.run(["export", "--target", first.path, "--to", out.path, "--include-password-hashes", "-q"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue(exported.stderr.contains("warning: _User.json holds the bcrypt password hashes of 3 of its 3 users (bcryptPassword)"), exported.stderr)
        let users = try ExportSourceCheck.objects(out.appendingPathComponent("_User.json"))
        XCTAssertEqual(users.map { String(($0["bcryptPassword"] as? String ?? "").prefix(15)) }.sorted(), Self.hashes.sorted())
        let stored = try Mirror(first).rows("SELECT objectId, _hashed_password FROM _User ORDER BY objectId")
        XCTAssertEqual(stored, users.map { [$0["objectId"] as? String, $0["bcryptPassword"] as? String] }.sorted { $0[0]! < $1[0]! })

        let second = scratch.appendingPathComponent("second.sqlite")
        let imported = try CommandRunner.run(["import", out.path, "--to", second.path, "-q"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertFalse(imported.stdout.contains("skipped key _User.bcryptPassword"), imported.stdout)
        XCTAssertEqual(try Mirror(second).rows("SELECT objectId, _hashed_password FROM _User ORDER BY objectId"), stored)
        let server = try ServedMirror(path: second.path, allowCustomObjectId: false)
        for (username, password) in Self.passwords {
            let answer = try logIn(server, username, password)
            XCTAssertEqual(answer.status, 200, "\(username): \(answer.body)")
            XCTAssertEqual(answer.json["username"] as? String, username)
        }
        XCTAssertEqual(try logIn(server, "ada", "alan-turing-1912").json["code"] as? Int, 101)

        // Into Parse Server's PostgreSQL database: the same hashes in `_User._hashed_password`.
        let database = try PostgresCluster.shared().createDatabase()
        let loaded = try CommandRunner.run(["import", out.path, "--to", database, "-q"])
        XCTAssertEqual(loaded.status, 0, loaded.stderr)
        let db = try PostgresConnection(url: database)
        defer { db.close() }
        XCTAssertEqual(try db.execute(#"SELECT "objectId", "_hashed_password" FROM "_User" ORDER BY "objectId""#), stored)

        // No hashes without the flag; none in a format an import cannot read them back from, none from a Parse Server.
        let plain = scratch.appendingPathComponent("plain")
        let withoutFlag = try CommandRunner.run(["export", "--target", first.path, "--to", plain.path, "-q"])
        XCTAssertEqual(withoutFlag.status, 0, withoutFlag.stderr)
        assertNoHash(try String(contentsOf: plain.appendingPathComponent("_User.json"), encoding: .utf8), "export without --include-password-hashes")
        XCTAssertFalse(withoutFlag.stderr.contains("warning"), withoutFlag.stderr)
        let csv = try CommandRunner.run([
            "export", "--target", first.path, "--to", scratch.appendingPathComponent("csv").path, "--format", "csv", "--include-password-hashes",
        ])
        XCTAssertEqual(csv.status, 2)
        XCTAssertTrue(csv.stderr.contains("--include-password-hashes: the csv format carries no password hashes"), csv.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("csv").path))
        let fromServer = try CommandRunner.run(
            ["export", "--target", server.url, "--to", scratch.appendingPathComponent("rest").path, "--include-password-hashes"],
            environment: ServedMirror.environment)
        XCTAssertEqual(fromServer.status, 2)
        XCTAssertTrue(fromServer.stderr.contains("gives no password hashes: a Parse Server never returns them"), fromServer.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch.appendingPathComponent("rest").path))
    }

    /// `GET /schemas/Diary` has schema.json's permissions and index, and `serve` enforces them.
    func assertDiaryPermissions(
        _ server: ServedMirror, editor: [String: String], outsider: [String: String],
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let schema = try call(server, "GET", "/schemas/Diary", headers: master).json
        let permissions = try XCTUnwrap(schema["classLevelPermissions"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(permissions["find"] as? [String: Bool], ["requiresAuthentication": true], file: file, line: line)
        XCTAssertEqual(permissions["create"] as? [String: Bool], ["role:Editors": true], file: file, line: line)
        XCTAssertEqual((permissions["delete"] as? [String: Any])?.count, 0, file: file, line: line)
        XCTAssertEqual((schema["indexes"] as? [String: Any])?["title_1"] as? [String: Int], ["title": 1], file: file, line: line)
        // Parse Server refuses an anonymous caller of a `requiresAuthentication` class with 101.
        let anonymous = try call(server, "GET", "/classes/Diary")
        XCTAssertEqual(anonymous.json["code"] as? Int, 101, anonymous.body, file: file, line: line)
        XCTAssertTrue(anonymous.body.contains("needs to be authenticated"), anonymous.body, file: file, line: line)
        XCTAssertEqual(try call(server, "GET", "/classes/Diary/DiAda00001").json["code"] as? Int, 101, file: file, line: line)
        XCTAssertEqual((try call(server, "GET", "/classes/Diary", headers: outsider).json["results"] as? [Any])?.count, 1, file: file, line: line)
        let refused = try call(server, "POST", "/classes/Diary", body: #"{"title":"by an outsider"}"#, headers: outsider)
        XCTAssertEqual(refused.json["code"] as? Int, 119, refused.body, file: file, line: line)
        XCTAssertEqual(try call(server, "POST", "/classes/Diary", body: #"{"title":"by an editor"}"#, headers: editor).status, 201, file: file, line: line)
    }

    /// Permissions and indexes go to the classes an import creates; a class the target already
    /// has keeps its own (a note says so when the source's differ), as into a Parse Server.
    func testExistingClassKeepsItsPermissions() throws {
        let copy = try CommandRunner.copyFixture("parse-com-users", to: try temporaryFolder())
        let mirror = copy.appendingPathComponent("app.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", copy.path, "--to", mirror.path, "-q"]).status, 0)
        let before = try Mirror(mirror).value("SELECT schema FROM _SCHEMA WHERE className = 'Diary'")
        let again = try CommandRunner.run(["import", copy.path, "--to", mirror.path, "-q"])
        XCTAssertFalse(again.stdout.contains("already exist"), again.stdout)
        let schema = copy.appendingPathComponent("schema.json")
        try String(contentsOf: schema, encoding: .utf8).replacingOccurrences(of: #""create": {"role:Editors": true}"#, with: #""create": {"*": true}"#)
            .replacingOccurrences(of: #""title_1": {"title": 1}"#, with: #""title_1": {"title": -1}"#).write(to: schema, atomically: true, encoding: .utf8)
        let changed = try CommandRunner.run(["import", copy.path, "--to", mirror.path, "-q"])
        XCTAssertEqual(changed.status, 0, changed.stderr)
        XCTAssertTrue(changed.stdout.contains("note: Diary already exists in the target and keeps its class-level permissions and indexes"), changed.stdout)
        XCTAssertEqual(try Mirror(mirror).value("SELECT schema FROM _SCHEMA WHERE className = 'Diary'"), before)
    }

    /// `--include-installations` imports `_Installation`; `_Session` stays out.
    func testIncludeInstallations() throws {
        let (mirror, summary) = try importIntoMirror(["--include-installations"])
        XCTAssertEqual((summary["skippedClasses"] as? [[String: String]])?.map { $0["className"] }, ["_Session"])
        XCTAssertEqual(
            try Mirror(mirror).rows("SELECT installationId, deviceType, channels FROM _Installation"),
            [["2b1f6c3e-7d4a-4e5b-8c9d-0a1b2c3d4e5f", "ios", #"["news"]"#]])
    }

    /// The text summary names each skipped class once, with why.
    func testSummaryNamesSkippedClasses() throws {
        let mirror = try temporaryFolder().appendingPathComponent("users.sqlite")
        let result = try CommandRunner.run(["import", export, "--to", mirror.path, "-q"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = result.stdout + result.stderr
        XCTAssertEqual(output.components(separatedBy: "skipped _Session: sessions belong to the server").count - 1, 1, output)
        XCTAssertEqual(output.components(separatedBy: "skipped _Installation: ").count - 1, 1, output)
        XCTAssertTrue(output.contains("register again when the app starts (--include-installations imports them)"), output)
        // The stale session token is dropped and said so; the hashes are kept, so not "skipped".
        XCTAssertTrue(output.contains("skipped key _User.sessionToken: not a field, in 1 object"), output)
        XCTAssertFalse(output.contains("skipped key _User.bcryptPassword"), output)
        XCTAssertFalse(output.contains("skipped key _User._hashed_password"), output)
    }

    /// Into a Parse Server, password hashes cannot be set: without `--users-without-passwords`
    /// the import says so, with the number of users, and writes nothing at all.
    func testParseServerRefusesHashesAndNothingIsWritten() throws {
        let server = try ServedMirror(in: self, allowCustomObjectId: true)
        let result = try server.runImport(export)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "3 _User objects have password hashes").count - 1, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("--users-without-passwords"), result.stderr)
        XCTAssertTrue(result.stderr.contains("nothing was written"), result.stderr)
        // In JSON: one fault of its own kind, in the library's words (no flag).
        let summary = try ImportSummary.parse(try server.runImport(export, ["--json"]))
        XCTAssertEqual(summary.errors.map(\.kind), ["passwordHashesNotStored"])
        XCTAssertTrue(summary.errors[0].message.hasPrefix("3 _User objects have password hashes"), summary.errors[0].message)
        // Named by the file the hashes are in, not by schema.json.
        XCTAssertEqual(summary.errors[0].file, "_User.json")
        XCTAssertTrue(result.stderr.contains("_User.json: 3 _User objects have password hashes"), result.stderr)
        XCTAssertFalse(summary.errors[0].message.contains("--"), summary.errors[0].message)
        XCTAssertEqual(server.injector.writes, 0)
        XCTAssertEqual(
            try Mirror(server.file).value("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT IN ('_SCHEMA', '_PorterMigrations')"), "0")
        XCTAssertEqual(try Mirror(server.file).value("SELECT count(*) FROM _SCHEMA"), "0")
    }

    /// With `--users-without-passwords` the users arrive without their hashes (a random password
    /// each, so the old ones fail); permissions and indexes are set on the new class; without a
    /// maintenance key the summary says the timestamps were not kept.
    func testUsersWithoutPasswordsIntoAParseServer() throws {
        let server = try ServedMirror(in: self, allowCustomObjectId: true)
        let result = try server.runImport(export, ["--users-without-passwords", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "3 _User objects have password hashes").count - 1, 1, result.stderr)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertTrue((summary["notes"] as? [String])?.contains { $0.hasPrefix("timestamps not kept: 8 created objects") } == true, "\(summary)")
        let served = try Mirror(server.file)
        XCTAssertEqual(
            try served.rows("SELECT objectId, username, email, emailVerified FROM _User ORDER BY objectId"),
            [
                ["UsAda18150", "ada", "ada@example.com", "1"], ["UsAlan1912", "alan", "alan@example.com", nil],
                ["UsGrace190", "grace", "grace@example.com", "0"],
            ])
        for hash in try served.rows("SELECT _hashed_password FROM _User") {
            XCTAssertTrue(hash[0]?.hasPrefix("$2b$10$") == true)
            XCTAssertFalse(Self.hashes.contains { hash[0]!.hasPrefix($0) }, "the source's hash arrived")
        }
        for (username, password) in Self.passwords { XCTAssertEqual(try logIn(server, username, password).json["code"] as? Int, 101) }
        XCTAssertEqual(
            try served.rows(#"SELECT owningId, relatedId FROM "_Join:users:_Role" ORDER BY owningId"#),
            [["RoAdmins01", "UsGrace190"], ["RoEditors1", "UsAda18150"]])
        let noteCreated = try XCTUnwrap(try served.value("SELECT createdAt FROM Note WHERE objectId = 'NoEditors1'"), "the note arrived")
        XCTAssertNotEqual(noteCreated, "2014-06-01T12:00:00.000Z", "without the maintenance key the server sets its own createdAt")
        // Sign-in works with a new password set by the master key (a reset), and Diary's permissions hold.
        XCTAssertEqual(try call(server, "PUT", "/users/UsAda18150", body: #"{"password":"new-pass-1"}"#, headers: master).status, 200)
        XCTAssertEqual(try call(server, "PUT", "/users/UsAlan1912", body: #"{"password":"new-pass-2"}"#, headers: master).status, 200)
        let ada = ["X-Parse-Session-Token": try XCTUnwrap(try logIn(server, "ada", "new-pass-1").json["sessionToken"] as? String)]
        let alan = ["X-Parse-Session-Token": try XCTUnwrap(try logIn(server, "alan", "new-pass-2").json["sessionToken"] as? String)]
        try assertDiaryPermissions(server, editor: ada, outsider: alan)
    }

    /// With the maintenance key (Parse Dashboard's "Preserve timestamps"), every created object
    /// keeps the source's createdAt and updatedAt to the millisecond; the key is never printed.
    func testMaintenanceKeyKeepsTimestamps() throws {
        let server = try ServedMirror(in: self, allowCustomObjectId: true, maintenanceKey: Self.maintenanceKey)
        var environment = ServedMirror.environment
        environment["PARSE_MAINTENANCE_KEY"] = Self.maintenanceKey
        let result = try server.runImport(export, ["--users-without-passwords", "--json"], environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains(Self.maintenanceKey))
        XCTAssertFalse(result.stdout.contains("timestamps not kept"), result.stdout)
        let served = try Mirror(server.file)
        XCTAssertEqual(
            try served.rows("SELECT objectId, createdAt, updatedAt FROM _User ORDER BY objectId"),
            [
                ["UsAda18150", "2014-03-01T10:15:30.123Z", "2015-07-09T08:07:06.789Z"],
                ["UsAlan1912", "2016-01-02T03:04:05.678Z", "2017-02-03T04:05:06.789Z"],
                ["UsGrace190", "2014-05-12T00:00:00.001Z", "2014-05-12T00:00:00.001Z"],
            ])
        XCTAssertEqual(
            try served.rows("SELECT objectId, createdAt, updatedAt FROM Note ORDER BY objectId"),
            [
                ["NoEditors1", "2014-06-01T12:00:00.000Z", "2014-06-03T12:00:00.250Z"], ["NoPublic01", "2014-06-02T12:00:00.000Z", "2014-06-02T12:00:00.000Z"],
            ])
        XCTAssertEqual(try served.rows("SELECT createdAt, updatedAt FROM Diary"), [["2014-04-01T09:00:00.000Z", "2014-04-02T10:30:00.500Z"]])
        // The roles' members come from join files, read first so that each role is created with
        // its links: no update follows to set a new updatedAt.
        XCTAssertEqual(
            try served.rows("SELECT objectId, createdAt, updatedAt FROM _Role ORDER BY objectId"),
            [
                ["RoAdmins01", "2014-03-02T00:00:01.000Z", "2014-03-02T00:00:01.000Z"], ["RoEditors1", "2014-03-02T00:00:00.000Z", "2014-03-02T00:00:00.000Z"],
            ])
        XCTAssertEqual(try served.rows(#"SELECT owningId, relatedId FROM "_Join:roles:_Role""#), [["RoEditors1", "RoAdmins01"]])
        XCTAssertEqual(try served.value(#"SELECT count(*) FROM "_Join:users:_Role""#), "2")
        XCTAssertFalse(result.stdout.contains("new updatedAt"), result.stdout)
        let summary = try ImportSummary.parse(result)
        XCTAssertEqual(summary.relation("_Role.users")?.added, 2)
        XCTAssertEqual(summary.relation("_Role.roles")?.added, 1)
        XCTAssertFalse(summary.requests.contains { $0.phase.hasPrefix("relations") }, "\(summary.requests)")

        // A key the server does not take (another server's) is ignored there: the summary says so.
        let other = try ServedMirror(in: self, allowCustomObjectId: true, maintenanceKey: "another-servers-key")
        let ignored = try other.runImport(export, ["--users-without-passwords", "--json"], environment: environment)
        XCTAssertEqual(ignored.status, 0, ignored.stderr)
        XCTAssertTrue(ignored.stdout.contains("timestamps not kept: 8 created objects"), ignored.stdout)
        XCTAssertNotEqual(try Mirror(other.file).value("SELECT createdAt FROM Diary"), "2014-04-01T09:00:00.000Z")
        // GET answers show them as the source had them.
        XCTAssertEqual(try call(server, "GET", "/classes/Note/NoPublic01").json["createdAt"] as? String, "2014-06-02T12:00:00.000Z")
    }

    /// `serve --maintenance-key`: a create keeps a given createdAt/updatedAt (updatedAt defaults to
    /// createdAt, may not precede it: 142); the key opens no `/schemas`; without it, or from a
    /// server with no maintenance key, the given timestamps are ignored.
    func testServeTakesTheMaintenanceKeyAsParseServerDoes() throws {
        let server = try ServedMirror(in: self, maintenanceKey: Self.maintenanceKey)
        let maintenance = ["X-Parse-Maintenance-Key": Self.maintenanceKey]
        let created = #"{"__type":"Date","iso":"2001-02-03T04:05:06.007Z"}"#, updated = #"{"__type":"Date","iso":"2002-02-03T04:05:06.007Z"}"#
        let kept = try call(server, "POST", "/classes/Event", body: #"{"name":"a","createdAt":\#(created),"updatedAt":\#(updated)}"#, headers: maintenance)
        XCTAssertEqual(kept.status, 201, kept.body)
        XCTAssertEqual(kept.json["createdAt"] as? String, "2001-02-03T04:05:06.007Z")
        let id = try XCTUnwrap(kept.json["objectId"] as? String)
        let read = try call(server, "GET", "/classes/Event/\(id)").json
        XCTAssertEqual(read["createdAt"] as? String, "2001-02-03T04:05:06.007Z")
        XCTAssertEqual(read["updatedAt"] as? String, "2002-02-03T04:05:06.007Z")
        let alone = try call(server, "POST", "/classes/Event", body: #"{"name":"b","createdAt":\#(created)}"#, headers: maintenance).json
        XCTAssertEqual(try call(server, "GET", "/classes/Event/\(alone["objectId"] as? String ?? "")").json["updatedAt"] as? String, "2001-02-03T04:05:06.007Z")
        let backwards = try call(server, "POST", "/classes/Event", body: #"{"name":"c","createdAt":\#(updated),"updatedAt":\#(created)}"#, headers: maintenance)
        XCTAssertEqual(backwards.json["code"] as? Int, 142, backwards.body)
        XCTAssertEqual(try call(server, "GET", "/schemas", headers: maintenance).status, 403)
        // Master-key-only routes refuse it, as Parse Server's enforceMasterKeyAccess does.
        XCTAssertEqual(try call(server, "GET", "/aggregate/Event?pipeline=%5B%7B%22%24count%22%3A%22n%22%7D%5D", headers: maintenance).status, 403)
        XCTAssertEqual(try call(server, "GET", "/aggregate/Event?pipeline=%5B%7B%22%24count%22%3A%22n%22%7D%5D", headers: master).status, 200)
        XCTAssertEqual(try call(server, "DELETE", "/files/none.txt", headers: maintenance).status, 403)
        let byMaster = try call(server, "POST", "/classes/Event", body: #"{"name":"d","createdAt":\#(created)}"#, headers: master)
        XCTAssertEqual(byMaster.status, 201, byMaster.body)
        XCTAssertTrue(
            (byMaster.json["createdAt"] as? String)?.hasPrefix("20") == true && byMaster.json["createdAt"] as? String != "2001-02-03T04:05:06.007Z",
            byMaster.body)
        let wrongKey = try call(server, "POST", "/classes/Event", body: #"{"name":"e","createdAt":\#(created)}"#, headers: ["X-Parse-Maintenance-Key": "guess"])
        XCTAssertEqual(wrongKey.status, 201, wrongKey.body)
        XCTAssertTrue(
            (wrongKey.json["createdAt"] as? String)?.hasPrefix("20") == true && wrongKey.json["createdAt"] as? String != "2001-02-03T04:05:06.007Z",
            wrongKey.body)
        XCTAssertEqual(try Mirror(server.file).value("SELECT count(*) FROM Event WHERE createdAt LIKE '2001-%'"), "2")

        let plain = try ServedMirror(in: self)
        let ignored = try call(plain, "POST", "/classes/Event", body: #"{"name":"f","createdAt":\#(created)}"#, headers: maintenance.merging(master) { $1 })
        XCTAssertEqual(ignored.status, 201, ignored.body)
        XCTAssertTrue(
            (ignored.json["createdAt"] as? String)?.hasPrefix("20") == true && ignored.json["createdAt"] as? String != "2001-02-03T04:05:06.007Z", ignored.body)
    }
}

extension ParseUsersImportTests {
    /// `--prune` of a user no longer in the export: the user goes from the mirror with the
    /// session `serve` gave it and its role link; the others and their sessions stay.
    func testPruneDeletesAUserWithItsSessions() throws {
        let folder = try temporaryFolder()
        let copy = try CommandRunner.copyFixture("parse-com-users", to: folder)
        let mirror = folder.appendingPathComponent("users.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", copy.path, "--to", mirror.path, "-q"]).status, 0)
        do {
            let server = try ServedMirror(path: mirror.path, allowCustomObjectId: false)
            for user in ["ada", "grace"] { _ = try session(server, user) }
        }
        XCTAssertEqual(try Mirror(mirror).value("SELECT group_concat(user, ',') FROM (SELECT user FROM _Session ORDER BY user)"), "UsAda18150,UsGrace190")
        for file in ["_User.json", "_Join:users:_Role.json"] {
            let url = copy.appendingPathComponent(file)
            var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            // Grace's record: four lines in _User.json; the last link of the join file, and the comma before it.
            let first = try XCTUnwrap(lines.firstIndex { $0.contains("UsGrace190") })
            if file == "_User.json" {
                lines.removeSubrange(first..<(first + 4))
            } else {
                lines.remove(at: first)
                lines[first - 1] = String(lines[first - 1].dropLast())
            }
            try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        }
        let result = try CommandRunner.run(["import", copy.path, "--to", mirror.path, "--prune", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try PruneSummary.parse(result)
        XCTAssertEqual(summary.deleted["_User"], 1)
        XCTAssertEqual(summary.first["_User"], ["UsGrace190"])
        XCTAssertEqual(summary.first["_Role.users"], ["RoAdmins01 → UsGrace190"])
        XCTAssertEqual(try Mirror(mirror).rows("SELECT username FROM _User ORDER BY username"), [["ada"], ["alan"]])
        XCTAssertEqual(try Mirror(mirror).value("SELECT group_concat(user, ',') FROM _Session"), "UsAda18150")
        XCTAssertEqual(try Mirror(mirror).rows(#"SELECT owningId, relatedId FROM "_Join:users:_Role""#), [["RoEditors1", "UsAda18150"]])
    }
}
