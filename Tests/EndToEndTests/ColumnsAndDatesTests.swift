import Foundation
import XCTest

/// Issue 12 parts 1 and 3 from the command: columns a manifest names must be in their source
/// (header cells compared trimmed, `optional: true`, JSON keys counted), and dates in format
/// lists, Unix times, month names and 12-hour times (`Fixtures/shop-dates`).
final class ColumnsAndDatesTests: XCTestCase {
    static let dataset = CommandRunner.fixtures.appendingPathComponent("shop-dates").path

    /// The stored dates, exactly; the header `email , name,since ` read by its trimmed names.
    func assertShopDates(_ mirror: Mirror, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(
            try mirror.rows("SELECT email, name, since, phone FROM Customer ORDER BY email"),
            [
                ["ada@example.com", "Ada Lovelace", "2024-03-01T00:00:00.000Z", nil],
                ["alan@example.com", "Alan Turing", "1999-12-31T00:00:00.000Z", nil],
                ["edsger@example.com", "Edsger Dijkstra", nil, nil],
                ["grace@example.com", "Grace Hopper", "2024-03-01T00:00:00.000Z", nil],
            ], file: file, line: line)
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT o.number, c.email, o.placedAt, o.pickup FROM "Order" o JOIN Customer c ON c.objectId = o.customer ORDER BY o.number
                """),
            [
                ["1", "ada@example.com", "2024-03-01T00:00:00.000Z", "2024-03-01T00:00:00.000Z"],
                ["2", "grace@example.com", "2024-01-15T00:00:00.000Z", "2024-03-01T12:30:00.000Z"],
                ["3", "alan@example.com", "2024-02-29T00:00:00.000Z", "2023-12-31T23:59:00.000Z"],
                ["4", "ada@example.com", "2023-09-05T00:00:00.000Z", "2023-09-07T09:05:00.000Z"],
            ], file: file, line: line)
        XCTAssertEqual(
            try mirror.rows("SELECT code, at, loggedAt, \"when\", note, email FROM Event ORDER BY code"),
            [
                ["e1", "2024-03-01T00:00:00.000Z", "2024-03-01T00:00:00.123Z", "2024-03-01T09:30:00.000Z", "first", "ada@example.com"],
                ["e2", "2024-03-01T00:00:00.500Z", "2024-03-01T00:00:00.999Z", "1970-01-01T00:00:00.000Z", nil, "grace@example.com"],
                ["e3", "1969-12-31T00:00:00.000Z", "1970-01-01T00:00:00.000Z", "2023-11-14T22:13:20.000Z", "third", nil],
                ["e4", "2024-03-01T00:00:00.250Z", "1969-12-31T23:59:59.999Z", "2023-11-14T22:13:20.750Z", nil, "alan@example.com"],
            ], file: file, line: line)
    }

    func testShopDatesImportIntoAMirror() throws {
        let target = try temporaryFolder().appendingPathComponent("shop.sqlite")
        let result = try CommandRunner.run(["import", Self.dataset, "--to", target.path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try ImportSummary.parse(result)
        XCTAssertEqual(summary.classes.map(\.inserted), [4, 4, 4])
        try assertShopDates(try Mirror(target))
        // The JSON keys some events lack are counted in the summary's notes.
        let notes = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["notes"] as? [String])
        XCTAssertEqual(
            notes.filter { $0.hasPrefix("events.ndjson: ") }.map { $0.components(separatedBy: " (")[0] },
            [
                #"events.ndjson: 2 of 4 records have no "note""#,
                #"events.ndjson: 1 of 4 records have no "user.email""#,
            ])
        // Optional and present columns give no note.
        XCTAssertFalse(notes.contains { $0.contains("phone") || $0.contains("\"id\"") || $0.contains("\"when\"") }, "\(notes)")
    }

    func testValidatePrintsTheNotes() throws {
        let result = try CommandRunner.run(["validate", Self.dataset, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains(#"note: events.ndjson: 2 of 4 records have no "note" (classes.Event.fields.note)"#), result.stdout)
        XCTAssertTrue(result.stdout.contains("valid: 12 records in 3 classes"), result.stdout)
    }

    /// Into a Parse Server (a served mirror): the same dates arrive over REST.
    func testShopDatesImportIntoAServedMirror() throws {
        let server = try ServedMirror(in: self)
        let dataset = try CommandRunner.copyFixture("shop-dates", to: try temporaryFolder())
        let result = try server.runImport(dataset.path, ["--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let answer = try RESTImportTests.curl(server, "GET", "/classes/Event?order=code", "")
        XCTAssertEqual(answer.status, 0)
        let events = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(answer.stdout.utf8)) as? [String: Any])?["results"] as? [[String: Any]])
        XCTAssertEqual(
            events.map { ($0["at"] as? [String: Any])?["iso"] as? String },
            [
                "2024-03-01T00:00:00.000Z", "2024-03-01T00:00:00.500Z", "1969-12-31T00:00:00.000Z", "2024-03-01T00:00:00.250Z",
            ])
        XCTAssertEqual(
            events.map { ($0["loggedAt"] as? [String: Any])?["iso"] as? String },
            [
                "2024-03-01T00:00:00.123Z", "2024-03-01T00:00:00.999Z", "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z",
            ])
        try assertShopDates(try Mirror(server.file))
    }

    /// A misspelt column is an error before anything is read or written, from validate and
    /// import alike; the fixed manifest then imports every value.
    func testMisspeltColumnStopsBeforeAnyRowAndTheFixImports() throws {
        let scratch = try temporaryFolder()
        let copy = try CommandRunner.copyFixture("bad/manifest-column-misspelt", to: scratch)
        let target = scratch.appendingPathComponent("orders.sqlite")
        for command in [["validate", copy.path], ["import", copy.path, "--to", target.path]] {
            let result = try CommandRunner.run(command + ["--quiet"])
            XCTAssertEqual(result.status, 2, result.stderr)
            XCTAssertEqual(
                result.stderr.trimmingCharacters(in: .newlines),
                #"""
                dataset.yml: classes.Order.fields.placedAt.column: orders.csv has no column "placedat"; its header is "number", "placed_at", "total"; did you mean "placed_at"?
                """#)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
        let manifest = copy.appendingPathComponent("dataset.yml")
        try String(contentsOf: manifest, encoding: .utf8).replacingOccurrences(of: "column: placedat", with: "column: placed_at")
            .write(to: manifest, atomically: true, encoding: .utf8)
        let fixed = try CommandRunner.run(["import", copy.path, "--to", target.path, "--quiet"])
        XCTAssertEqual(fixed.status, 0, fixed.stderr)
        XCTAssertEqual(
            try Mirror(target).rows(#"SELECT number, placedAt FROM "Order" ORDER BY number"#),
            [["1", "2024-03-01T00:00:00.000Z"], ["2", "2024-03-02T00:00:00.000Z"]])
    }

    /// A Parse export's objects lack fields freely: no column is required of them.
    func testParseExportObjectsMayLackFields() throws {
        let result = try CommandRunner.run(["validate", CommandRunner.fixtures.appendingPathComponent("parse-app").path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.contains("have no \""), result.stdout)
    }
}
