import Foundation
import PorterPostgres
import XCTest

/// `pull postgres://…`: a Parse Server's PostgreSQL database (the tests' private cluster) copied
/// into a mirror, users' password hashes included, then pulled again incrementally.
final class PostgresPullTests: XCTestCase {
    /// The URL of a new database of the cluster.
    private func newDatabase() throws -> String { try PostgresCluster.shared().createDatabase() }

    /// `url` with a password in it, which no output may show (the cluster trusts loopback).
    private func withPassword(_ url: String) -> String { url.replacingOccurrences(of: "postgres@", with: "postgres:not-to-be-shown@") }

    private func sql(_ url: String, _ statement: String) throws -> [[String?]] {
        let db = try PostgresConnection(url: url)
        defer { db.close() }
        return try db.execute(statement)
    }

    /// `parse-porter ARGUMENTS… --quiet`, which must succeed.
    @discardableResult
    private func run(_ arguments: [String], line: UInt = #line) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(arguments + ["--quiet"])
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", line: line)
        XCTAssertFalse((result.stdout + result.stderr).contains("not-to-be-shown"), "the password was printed: \(result.stdout) \(result.stderr)", line: line)
        return result
    }

    /// `pull --json` from `url` (given with a password) into `mirror`; its summary.
    private func pull(_ url: String, to mirror: URL, _ arguments: [String] = [], line: UInt = #line) throws -> PullTests.Summary {
        let result = try run(["pull", "--target", withPassword(url), "--to", mirror.path, "--json"] + arguments, line: line)
        return try JSONDecoder().decode(PullTests.Summary.self, from: Data(result.stdout.utf8))
    }

