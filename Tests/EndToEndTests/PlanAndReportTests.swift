import Foundation
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `plan` in its three formats, `validate` reports, help and usage errors.
final class PlanAndReportTests: XCTestCase {
    func fixture(_ name: String) -> String { CommandRunner.fixtures.appendingPathComponent(name).path }

    func testPlanText() throws {
        let result = try CommandRunner.run(["plan", fixture("org")])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            result.stdout,
            """
            phase 1: insert Office
            phase 2: insert Team
            phase 3: insert Employee
            phase 4: patch Team.lead, Employee.manager

            """)
        let library = try CommandRunner.run(["plan", fixture("library")])
        XCTAssertEqual(
            library.stdout,
            """
            phase 1: insert Genre, Author, Publisher, ISBN
            phase 2: insert Book
            phase 3: relations Genre.books, Book.authors, Book.publishers

            """)
    }

    func testPlanDotAndJSON() throws {
        let dot = try CommandRunner.run(["plan", fixture("org"), "--format", "dot"])
        XCTAssertTrue(dot.stdout.hasPrefix("digraph plan {"), dot.stdout)
        XCTAssertTrue(dot.stdout.contains(#""Employee" -> "Employee" [label="manager (patched)", style=dashed];"#), dot.stdout)
        XCTAssertTrue(dot.stdout.contains(#""Team" -> "Office" [label="office", style=solid];"#), dot.stdout)
        let json = try CommandRunner.run(["plan", fixture("library"), "--format", "json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let phases = try XCTUnwrap(object["phases"] as? [[String: Any]])
        XCTAssertEqual(phases.map { $0["kind"] as? String }, ["insert", "insert", "relations"])
    }

    func testValidateFormats() throws {
        let ok = try CommandRunner.run(["validate", fixture("library"), "--quiet"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.contains("valid: 153 records in 5 classes"), ok.stdout)
        let junit = try CommandRunner.run(["validate", fixture("bad/dangling-pointer"), "--format", "junit"])
        XCTAssertEqual(junit.status, 1)
        XCTAssertTrue(junit.stdout.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#), junit.stdout)
        XCTAssertTrue(junit.stdout.contains(#"<testcase classname="dataset" name="Book">"#), junit.stdout)
        XCTAssertTrue(junit.stdout.contains("no Genre has key"), junit.stdout)
        XCTAssertTrue(junit.stdout.contains(#"tests="2" failures="1""#), junit.stdout)
        let parsed = XMLParser(data: Data(junit.stdout.utf8))
        XCTAssertTrue(parsed.parse(), "the JUnit report is well-formed XML: \(parsed.parserError.map { "\($0)" } ?? "")")
        let unreadable = try CommandRunner.run(["validate", fixture("bad/csv-unterminated-quote"), "--format", "junit"])
        XCTAssertTrue(unreadable.stdout.contains(#"<testcase classname="dataset" name="files">"#), unreadable.stdout)
        let json = try CommandRunner.run(["validate", fixture("bad/dangling-pointer"), "--format", "json"])
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["errorCount"] as? Int, 1)
    }

    func testUsageErrorsExitTwo() throws {
        XCTAssertEqual(try CommandRunner.run(["import"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["import", fixture("library"), "--max-errors", "-1"]).status, 2)
        XCTAssertEqual(try CommandRunner.run(["plan", "/nonexistent"]).status, 2)
        let rest = try CommandRunner.run(["import", fixture("library"), "--to", "http://127.0.0.1:1/parse"])
        XCTAssertEqual(rest.status, 2)
        let help = try CommandRunner.run(["import", "--help"])
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.stdout.contains("parse-porter import library/ --target /tmp/library.sqlite"), help.stdout)
    }
}
