import Foundation
import XCTest

/// `--json` reports carry every fault with its structure; the terminal shows the first 50 and
/// the flags the command adds to the library's words.
final class FaultReportTests: XCTestCase {
    let manyBadRows = CommandRunner.fixtures.appendingPathComponent("bad/many-bad-rows").path

    /// The faults of a `--json` report, each as a dictionary.
    private func faults(_ result: CommandRunner.Result) throws -> (faults: [[String: Any]], report: [String: Any]) {
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        return (try XCTUnwrap(report["errors"] as? [[String: Any]]), report)
    }

    /// The 120 faults of `many-bad-rows`, in order, each with every part of its structure.
    private func assertEveryBadRow(_ faults: [[String: Any]], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(faults.count, 120, file: file, line: line)
        for (index, fault) in faults.enumerated() {
            let number = index + 1, sourceLine = index + 3
            XCTAssertEqual(fault["kind"] as? String, "notANumber", file: file, line: line)
            XCTAssertEqual(fault["className"] as? String, "Book", file: file, line: line)
            XCTAssertEqual(fault["field"] as? String, "pages", file: file, line: line)
            XCTAssertTrue(fault["keyPath"] is NSNull, file: file, line: line)
            XCTAssertEqual(fault["file"] as? String, "books.csv", file: file, line: line)
            XCTAssertEqual(fault["line"] as? Int, sourceLine, file: file, line: line)
            XCTAssertEqual(fault["column"] as? String, "pages", file: file, line: line)
            XCTAssertEqual(fault["value"] as? String, "page \(number)", file: file, line: line)
            XCTAssertEqual(fault["message"] as? String, "not a number", file: file, line: line)
            XCTAssertEqual(
                fault["text"] as? String, #"books.csv:\#(sourceLine): column "pages" (Book.pages): value "page \#(number)": not a number"#,
                file: file, line: line)
        }
    }

    func testValidateJSONListsEveryFault() throws {
        let result = try CommandRunner.run(["validate", manyBadRows, "--format", "json", "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let (faults, report) = try faults(result)
        assertEveryBadRow(faults)
        XCTAssertEqual(report["errorCount"] as? Int, 120)
        XCTAssertEqual(report["faultCounts"] as? [String: Int], ["notANumber": 120])
        let tally = try XCTUnwrap((report["classes"] as? [[String: Any]])?.first)
        XCTAssertEqual(tally["read"] as? Int, 122)
        XCTAssertEqual(tally["rejected"] as? Int, 120)
    }

    func testImportJSONListsEveryFaultAndWritesNothing() throws {
        let scratch = try temporaryFolder()
        let mirror = scratch.appendingPathComponent("books.sqlite")
        let result = try CommandRunner.run(["import", manyBadRows, "--to", mirror.path, "--json", "--quiet"])
        XCTAssertEqual(result.status, 1, result.stderr)
        assertEveryBadRow(try faults(result).faults)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path))
        // The terminal still shows the first 50.
        XCTAssertTrue(result.stderr.contains("… and 70 more (120 in all)"), result.stderr)
    }

    /// An import that writes the valid rows under `--max-errors` still lists every rejected row's fault.
    func testAnImportWithinMaxErrorsListsEveryRejectedRow() throws {
        let scratch = try temporaryFolder()
        let mirror = scratch.appendingPathComponent("books.sqlite")
        let result = try CommandRunner.run([
            "import", manyBadRows, "--to", mirror.path, "--max-errors", "200",
            "--rejects", scratch.appendingPathComponent("rejects").path, "--json", "--quiet",
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let (faults, report) = try faults(result)
        XCTAssertEqual(report["committed"] as? Bool, true)
        assertEveryBadRow(faults)
        XCTAssertEqual(try Mirror(mirror).rows("SELECT title, pages FROM Book ORDER BY title"), [["Dune", "412"], ["Emma", "474"]])
    }

    /// The library says "more than the 5 allowed"; the command names its flag, and the JSON report
    /// keeps the library's words with the kind.
    func testTooManyRejectedRowsNamesTheFlagOnlyInTheCommandsText() throws {
        let scratch = try temporaryFolder()
        let mirror = scratch.appendingPathComponent("books.sqlite")
        let arguments = [
            "import", manyBadRows, "--to", mirror.path, "--max-errors", "5", "--rejects", scratch.appendingPathComponent("rejects").path, "--quiet",
        ]
        let text = try CommandRunner.run(arguments)
        XCTAssertEqual(text.status, 1, text.stderr)
        XCTAssertTrue(text.stderr.contains("dataset.yml: 120 rows rejected, more than the 5 allowed: nothing written (--max-errors 5)"), text.stderr)
        XCTAssertTrue(text.stderr.contains("… and 70 more (121 in all)"), text.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path))

        let json = try CommandRunner.run(arguments + ["--json"])
        let (faults, report) = try faults(json)
        XCTAssertEqual(faults.count, 121)
        let verdict = try XCTUnwrap(faults.last)
        XCTAssertEqual(verdict["kind"] as? String, "tooManyRejectedRows")
        XCTAssertEqual(verdict["file"] as? String, "dataset.yml")
        XCTAssertTrue(verdict["line"] is NSNull)
        XCTAssertEqual(verdict["message"] as? String, "120 rows rejected, more than the 5 allowed: nothing written")
        XCTAssertEqual(report["faultCounts"] as? [String: Int], ["notANumber": 120, "tooManyRejectedRows": 1])
        XCTAssertFalse(faults.contains { ($0["message"] as? String)?.contains("--") == true }, "no flag in the library's words")
    }
}
