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

    /// `Fixtures/bad-postgres/`: each dataset fails as its `expected-error.txt` says and leaves
    /// the database empty.
    func testBadPostgresDatasets() throws {
        let root = CommandRunner.fixtures.appendingPathComponent("bad-postgres")
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            let folder = root.appendingPathComponent(name)
            let expected = try String(contentsOf: folder.appendingPathComponent("expected-error.txt"), encoding: .utf8)
            let result = try CommandRunner.run(["import", folder.path, "--to", url, "--quiet"])
            for line in expected.split(separator: "\n") {
                if line.hasPrefix("exit: ") { XCTAssertEqual(String(result.status), String(line.dropFirst(6)), "\(name): \(result.stderr)") }
                if line.hasPrefix("contains: ") { XCTAssertTrue(result.stderr.contains(line.dropFirst(10)), "\(name): \(result.stderr)") }
            }
            XCTAssertNil(try query(#"SELECT to_regclass('"Note"')::text"#), "\(name): nothing is left behind")
        }
    }

    /// Commands that do not read PostgreSQL yet say so instead of taking the URL for a file.
    func testExportRefusesAPostgresURL() throws {
        let folder = try CommandRunner.temporaryDirectory(self)
        let result = try CommandRunner.run(["export", "--target", urlWithPassword, "--to", folder.appendingPathComponent("out").path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("a PostgreSQL database can be imported into, not yet read"), result.stderr)
        XCTAssertFalse(result.stderr.contains("not-to-be-shown"), result.stderr)
    }
}
