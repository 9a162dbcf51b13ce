import Foundation
import PorterPostgres
import PorterTestSupport
import XCTest

/// An import into PostgreSQL stopped while its rows are on their way (its COPY streams open on
/// both connections: the class tables, and the join tables in the staging schema) leaves the
/// database as it was: killed outright, or stopped by Ctrl-C.
final class PostgresInterruptedImportTests: XCTestCase {
    var url = ""

    override func setUpWithError() throws {
        url = try PostgresCluster.shared().createDatabase()
    }

    /// SIGKILL: no rollback runs in the client; PostgreSQL ends both transactions when the
    /// connections drop.
    func testAKillMidLoadLeavesTheDatabaseAsItWas() throws {
        let (process, before) = try startLargeImportOnTopOfTheLibrary()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        try waitForBackendsToEnd()
        XCTAssertEqual(try state(), before)
    }

    /// Ctrl-C: the import rolls back (exit 130) and drops the staging schema.
    func testACtrlCMidLoadLeavesTheDatabaseAsItWas() throws {
        let (process, before) = try startLargeImportOnTopOfTheLibrary()
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        try waitForBackendsToEnd()
        XCTAssertEqual(try state(), before)
    }

    /// Imports the library fixture, then starts an import of 60,000 generated books (their
    /// authors a relation) and waits until both its COPY streams are open: one into a class
    /// table, one into a join table in the staging schema. The database's state before it.
    private func startLargeImportOnTopOfTheLibrary() throws -> (Process, [String]) {
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        XCTAssertEqual(try CommandRunner.run(["import", library, "--to", url, "--quiet"]).status, 0)
        let before = try state()
        let folder = try temporaryFolder("postgres-interrupted")
        var authors = "name\n", books = "title,year,authors\n"
        for index in 0..<2_000 { authors += "Writer \(index)\n" }
        for index in 0..<60_000 { books += "Volume \(index),\(1900 + index % 120),Writer \(index % 2_000);Writer \((index * 7) % 2_000)\n" }
        try authors.write(to: folder.appendingPathComponent("writers.csv"), atomically: true, encoding: .utf8)
        try books.write(to: folder.appendingPathComponent("volumes.csv"), atomically: true, encoding: .utf8)
        try """
        version: 1
        classes:
          Writer:
            source: writers.csv
            key: [name]
            fields:
              name: String!
          Volume:
            source: volumes.csv
            key: [title]
            fields:
              title: String!
              year: Number
              authors: {type: Relation<Writer>, split: ";"}
        """.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        let process = try CommandRunner.start(["import", folder.path, "--to", url, "--quiet"])
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let deadline = Date().addingTimeInterval(120)
        var streams: [String] = []
        while process.isRunning && Date() < deadline {
            streams = try activeCopies()
            if streams.contains(where: { $0.contains("\"Volume\"") }) && streams.contains(where: { $0.contains("_Join:authors:Volume") }) { break }
            usleep(20_000)
        }
        XCTAssertTrue(process.isRunning, "the import ended before both its COPY streams were seen open: \(streams)")
        return (process, before)
    }

    /// The COPY statements running in the database.
    private func activeCopies() throws -> [String] {
        let db = try PostgresConnection(url: url)
        defer { db.close() }
        return try db.execute("SELECT query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'COPY %'")
            .compactMap { $0[0] }
    }

    private func waitForBackendsToEnd() throws {
        let deadline = Date().addingTimeInterval(60)
        let db = try PostgresConnection(url: url)
        defer { db.close() }
        while Date() < deadline {
            let others = try db.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
            if others.first?.first == "0" { return }
            usleep(50_000)
        }
        XCTFail("the import's connections did not end")
    }

    /// Every schema's tables with their row counts, and the `_SCHEMA` rows.
    private func state() throws -> [String] {
        let db = try PostgresConnection(url: url)
        defer { db.close() }
        var lines = try db.execute("SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1")
            .map { "schema \($0[0] ?? "")" }
        let tables = try db.execute("SELECT schemaname, tablename FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2")
        for table in tables {
            let name = "\"\(table[0]!)\".\"\(table[1]!)\""
            let count = try db.execute("SELECT count(*) FROM \(name)").first?.first ?? nil
            lines.append("\(name): \(count ?? "?") rows")
        }
        lines += try db.execute(#"SELECT "className" || ' ' || "schema"::text FROM "_SCHEMA" ORDER BY 1"#).map { $0[0] ?? "" }
        return lines
    }
}
