import Foundation
import PorterPostgres
import PorterTestSupport
import XCTest

/// `import --to postgres://…` from the command line, against the tests' private PostgreSQL.
final class PostgresImportCommandTests: XCTestCase {
    var url = ""
    /// The URL with a password in it, which no output may show (the cluster trusts loopback).
    var urlWithPassword: String { url.replacingOccurrences(of: "postgres@", with: "postgres:not-to-be-shown@") }

    override func setUpWithError() throws {
        url = try PostgresCluster.shared().createDatabase()
    }

    func query(_ sql: String) throws -> String? {
        let db = try PostgresConnection(url: url)
        defer { db.close() }
        return try db.execute(sql).first?.first ?? nil
    }

    /// A dry run writes nothing and states both caveats of a direct load; the real run writes
    /// the classes, links and schema rows.
    func testImportAndDryRun() throws {
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        let dry = try CommandRunner.run(["import", library, "--to", urlWithPassword, "--dry-run", "--quiet"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("note: Cloud Code triggers (beforeSave, afterSave) do not run"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("note: A running Parse Server keeps its schema cache: restart it"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("dry run: nothing was written to \(url)"), dry.stdout)
        XCTAssertFalse((dry.stdout + dry.stderr).contains("not-to-be-shown"))
        XCTAssertNil(try query(#"SELECT to_regclass('"_SCHEMA"')::text"#), "a dry run creates nothing")

        let real = try CommandRunner.run(["import", library, "--to", urlWithPassword, "--quiet"])
        XCTAssertEqual(real.status, 0, real.stderr)
        XCTAssertTrue(real.stdout.contains("imported into \(url)"), real.stdout)
        XCTAssertFalse((real.stdout + real.stderr).contains("not-to-be-shown"))
        XCTAssertEqual(try query(#"SELECT count(*) FROM "Book""#), "43")
        XCTAssertEqual(try query(#"SELECT count(*) FROM "_Join:books:Genre""#), "72")
        XCTAssertEqual(try query(#"SELECT count(*) FROM "_SCHEMA""#), "5")
    }

    /// Into a live app, objects are matched by their natural key, as over REST, not by the
    /// objectId the loader derives from it. The database is a real Parse Server 7.1.0's after
    /// `POST /classes/Genre {"name":"Fantasy"}` (`Fixtures/parse-server-7.1.0`): before, the
    /// import wrote a second Fantasy. Pointers and links name the Genre under its own id, a
    /// second run changes nothing, and `--prune` keeps it. The import `ANALYZE`s what it
    /// wrote: Parse Server answers a `count` without `where` from the planner's estimate.
    func testImportIntoALiveAppMatchesObjectsByNaturalKey() throws {
        try PostgresCluster.shared().load(sqlFile: CommandRunner.fixtures.appendingPathComponent("parse-server-7.1.0/live-app-one-genre.sql").path, into: url)
        let parseServerId = "zDFAHQuGVD"
        XCTAssertEqual(try query(#"SELECT "objectId" FROM "Genre" WHERE name = 'Fantasy'"#), parseServerId)
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        let first = try ImportSummary.parse(try CommandRunner.run(["import", library, "--to", url, "--json"]))
        XCTAssertEqual(first.tally("Genre")?.inserted, 11)
        XCTAssertEqual(first.tally("Genre")?.unchanged, 1)
        XCTAssertEqual(try query(#"SELECT count(*) FROM "Genre""#), "12")
        XCTAssertEqual(try query(#"SELECT string_agg("objectId", ',') FROM "Genre" WHERE name = 'Fantasy'"#), parseServerId)
        XCTAssertEqual(try query(#"SELECT count(*) FROM "Book" WHERE genre = 'zDFAHQuGVD'"#), "5")
        XCTAssertEqual(try query(#"SELECT count(*) FROM "Book" b WHERE NOT EXISTS (SELECT 1 FROM "Genre" g WHERE g."objectId" = b.genre)"#), "0")
        XCTAssertEqual(try query(#"SELECT count(*) FROM "_Join:books:Genre" WHERE "owningId" = 'zDFAHQuGVD'"#), "9")
        XCTAssertEqual(
            try query(#"SELECT count(*) FROM "_Join:books:Genre" j WHERE NOT EXISTS (SELECT 1 FROM "Genre" g WHERE g."objectId" = j."owningId")"#), "0")
        XCTAssertEqual(try query(#"SELECT reltuples::int FROM pg_class WHERE relname = 'Book'"#), "43", "the statistics Parse Server counts from")
        XCTAssertEqual(try query(#"SELECT reltuples::int FROM pg_class WHERE relname = 'Genre'"#), "12")
        let second = try ImportSummary.parse(try CommandRunner.run(["import", library, "--to", url, "--prune", "--json"]))
        for tally in second.classes { XCTAssertEqual(tally.unchanged, tally.read, tally.className) }
        XCTAssertEqual(second.relations.map(\.added).reduce(0, +), 0)
        XCTAssertEqual(try query(#"SELECT string_agg("objectId", ',') FROM "Genre" WHERE name = 'Fantasy'"#), parseServerId, "--prune kept it")
        XCTAssertEqual(try query(#"SELECT count(*) FROM "_Join:books:Genre""#), "72")
    }

    /// `export --where` from the database writes the objects the query finds, with their links;
    /// an operator a database read cannot take is a usage error naming it, and nothing is written.
    func testExportWhere() throws {
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        XCTAssertEqual(try CommandRunner.run(["import", library, "--to", url, "--quiet"]).status, 0)
        let folder = try temporaryFolder("postgres-where")
        let export = try CommandRunner.run([
            "export", "--target", urlWithPassword, "--to", folder.appendingPathComponent("old").path, "--classes", "Book",
            "--where", #"{"publishingYear": {"$lt": 1960}, "description": {"$exists": true}}"#,
        ])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertFalse((export.stdout + export.stderr).contains("not-to-be-shown"))
        let data = try Data(contentsOf: folder.appendingPathComponent("old/Book.json"))
        let json = try JSONSerialization.jsonObject(with: data)
        let books = try XCTUnwrap(((json as? [String: Any])?["results"] ?? json) as? [[String: Any]])
        let expected = try XCTUnwrap(
            query(#"SELECT string_agg(title, '|' ORDER BY title) FROM "Book" WHERE "publishingYear" < 1960 AND description IS NOT NULL"#))
        XCTAssertEqual(books.compactMap { $0["title"] as? String }.sorted().joined(separator: "|"), expected)
        XCTAssertGreaterThan(books.count, 5)

        let refused = try CommandRunner.run([
            "export", "--target", urlWithPassword, "--to", folder.appendingPathComponent("regex").path, "--classes", "Book",
            "--where", #"{"title": {"$regex": "^D"}}"#,
        ])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("where: title: $regex is not supported when reading a PostgreSQL database"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("regex/Book.json").path))
    }

    /// `Fixtures/bad-postgres/`: each dataset fails as its `expected-error.txt` says and leaves
    /// the database empty (no class table, no `_SCHEMA`).
    func testBadPostgresDatasets() throws {
        let root = CommandRunner.fixtures.appendingPathComponent("bad-postgres")
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            let folder = root.appendingPathComponent(name)
            let expected = try String(contentsOf: folder.appendingPathComponent("expected-error.txt"), encoding: .utf8)
            let result = try CommandRunner.run(["import", folder.path, "--to", url, "--quiet"])
            for line in expected.split(separator: "\n") {
                if line.hasPrefix("exit: ") { XCTAssertEqual(String(result.status), String(line.dropFirst(6)), "\(name): \(result.stderr)") }
                if line.hasPrefix("contains: ") { XCTAssertTrue(result.stderr.contains(line.dropFirst(10)), "\(name): \(result.stderr)") }
                if line.hasPrefix("lacks: ") { XCTAssertFalse(result.stderr.contains(line.dropFirst(7)), "\(name): \(result.stderr)") }
            }
            XCTAssertNil(try query(#"SELECT to_regclass('"Note"')::text"#), "\(name): nothing is left behind")
            XCTAssertNil(try query(#"SELECT to_regclass('"_SCHEMA"')::text"#), "\(name): nothing is left behind")
            // validate --target finds what the database cannot name as the import does (a NUL only shows when written).
            guard expected.contains("PostgreSQL keeps of a name") else { continue }
            let validated = try CommandRunner.run(["validate", folder.path, "--target", url, "--quiet"])
            XCTAssertEqual(validated.status, 1, "\(name): \(validated.stdout)\(validated.stderr)")
            for line in expected.split(separator: "\n") where line.hasPrefix("contains: ") {
                XCTAssertTrue((validated.stdout + validated.stderr).contains(line.dropFirst(10)), "\(name): validate: \(validated.stdout)\(validated.stderr)")
            }
        }
    }

    /// mirror → PostgreSQL → mirror: a mirror's export imported into PostgreSQL, exported from
    /// there and imported into a new mirror gives the same objects, timestamps, ACLs, links and
    /// schemas (compared as JSON: PostgreSQL's `jsonb` keeps no key order, and rows come in
    /// objectId order).
    func testMirrorToPostgresToMirrorRoundTrip() throws {
        for dataset in ["library", "parse-com-users"] {
            let folder = try temporaryFolder()
            let database = try PostgresCluster.shared().createDatabase()
            func run(_ arguments: [String]) throws {
                let result = try CommandRunner.run(arguments + ["--quiet"])
                XCTAssertEqual(result.status, 0, "\(dataset): \(arguments): \(result.stderr)")
            }
            let first = folder.appendingPathComponent("first.sqlite").path, second = folder.appendingPathComponent("second.sqlite").path
            try run(["import", CommandRunner.fixtures.appendingPathComponent(dataset).path, "--target", first])
            try run(["export", "--target", first, "--to", folder.appendingPathComponent("from-mirror").path])
            try run(["import", folder.appendingPathComponent("from-mirror").path, "--target", database])
            try run(["export", "--target", database, "--to", folder.appendingPathComponent("from-postgres").path])
            try run(["import", folder.appendingPathComponent("from-postgres").path, "--target", second])
            try run(["export", "--target", second, "--to", folder.appendingPathComponent("back-in-mirror").path])
            let expected = try exported(folder.appendingPathComponent("from-mirror"))
            XCTAssertFalse(expected.isEmpty)
            XCTAssertEqual(try exported(folder.appendingPathComponent("from-postgres")), expected, dataset)
            XCTAssertEqual(try exported(folder.appendingPathComponent("back-in-mirror")), expected, dataset)
        }
    }

    /// Each file of an export folder as JSON values: its results (or entries) sorted, so that
    /// order does not count; `schema.json`'s classes by name.
    func exported(_ folder: URL) throws -> [String: NSArray] {
        var files: [String: NSArray] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".json") {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(name)))
            let items = ((json as? [String: Any])?["results"] as? [Any]) ?? (json as? [Any]) ?? []
            files[name] =
                items.map { item -> (String, Any) in
                    let data = (try? JSONSerialization.data(withJSONObject: item, options: [.sortedKeys])) ?? Data()
                    return (String(decoding: data, as: UTF8.self), item)
                }.sorted { $0.0 < $1.0 }.map(\.0) as NSArray
        }
        return files
    }
}
