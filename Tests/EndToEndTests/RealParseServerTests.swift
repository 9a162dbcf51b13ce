import Foundation
import PorterHTTP
import PorterPostgres
import PorterTestSupport
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ParsePorter against a real Parse Server, run by `scripts/real-parse-server-check` when one is
/// given (skipped otherwise; the suite never reaches off this machine):
///
/// - `PARSE_CONFORMANCE_URL`: a Parse Server (mount path included), and optionally
///   `PARSE_CONFORMANCE_URL_2`, a second one, so that both objectId modes are covered (a server
///   with `allowCustomObjectId` and one without; each check says which it met);
/// - `PARSE_CONFORMANCE_DATABASE_URL` (and `_2`): the server's PostgreSQL database, for the
///   `postgres://` checks;
/// - `PARSE_APPLICATION_ID`, `PARSE_MASTER_KEY` (and `PARSE_MAINTENANCE_KEY`).
///
/// Every check empties the classes it loads first (their objects are deleted): give it a server
/// whose data may go. Each prints a `check:` line with what it found.
final class RealParseServerTests: XCTestCase {
    struct Server {
        let url: String
        let database: String?
        let customIds: Bool
        var mode: String { customIds ? "custom objectIds" : "server objectIds" }
    }

    static let environment = ProcessInfo.processInfo.environment