    /// A log-in through `serve` on a mirror: the session token, or `nil` when it is refused.
    private func logIn(_ server: ServedMirror, _ username: String, _ password: String) throws -> String? {
        let answer = try RESTImportTests.curl(server, "POST", "/login", #"{"username":"\#(username)","password":"\#(password)"}"#)
        guard answer.status == 0 else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any])?["sessionToken"] as? String
    }

    /// A Parse.com export with users loaded into PostgreSQL, pulled: every class, object, link,
    /// schema (permissions, indexes) and `_User` hash arrives, and the users log in through
    /// `serve` on the mirror with their old passwords. The summary line and the watermark name
    /// the database without its password.
    func testPullCopiesTheDatabaseAndUsersLogInWithTheirPasswords() throws {
        let url = try newDatabase()
        try run(["import", CommandRunner.fixtures.appendingPathComponent("parse-com-users").path, "--to", withPassword(url)])
        let mirror = try temporaryFolder().appendingPathComponent("pulled.sqlite")
        let result = try run(["pull", "--target", withPassword(url), "--to", mirror.path])
        XCTAssertTrue(result.stdout.contains("pulled \(url) into \(mirror.path) in "), result.stdout)

        let pulled = try Mirror(mirror)
        for className in try sql(url, #"SELECT "className" FROM "_SCHEMA" ORDER BY 1"#).map({ $0[0]! }) {
            let ids = try sql(url, #"SELECT "objectId" FROM "\#(className)" ORDER BY 1"#).map { $0[0] }
            XCTAssertFalse(ids.isEmpty, className)
            XCTAssertEqual(try pulled.rows("SELECT objectId FROM \"\(className)\" ORDER BY 1").map { $0[0] }, ids, className)
        }
        for table in ["_Join:users:_Role", "_Join:roles:_Role"] {
            let links = try sql(url, #"SELECT "owningId" || ' ' || "relatedId" FROM "\#(table)" ORDER BY 1"#)
            XCTAssertFalse(links.isEmpty, table)
            XCTAssertEqual(try pulled.rows("SELECT owningId || ' ' || relatedId FROM \"\(table)\" ORDER BY 1"), links, table)
        }
        let hashes = try sql(url, #"SELECT "username", "_hashed_password" FROM "_User" ORDER BY 1"#)
        XCTAssertEqual(hashes.compactMap { $0[1] }.count, 3)
        XCTAssertEqual(try pulled.rows("SELECT username, _hashed_password FROM _User ORDER BY 1"), hashes)
        let userSchema = try XCTUnwrap(try pulled.value("SELECT schema FROM _SCHEMA WHERE className = '_User'"))
        XCTAssertTrue(userSchema.contains(#""protectedFields":{"*":["email"]}"#), userSchema)
        XCTAssertTrue(userSchema.contains(#""displayName_1":{"displayName":1}"#), userSchema)
        XCTAssertFalse(userSchema.contains("password"), userSchema)
        XCTAssertEqual(Set(try pulled.rows("SELECT server FROM _PorterPull").map { $0[0] }), [url])

        let server = try ServedMirror(path: mirror.path, allowCustomObjectId: false)
        for (username, password) in ParseUsersImportTests.passwords {
            XCTAssertEqual(try logIn(server, username, password)?.hasPrefix("r:"), true, username)
        }
        XCTAssertNil(try logIn(server, "ada", ParseUsersImportTests.passwords["grace"]!))
        server.stop()

        // A password change (Parse Server sets the new hash and updatedAt, RestWrite.js) arrives with the next pull.
        _ = try sql(
            url,
            """
            UPDATE "_User" SET "_hashed_password" = (SELECT "_hashed_password" FROM "_User" WHERE "username" = 'grace'),
                "updatedAt" = now() WHERE "username" = 'ada'
            """)
        let watermark = try XCTUnwrap(try Mirror(mirror).value("SELECT watermark FROM _PorterPull WHERE className = '_User'"))
        let since = try XCTUnwrap(Int(try sql(url, #"SELECT count(*) FROM "_User" WHERE "updatedAt" >= '\#(watermark)'"#)[0][0] ?? ""))
        let again = try pull(url, to: mirror)
        let users = try again.tally("_User")
        XCTAssertEqual([users.read, users.updated, users.unchanged, users.added], [since, 1, since - 1, 0])
        XCTAssertEqual(since, 2, "ada, and alan at the watermark")
        let restarted = try ServedMirror(path: mirror.path, allowCustomObjectId: false)
        XCTAssertNotNil(try logIn(restarted, "ada", ParseUsersImportTests.passwords["grace"]!))
        XCTAssertNil(try logIn(restarted, "ada", ParseUsersImportTests.passwords["ada"]!))
    }

    /// A user whose `_hashed_password` became NULL in the database (and whose `updatedAt` moved
    /// on) loses the hash in the mirror at the next pull: `serve` no longer logs them in with the
    /// old password. The other users keep theirs.
    func testAHashClearedInTheDatabaseIsClearedInTheMirror() throws {
        let url = try newDatabase()
        try run(["import", CommandRunner.fixtures.appendingPathComponent("parse-com-users").path, "--to", withPassword(url)])
        let mirror = try temporaryFolder().appendingPathComponent("pulled.sqlite")
        _ = try pull(url, to: mirror)
        XCTAssertEqual(try Mirror(mirror).rows("SELECT count(_hashed_password) FROM _User"), [["3"]])

        _ = try sql(url, #"UPDATE "_User" SET "_hashed_password" = NULL, "updatedAt" = now() WHERE "username" = 'ada'"#)
        let again = try pull(url, to: mirror)
        XCTAssertEqual(try again.tally("_User").updated, 1)
        XCTAssertEqual(
            try Mirror(mirror).rows("SELECT username, _hashed_password FROM _User ORDER BY 1"),
            try sql(url, #"SELECT "username", "_hashed_password" FROM "_User" ORDER BY 1"#))
        XCTAssertEqual(try Mirror(mirror).rows("SELECT username FROM _User WHERE _hashed_password IS NULL"), [["ada"]])

        let server = try ServedMirror(path: mirror.path, allowCustomObjectId: false)
        defer { server.stop() }
        XCTAssertNil(try logIn(server, "ada", ParseUsersImportTests.passwords["ada"]!), "the old password no longer logs ada in")
        XCTAssertNotNil(try logIn(server, "grace", ParseUsersImportTests.passwords["grace"]!))
    }

    /// mirror → PostgreSQL → mirror: each fixture's mirror, exported in Parse Server's MongoDB
    /// layout (which carries the hashes) and imported into PostgreSQL, pulled into a new mirror,
    /// gives the same mirror: every row of every table (ids, timestamps, ACLs, typed values,
    /// hashes), every link, and each class's whole schema with its permissions and indexes. Two
    /// values come back as Parse Server itself stores them (`PostgresStorageAdapter.js`): a
    /// File as its name alone (`createObject` writes `.name`, `postgresObjectToParseObject`
    /// reads `{__type: 'File', name}`), a Polygon's ring closed (`convertPolygonToSQL` appends
    /// the first vertex when the last differs).
    func testMirrorToPostgresToMirrorIsIdentical() throws {
        let directory = try temporaryFolder()
        for fixture in MongoLayoutRoundTripTests.fixtures {
            let url = try newDatabase()
            let original = directory.appendingPathComponent("\(fixture).sqlite"), folder = directory.appendingPathComponent("\(fixture)-mongo")
            try run(["import", CommandRunner.fixtures.appendingPathComponent(fixture).path, "--to", original.path])
            try run(["export", "--from", original.path, "--to", folder.path, "--format", "mongo"])
            try run(["import", folder.path, "--to", withPassword(url)])
            let copy = directory.appendingPathComponent("\(fixture)-pulled.sqlite")
            let summary = try pull(url, to: copy)
            XCTAssertEqual(summary.classes.map(\.read), summary.classes.map(\.added), fixture)
            let polygons = Set(MongoLayoutRoundTripTests.polygonFields.values)
            MirrorSnapshot.assertEqual(
                try MirrorSnapshot(copy, leavingOut: polygons, wholeSchemas: true, droppingFileURLs: true),
                try MirrorSnapshot(original, leavingOut: polygons, wholeSchemas: true, droppingFileURLs: true), "\(fixture) via PostgreSQL")
            try MongoLayoutRoundTripTests.assertRingsClosed(from: original, in: copy, "\(fixture) via PostgreSQL")
        }
    }

    /// A `point` with a latitude of 100, as Parse Server 7.1.0 stores one it was sent
    /// (`Fixtures/parse-server-7.1.0/geopoint-latitude-100.json`: the column holds `(10,100)`),
    /// made `pull` and `export` from the database exit 3 having copied nothing. Both copy
    /// everything now, the point as stored, and name it.
    func testAPointOutOfRangeIsCopiedAsStoredAndNamed() throws {
        let directory = try temporaryFolder()
        let url = try newDatabase()
        try run(["import", CommandRunner.fixtures.appendingPathComponent("recipes").path, "--to", url])
        _ = try sql(url, #"UPDATE "Kitchen" SET location = point(10, 100) WHERE name = 'Café Müller'"#)
        let id = try XCTUnwrap(try sql(url, #"SELECT "objectId" FROM "Kitchen" WHERE name = 'Café Müller'"#).first?.first ?? nil)
        let named = "Kitchen \(id) location: latitude 100.0 is out of range -90...90"
        let copy = directory.appendingPathComponent("pulled.sqlite")
        let result = try run(["pull", "--target", withPassword(url), "--to", copy.path])
        XCTAssertTrue(result.stderr.contains("note: 1 value the source stores is no valid Parse value") && result.stderr.contains(named), result.stderr)
        XCTAssertEqual(try Mirror(copy).value("SELECT count(*) FROM Kitchen"), "6")
        XCTAssertEqual(try Mirror(copy).value("SELECT location FROM Kitchen WHERE objectId = '\(id)'"), #"{"__type":"GeoPoint","latitude":100,"longitude":10}"#)
        let export = try run(["export", "--target", withPassword(url), "--to", directory.appendingPathComponent("export").path, "--classes", "Kitchen"])
        XCTAssertTrue(export.stderr.contains(named), export.stderr)
        let kitchens = try String(contentsOf: directory.appendingPathComponent("export/Kitchen.json"), encoding: .utf8)
        XCTAssertTrue(kitchens.contains(#""location":{"__type":"GeoPoint","latitude":100,"longitude":10}"#), kitchens)
    }

    /// A second pull reads only the rows updated since the first one's watermark; `--full` also
    /// deletes from the mirror the objects deleted from the database, with their links.
    func testRepeatedPullReadsOnlyChangedRowsAndFullOneDeletes() throws {
        let url = try newDatabase()
        try run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", url])
        let classes = ["Author", "Book", "Genre", "ISBN", "Publisher"]
        // An import gives every row one updatedAt: one row per class made newer is alone at the watermark.
        for className in classes {
            _ = try sql(
                url,
                #"UPDATE "\#(className)" SET "updatedAt" = "updatedAt" + interval '1 second' WHERE "objectId" = (SELECT max("objectId") FROM "\#(className)")"#)
        }
        let mirror = try temporaryFolder().appendingPathComponent("pulled.sqlite")
        let first = try pull(url, to: mirror)
        XCTAssertEqual(try first.tally("Book").added, 43)
        let books = try sql(url, #"SELECT "objectId" FROM "Book" ORDER BY 1"#).map { $0[0]! }
        let (changed, deleted) = (books[0], books[1])
        _ = try sql(url, #"UPDATE "Book" SET "publishingYear" = 1111, "updatedAt" = "updatedAt" + interval '1 minute' WHERE "objectId" = '\#(changed)'"#)
        _ = try sql(url, #"DELETE FROM "Book" WHERE "objectId" = '\#(deleted)'"#)
        let deletedLinks = Int(try Mirror(mirror).value("SELECT count(*) FROM \"_Join:authors:Book\" WHERE owningId = '\(deleted)'") ?? "") ?? 0
        XCTAssertGreaterThan(deletedLinks, 0)

        let second = try pull(url, to: mirror)
        let book = try second.tally("Book")
        XCTAssertEqual([book.read, book.added, book.updated, book.unchanged, book.deleted], [2, 0, 1, 1, 0])
        for className in classes where className != "Book" {
            let tally = try second.tally(className)
            XCTAssertEqual([tally.read, tally.unchanged], [1, 1], className)
        }
        let copied = try Mirror(mirror)
        XCTAssertEqual(try copied.value("SELECT publishingYear FROM Book WHERE objectId = '\(changed)'"), "1111")
        XCTAssertEqual(try copied.value("SELECT count(*) FROM Book WHERE objectId = '\(deleted)'"), "1", "a deletion is not noticed without --full")

        let full = try pull(url, to: mirror, ["--full"])
        XCTAssertEqual(full.classes.map(\.deleted), [0, 1, 0, 0, 0])
        XCTAssertEqual(full.classes.map(\.added) + full.classes.map(\.updated), Array(repeating: 0, count: 10))
        XCTAssertEqual(try full.relation("Book.authors").removed, deletedLinks)
        XCTAssertEqual(try copied.value("SELECT count(*) FROM Book"), "42")
        XCTAssertEqual(try copied.value("SELECT count(*) FROM Book WHERE objectId = '\(deleted)'"), "0")
        XCTAssertEqual(try copied.value("SELECT count(*) FROM \"_Join:authors:Book\" WHERE owningId = '\(deleted)'"), "0")
    }

    /// An unreachable server, a database that does not exist and one Parse Server never used
    /// are target errors (exit 3) naming the URL without its password; no mirror is left.
    func testBadDatabasesAreRefusedWithoutShowingThePassword() throws {
        let directory = try temporaryFolder()
        let cluster = try PostgresCluster.shared()
        let empty = try newDatabase()
        for (url, expected) in [
            ("postgres://postgres@127.0.0.1:1/parse", "cannot connect"),
            (cluster.url(database: "no_such_database"), "cannot connect"),
            (empty, "has no _SCHEMA table: not a Parse Server database"),
        ] {
            let mirror = directory.appendingPathComponent("never.sqlite")
            let result = try CommandRunner.run(["pull", "--target", withPassword(url), "--to", mirror.path])
            XCTAssertEqual(result.status, 3, "\(url): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("\(url): \(expected)"), result.stderr)
            XCTAssertFalse((result.stdout + result.stderr).contains("not-to-be-shown"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path), url)
        }
        let intoDatabase = try CommandRunner.run(["pull", "--target", withPassword(empty), "--to", withPassword(empty)])
        XCTAssertEqual(intoDatabase.status, 2, intoDatabase.stderr)
        XCTAssertTrue(intoDatabase.stderr.contains("--to \(empty): pull writes into a SQLite mirror file"), intoDatabase.stderr)
        XCTAssertFalse(intoDatabase.stderr.contains("not-to-be-shown"), intoDatabase.stderr)
    }
}