    /// The servers given, each with whether it takes custom objectIds (asked as the import asks).
    private func servers() throws -> [Server] {
        guard let first = Self.environment["PARSE_CONFORMANCE_URL"] else {
            throw XCTSkip("no real Parse Server given (PARSE_CONFORMANCE_URL): scripts/real-parse-server-check runs these")
        }
        var servers: [Server] = []
        for (url, database) in [
            (first, Self.environment["PARSE_CONFORMANCE_DATABASE_URL"]),
            (Self.environment["PARSE_CONFORMANCE_URL_2"], Self.environment["PARSE_CONFORMANCE_DATABASE_URL_2"]),
        ] {
            guard let url, !url.isEmpty else { continue }
            let probe = try request(url, "POST", "/classes/ParsePorterCheck", #"{"objectId":"","id":"probe"}"#)
            servers.append(Server(url: url, database: database.flatMap { $0.isEmpty ? nil : $0 }, customIds: probe.json["code"] as? Int == 104))
        }
        return servers
    }

    private func server(customIds: Bool) throws -> Server {
        guard let server = try servers().first(where: { $0.customIds == customIds }) else {
            throw XCTSkip("no server given with \(customIds ? "custom" : "server") objectIds")
        }
        return server
    }

    private static func note(_ text: String) {
        print("check: \(text)")
    }

    // MARK: REST

    struct Answer {
        let status: Int
        let body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// One request with the application id and (unless `master` is false) the master key.
    private func request(_ base: String, _ method: String, _ path: String, _ body: String? = nil, master: Bool = true) throws -> Answer {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.setValue(Self.environment["PARSE_APPLICATION_ID"] ?? "", forHTTPHeaderField: "X-Parse-Application-Id")
        if master {
            request.setValue(Self.environment["PARSE_MASTER_KEY"] ?? "", forHTTPHeaderField: "X-Parse-Master-Key")
        } else if let key = Self.environment["PARSE_REST_API_KEY"] {
            request.setValue(key, forHTTPHeaderField: "X-Parse-REST-API-Key")
        }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let (data, response) = try URLSession.shared.blockingData(for: request)
        return Answer(status: response.statusCode, body: data)
    }

    /// `where` as a query parameter.
    private func whereQuery(_ json: String) -> String {
        "where=" + json.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// Deletes every object of the classes (`/purge`) and the classes (`DELETE /schemas`).
    private func reset(_ server: Server, _ classes: [String]) throws {
        for className in classes {
            _ = try request(server.url, "DELETE", "/purge/\(className)")
            if !className.hasPrefix("_") { _ = try request(server.url, "DELETE", "/schemas/\(className)") }
        }
    }

    private func classes(of fixture: String) throws -> [String] {
        let direct = try temporaryFolder().appendingPathComponent("\(fixture)-classes.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent(fixture).path, "--to", direct.path, "-q"]).status, 0)
        return try Mirror(direct).rows("SELECT className FROM _SCHEMA").compactMap { $0[0] }
    }

    private func run(_ arguments: [String]) throws -> CommandRunner.Result {
        try CommandRunner.run(arguments)
    }

    /// The dataset (a fixture's name, or a folder's path) imported into a mirror file directly, and its natural keys.
    private func direct(_ dataset: String) throws -> (content: MirrorContent, keys: [String: [String]]) {
        let file = try temporaryFolder().appendingPathComponent("direct-\(UUID().uuidString.prefix(6)).sqlite")
        let path = dataset.contains("/") ? dataset : CommandRunner.fixtures.appendingPathComponent(dataset).path
        XCTAssertEqual(try run(["import", path, "--to", file.path, "-q"]).status, 0)
        let keys = try RESTImportTests.naturalKeys(file)
        return (try MirrorContent(file, keys: keys), keys)
    }

    /// What the server has of `classes`, pulled into a new mirror.
    private func pulled(_ server: Server, _ classes: [String], keys: [String: [String]], line: UInt = #line) throws -> MirrorContent {
        let file = try temporaryFolder().appendingPathComponent("pulled-\(UUID().uuidString.prefix(6)).sqlite")
        let pull = try run(["pull", "--target", server.url, "--to", file.path, "--classes", classes.joined(separator: ","), "-q"])
        XCTAssertEqual(pull.status, 0, pull.stderr, line: line)
        return try MirrorContent(file, keys: keys)
    }

    // MARK: Checks

    /// REST imports of the fixtures in each objectId mode end equal to direct imports, and a
    /// second run sends no write.
    func testImportsEqualDirectImportsAndReRunsWriteNothing() throws {
        for server in try servers() {
            for fixture in ["library", "campus", "org", "todo", "contacts", "parse-export"] {
                let classes = try classes(of: fixture)
                try reset(server, classes)
                let dataset = CommandRunner.fixtures.appendingPathComponent(fixture).path
                let first = try run(["import", dataset, "--target", server.url, "--json", "-q"])
                if fixture == "parse-export" && !server.customIds {
                    XCTAssertEqual(first.status, 3, first.stderr)
                    Self.note("\(server.mode): parse-export (no natural keys) refused before anything was written, as documented")
                    continue
                }
                XCTAssertEqual(first.status, 0, "\(fixture) \(server.mode): \(first.stderr)")
                let (expected, keys) = try direct(fixture)
                let content = try pulled(server, classes, keys: keys)
                XCTAssertEqual(content, expected, "\(fixture) \(server.mode): " + content.differences(from: expected).joined(separator: "\n"))
                let second = try ImportSummary.parse(try run(["import", dataset, "--target", server.url, "--json", "-q"]))
                let writes = second.requests.filter { ["write", "patch", "relations", "schemas", "files"].contains(String($0.phase.split(separator: " ")[0])) }
                XCTAssertEqual(writes.map(\.requests).reduce(0, +), 0, "\(fixture) \(server.mode): \(second.requests)")
                for tally in second.classes { XCTAssertEqual(tally.unchanged, tally.read, "\(fixture) \(server.mode) \(tally.className)") }
                Self.note(
                    "\(server.mode): \(fixture) (\(content.objectCount) objects, \(content.linkCount) links) equals its direct import; the re-run sent no write"
                )
                try reset(server, classes)
            }
        }
    }

    /// Issue 38 item 2: with custom objectIds, Books pointing at Genres the server refused are refused with them, run after run.
    func testCustomIdsPointersToRefusedObjectsAreRefused() throws {
        let server = try server(customIds: true)
        let classes = try classes(of: "library")
        try reset(server, classes)
        XCTAssertEqual(
            try request(server.url, "POST", "/schemas/Genre", #"{"className":"Genre","fields":{"code":{"type":"String","required":true}}}"#).status, 200)
        let dataset = try CommandRunner.copyFixture("library", to: try temporaryFolder())
        for run in 1...2 {
            let summary = try ImportSummary.parse(try self.run(["import", dataset.path, "--target", server.url, "--json", "-q"]))
            XCTAssertEqual(summary.tally("Genre")?.rejected, 12)
            XCTAssertEqual(summary.tally("Book")?.rejected, 43)
            XCTAssertEqual(summary.tally("Book")?.unchanged, 0)
            Self.note("\(server.mode), run \(run): the server refused 12 Genres (142); 43 Books refused with them, 0 unchanged")
        }
        XCTAssertEqual(try request(server.url, "GET", "/classes/Book?count=1&limit=0&" + whereQuery(#"{"title":{"$exists":true}}"#)).json["count"] as? Int, 0)
        try reset(server, classes)
    }

    /// Issue 38 item 3: a dry run counts links as the run adds them, and shows the plan the server is written by.
    func testDryRunCountsLinksAndShowsThePlan() throws {
        for server in try servers() {
            let classes = try classes(of: "library")
            try reset(server, classes)
            let library = CommandRunner.fixtures.appendingPathComponent("library").path
            let text = try run(["import", library, "--target", server.url, "--dry-run", "-q"])
            let dry = try ImportSummary.parse(try run(["import", library, "--target", server.url, "--dry-run", "--json", "-q"]))
            let real = try ImportSummary.parse(try run(["import", library, "--target", server.url, "--json", "-q"]))
            XCTAssertEqual(dry.relations.map(\.added), real.relations.map(\.added), server.mode)
            XCTAssertEqual(text.stdout.contains("phase 3: relations"), !server.customIds, text.stdout)
            Self.note(
                "\(server.mode): dry run links \(dry.relations.map(\.added)), the run added \(real.relations.map(\.added)); plan: "
                    + text.stdout.split(separator: "\n").prefix { $0.hasPrefix("phase") || $0.hasPrefix("relations") }.joined(separator: " / "))
            try reset(server, classes)
        }
    }

    /// `--prune` deletes what the sources no longer hold, and a dry run shows it first.
    func testPrune() throws {
        for server in try servers() {
            let classes = try classes(of: "library")
            try reset(server, classes)
            let dataset = try CommandRunner.copyFixture("library", to: try temporaryFolder())
            XCTAssertEqual(try run(["import", dataset.path, "--target", server.url, "-q"]).status, 0)
            // A book whose record is one line, gone from books.csv and book_genres.csv.
            let gone = "The Left Hand of Darkness"
            for file in ["books.csv", "book_genres.csv"] {
                let url = dataset.appendingPathComponent(file)
                let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
                try lines.filter { !$0.hasPrefix(gone + ",") && !$0.hasSuffix("," + gone) }.joined(separator: "\n").write(
                    to: url, atomically: true, encoding: .utf8)
            }
            let dry = try run(["import", dataset.path, "--target", server.url, "--prune", "--dry-run", "-q"])
            XCTAssertTrue(dry.stdout.contains("would delete 1 Book object: \(gone)"), dry.stdout)
            let pruned = try ImportSummary.parse(try run(["import", dataset.path, "--target", server.url, "--prune", "--json", "-q"]))
            XCTAssertTrue(pruned.succeeded)
            let (expected, keys) = try direct(dataset.path)
            let content = try pulled(server, classes, keys: keys)
            XCTAssertEqual(content, expected, server.mode + ": " + content.differences(from: expected).joined(separator: "\n"))
            Self.note(
                "\(server.mode): --prune --dry-run named \(gone); --prune deleted it, its ISBN and links; the server equals a direct import of the pruned sources"
            )
            try reset(server, classes)
        }
    }

    /// Users of a Parse export with `--users-without-passwords`: they arrive with their roles; their old passwords do not log in.
    func testUsersWithoutPasswords() throws {
        for server in try servers() {
            let export = CommandRunner.fixtures.appendingPathComponent("parse-com-users").path
            try reset(server, ["Diary", "Note", "_Session", "_Role", "_User"])
            guard server.customIds else {
                // The export's classes have no natural key: objects are identified by objectId.
                let refused = try run(["import", export, "--target", server.url, "--users-without-passwords", "-q"])
                XCTAssertEqual(refused.status, 3)
                XCTAssertTrue(refused.stderr.contains("does not accept custom objectIds"), refused.stderr)
                Self.note("\(server.mode): the Parse export of users (no natural keys) refused before anything was written, as documented")
                continue
            }
            let refused = try run(["import", export, "--target", server.url, "-q"])
            XCTAssertEqual(refused.status, 1)
            XCTAssertTrue(refused.stderr.contains("_User.json: 3 _User objects have password hashes"), refused.stderr)
            let imported = try run(["import", export, "--target", server.url, "--users-without-passwords", "--json", "-q"])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            XCTAssertEqual(
                try request(server.url, "GET", "/classes/_User?count=1&limit=0&" + whereQuery(#"{"username":{"$exists":true}}"#)).json["count"] as? Int, 3)
            let login = try request(server.url, "POST", "/login", #"{"username":"ada","password":"ada-lovelace-1815"}"#, master: false)
            XCTAssertEqual(login.json["code"] as? Int, 101, login.text)
            let admins = try request(server.url, "GET", "/classes/_Role?" + whereQuery(#"{"name":"Admins"}"#)).json["results"] as? [[String: Any]]
            let adminId = try XCTUnwrap(admins?.first?["objectId"] as? String)
            let members = try request(
                server.url, "GET",
                "/classes/_User?" + whereQuery(#"{"$relatedTo":{"object":{"__type":"Pointer","className":"_Role","objectId":"\#(adminId)"},"key":"users"}}"#))
            XCTAssertFalse((members.json["results"] as? [Any] ?? []).isEmpty, members.text)
            Self.note(
                "\(server.mode): 3 users without their hashes refused (named by _User.json), then written with random passwords; ada's old password answers 101; Admins has its users"
            )
            try reset(server, ["Diary", "Note", "_Session", "_Role", "_User"])
        }
    }

    /// Files: uploaded once per content, served back byte for byte; a second run uploads nothing;
    /// the record class is the master key's alone, and one open to clients is refused (issue 34 item 11).
    func testFiles() throws {
        for server in try servers() {
            let gallery = CommandRunner.fixtures.appendingPathComponent("gallery").path
            try reset(server, ["Photo", "PorterFiles"])
            // Parse Server's default files adapter is GridFS: on PostgreSQL alone it stores no file.
            let probe = try request(server.url, "POST", "/files/porter-probe.txt", "probe")
            guard probe.status == 201 else {
                Self.note(
                    "\(server.mode): the server stores no files (\(probe.text)): give it a files adapter (--filesAdapter @parse/fs-files-adapter) to check uploads"
                )
                continue
            }
            let first = try ImportSummary.parse(try run(["import", gallery, "--target", server.url, "--json", "-q"]))
            XCTAssertEqual(first.tally("Photo")?.inserted, 5)
            let photos = try request(server.url, "GET", "/classes/Photo?limit=10").json["results"] as? [[String: Any]] ?? []
            let red = try Data(contentsOf: CommandRunner.fixtures.appendingPathComponent("gallery/images/red.png"))
            let sunset = try XCTUnwrap(photos.first { $0["title"] as? String == "Sunset" }?["image"] as? [String: Any])
            let download = try request(try XCTUnwrap(sunset["url"] as? String), "GET", "", master: false)
            XCTAssertEqual(download.body, red, "the served bytes are the source file's")
            let second = try ImportSummary.parse(try run(["import", gallery, "--target", server.url, "--json", "-q"]))
            XCTAssertEqual(second.tally("Photo")?.unchanged, 5)
            XCTAssertEqual(second.requests.first { $0.phase == "files" }?.requests, 1, "\(second.requests)")
            XCTAssertNotEqual(try request(server.url, "GET", "/classes/PorterFiles", master: false).status, 200, "the upload records are the master key's")
            let open =
                #"{"classLevelPermissions":{"find":{"*":true},"count":{"*":true},"get":{"*":true},"create":{"*":true},"update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}}}"#
            XCTAssertEqual(try request(server.url, "PUT", "/schemas/PorterFiles", open).status, 200)
            let refused = try run(["import", gallery, "--target", server.url, "-q"])
            XCTAssertEqual(refused.status, 3)
            XCTAssertTrue(refused.stderr.contains("is open to clients"), refused.stderr)
            Self.note(
                "\(server.mode): 5 photos, 3 files uploaded, Sunset's served bytes equal red.png; the re-run uploaded nothing; PorterFiles opened to clients: import refused (exit 3)"
            )
            try reset(server, ["Photo", "PorterFiles"])
        }
    }

    /// Issue 38 item 1: compound indexes; `schema push` then `check` passes and a second push changes nothing,
    /// through the server and through its database, whose `pull` gives the index's own key order.
    func testSchemaCompoundIndexes() throws {
        let file = CommandRunner.fixtures.appendingPathComponent("parse-server-7.1.0/compound-index/pushed-schema.json").path
        for server in try servers() {
            try reset(server, ["Tune"])
            XCTAssertEqual(try run(["schema", "push", "--target", server.url, file]).status, 0)
            for target in [server.url] + (server.database.map { [$0] } ?? []) {
                let diff = try run(["schema", "diff", "--target", target, file, "--format", "json"])
                let classes = (try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any])?["classes"] as? [[String: Any]] ?? []
                XCTAssertFalse(classes.contains { $0["className"] as? String == "Tune" }, "\(target): \(diff.stdout)")
                let again = try run(["schema", "push", "--target", target, file])
                XCTAssertFalse(again.stdout.contains("\nTune\n") || again.stdout.hasPrefix("Tune\n"), again.stdout)
            }
            if let database = server.database {
                let pulled = try run(["schema", "pull", "--target", database])
                XCTAssertTrue(pulled.stdout.contains(#""by_title_year": {"title": 1, "year": 1}"#), pulled.stdout)
            }
            let restPull = try run(["schema", "pull", "--target", server.url])
            Self.note(
                "\(server.mode): schema push of Tune's two compound indexes; diff finds nothing and a second push changes nothing"
                    + (server.database != nil ? " (server and database); the database's pull keeps (title, year)" : "")
                    + "; REST pull: "
                    + (restPull.stderr.split(separator: "\n").first { $0.hasPrefix("note:") }.map { String($0.prefix(90)) + "…" } ?? "no note"))
            try reset(server, ["Tune"])
        }
    }

    /// The example migrations build the library app on the server; a second `migrate up` has nothing to do.
    func testMigrate() throws {
        for server in try servers() {
            let classes = try classes(of: "library")
            try reset(server, classes + ["PorterMigrations", "PorterMigrationLock"])
            let migrations = CommandRunner.packageRoot.appendingPathComponent("Migrations").path
            let up = try run(["migrate", "up", "--dir", migrations, "--target", server.url])
            XCTAssertEqual(up.status, 0, up.stderr)
            XCTAssertTrue(up.stdout.contains("applied 6 migrations"), up.stdout)
            let books = try request(server.url, "GET", "/classes/Book?count=1&limit=0&" + whereQuery(#"{"edition":1}"#))
            XCTAssertEqual(books.json["count"] as? Int, 43, books.text)
            let again = try run(["migrate", "up", "--dir", migrations, "--target", server.url])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertFalse(again.stdout.contains("applied 6"), again.stdout)
            Self.note("\(server.mode): migrate up applied the 6 example migrations (43 Books with edition 1); a second run applied none")
            try reset(server, classes + ["PorterMigrations", "PorterMigrationLock"])
        }
    }

    /// `export` and `pull` copy what the server has; a GeoPoint of latitude 100 (stored by Parse
    /// Server) is copied as stored and named (issue 38 item 4), also from the database.
    func testExportAndPull() throws {
        for server in try servers() {
            let classes = try classes(of: "library")
            try reset(server, classes + ["Place"])
            XCTAssertEqual(try run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--target", server.url, "-q"]).status, 0)
            let (expected, keys) = try direct("library")
            let folder = try temporaryFolder().appendingPathComponent("export")
            let export = try run(["export", "--target", server.url, "--to", folder.path, "--classes", classes.joined(separator: ",")])
            XCTAssertEqual(export.status, 0, export.stderr)
            let reimported = try temporaryFolder().appendingPathComponent("reimported.sqlite")
            XCTAssertEqual(try run(["import", folder.path, "--to", reimported.path, "-q"]).status, 0)
            XCTAssertEqual(try MirrorContent(reimported, keys: [:]).objectCount, expected.objectCount)
            XCTAssertEqual(try pulled(server, classes, keys: keys), expected)
            let place = try request(
                server.url, "POST", "/classes/Place", #"{"name":"north of the pole","loc":{"__type":"GeoPoint","latitude":100,"longitude":10}}"#)
            XCTAssertEqual(place.status, 201, place.text)
            for target in [server.url] + (server.database.map { [$0] } ?? []) {
                let copy = try temporaryFolder().appendingPathComponent("place-\(UUID().uuidString.prefix(6)).sqlite")
                let pull = try run(["pull", "--target", target, "--to", copy.path, "--classes", "Place,Book", "-q"])
                XCTAssertEqual(pull.status, 0, pull.stderr)
                XCTAssertTrue(pull.stderr.contains("latitude 100.0 is out of range"), pull.stderr)
                XCTAssertEqual(try Mirror(copy).value("SELECT count(*) FROM Book"), "43")
                let placeExport = try run(["export", "--target", target, "--to", copy.path + ".export", "--classes", "Place"])
                XCTAssertEqual(placeExport.status, 0, placeExport.stderr)
            }
            Self.note(
                "\(server.mode): export of library re-imports to \(expected.objectCount) objects, pull equals the direct import; "
                    + "a Place of latitude 100 (201 from the server) is pulled and exported, named in a note"
                    + (server.database != nil ? ", through REST and from the database" : ""))
            try reset(server, classes + ["Place"])
        }
    }

    /// Issue 38 item 5: a `postgres://` load into the live app, read back through Parse Server:
    /// the Genre Parse Server made is matched by key, `count` is right at once (ANALYZE),
    /// pointers, `include` and `$relatedTo` work.
    func testPostgresLoadReadBackThroughParseServer() throws {
        for server in try servers() {
            guard let database = server.database else { continue }
            let classes = try classes(of: "library")
            try reset(server, classes)
            let fantasy = try request(server.url, "POST", "/classes/Genre", #"{"name":"Fantasy"}"#)
            let fantasyId = try XCTUnwrap(fantasy.json["objectId"] as? String, fantasy.text)
            let load = try run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--target", database, "--json", "-q"])
            XCTAssertEqual(load.status, 0, load.stderr)
            let genres = try request(server.url, "GET", "/classes/Genre?count=1&limit=0")
            XCTAssertEqual(genres.json["count"] as? Int, 12, "a count without where: \(genres.text)")
            let fantasies = try request(server.url, "GET", "/classes/Genre?" + whereQuery(#"{"name":"Fantasy"}"#)).json["results"] as? [[String: Any]]
            XCTAssertEqual(fantasies?.compactMap { $0["objectId"] as? String }, [fantasyId])
            let books = try request(
                server.url, "GET",
                "/classes/Book?include=genre&limit=100&" + whereQuery(#"{"genre":{"__type":"Pointer","className":"Genre","objectId":"\#(fantasyId)"}}"#))
            let included = books.json["results"] as? [[String: Any]] ?? []
            XCTAssertEqual(included.count, 5, books.text)
            XCTAssertEqual(included.compactMap { ($0["genre"] as? [String: Any])?["name"] as? String }, Array(repeating: "Fantasy", count: included.count))
            let related = try request(
                server.url, "GET",
                "/classes/Book?" + whereQuery(#"{"$relatedTo":{"object":{"__type":"Pointer","className":"Genre","objectId":"\#(fantasyId)"},"key":"books"}}"#))
            XCTAssertEqual((related.json["results"] as? [Any])?.count, 9, related.text)
            Self.note(
                "\(server.mode): postgres:// load into the live app: Parse Server counts 12 Genres at once, its own Fantasy (\(fantasyId)) kept and matched, "
                    + "5 Books include it, $relatedTo gives its 9 books")
            try reset(server, classes)
        }
    }

    /// Issue 38 item 11: through a proxy failing 15% of requests (errors, dropped connections,
    /// 3 s stalls), with the default 30 s timeout, the campus arrives exactly and no dropped
    /// connection waits for the timeout.
    func testThroughAFaultInjectingProxy() throws {
        for server in try servers() {
            let classes = try classes(of: "campus")
            try reset(server, classes)
            let url = try XCTUnwrap(URL(string: server.url))
            var origin = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            origin.path = ""
            let injector = FaultInjector(ForwardingProxy(target: origin.url!), settings: .init(share: 0.15, seed: 20_261_129, stallSeconds: 3))
            let proxy = HTTPServer(handler: injector)
            let port = try proxy.start()
            defer { proxy.stop() }
            let started = Date()
            let result = try run([
                "import", CommandRunner.fixtures.appendingPathComponent("campus").path, "--target", "http://127.0.0.1:\(port)\(url.path)", "-q",
            ])
            let seconds = Date().timeIntervalSince(started)
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertLessThan(seconds, 60)
            let (expected, keys) = try direct("campus")
            let content = try pulled(server, classes, keys: keys)
            XCTAssertEqual(content, expected, server.mode + ": " + content.differences(from: expected).joined(separator: "\n"))
            Self.note(
                "\(server.mode): campus through the fault proxy (\(injector.faultCount) faults: \(injector.injected.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "))) "
                    + String(format: "in %.1f s, exactly", seconds))
            try reset(server, classes)
        }
    }

    /// Issue 38 item 12: a re-run reads Book.authors target by target (one query per Author, through the join table's key).
    func testReRunReadsLinksFromTheSmallerSide() throws {
        for server in try servers() {
            let classes = try classes(of: "library")
            try reset(server, classes)
            let library = CommandRunner.fixtures.appendingPathComponent("library").path
            XCTAssertEqual(try run(["import", library, "--target", server.url, "-q"]).status, 0)
            let again = try ImportSummary.parse(try run(["import", library, "--target", server.url, "--json", "-q"]))
            XCTAssertEqual(again.requests.first { $0.phase == "read Book.authors" }?.operations, 42, "\(again.requests)")
            Self.note(
                "\(server.mode): re-run read Book.authors with 42 queries (one per Author), not 43 $relatedTo queries; "
                    + "\(again.requests.map(\.requests).reduce(0, +)) requests in all")
            try reset(server, classes)
        }
    }
}
