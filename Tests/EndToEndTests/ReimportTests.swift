import Foundation
import XCTest

/// Re-running an import is idempotent; changes in the sources update in place; the schema
/// grows with new fields and refuses type changes; `--max-errors` loads the valid rows.
final class ReimportTests: XCTestCase {
    var scratch: URL!
    var dataset: URL!
    var target: URL!

    override func setUpWithError() throws {
        scratch = try temporaryFolder()
        dataset = try CommandRunner.copyFixture("library", to: scratch)
        target = scratch.appendingPathComponent("library.sqlite")
    }

    @discardableResult
    func importLibrary(_ extra: [String] = [], expectStatus: Int32 = 0) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(["import", dataset.path, "--to", target.path, "--json"] + extra)
        XCTAssertEqual(result.status, expectStatus, result.stderr)
        return result
    }

    func edit(_ file: String, _ transform: (String) -> String) throws {
        let url = dataset.appendingPathComponent(file)
        try transform(try String(contentsOf: url, encoding: .utf8)).write(to: url, atomically: true, encoding: .utf8)
    }

    func testSecondRunChangesNothing() throws {
        try importLibrary()
        let before = try Mirror(target).rows("SELECT objectId, updatedAt FROM Book ORDER BY objectId")
        let second = try ImportSummary.parse(try importLibrary())
        for tally in second.classes {
            XCTAssertEqual([tally.inserted, tally.updated], [0, 0], tally.className)
            XCTAssertEqual(tally.unchanged, tally.read, tally.className)
        }
        XCTAssertTrue(second.relations.allSatisfy { $0.added == 0 && $0.removed == 0 })
        XCTAssertEqual(try Mirror(target).rows("SELECT objectId, updatedAt FROM Book ORDER BY objectId"), before)
    }

    func testChangedRowUpdatesOnlyThatObject() throws {
        try importLibrary()
        let before = try Mirror(target).rows("SELECT title, objectId, updatedAt FROM Book ORDER BY title")
        try edit("books.csv") {
            $0.replacingOccurrences(
                of: "Dune,1965,Science Fiction,978-0-441-17271-9,Frank Herbert,",
                with: "Dune,1966,Science Fiction,978-0-441-17271-9,Frank Herbert;Ursula K. Le Guin,")
        }
        let summary = try ImportSummary.parse(try importLibrary())
        XCTAssertEqual(summary.tally("Book")?.updated, 1)
        XCTAssertEqual(summary.tally("Book")?.unchanged, 42)
        XCTAssertEqual(summary.relation("Book.authors")?.added, 1)
        let after = try Mirror(target).rows("SELECT title, objectId, updatedAt FROM Book ORDER BY title")
        for (old, new) in zip(before, after) {
            XCTAssertEqual(old[1], new[1], "objectId of \(old[0]!) changed")
            if old[0] == "Dune" { XCTAssertNotEqual(old[2], new[2]) } else { XCTAssertEqual(old[2], new[2], old[0]!) }
        }
        XCTAssertEqual(try Mirror(target).value("SELECT publishingYear FROM Book WHERE title = 'Dune'"), "1966")
        // Relations are sets: dropping an author from the cell removes its link.
        try edit("books.csv") { $0.replacingOccurrences(of: "Frank Herbert;Ursula K. Le Guin,", with: "Frank Herbert,") }
        XCTAssertEqual(try ImportSummary.parse(try importLibrary()).relation("Book.authors")?.removed, 1)
    }

    func testNewFieldIsAddedAndTypeChangeIsRefused() throws {
        try importLibrary()
        try edit("dataset.yml") {
            $0.replacingOccurrences(
                of: "      description: String\n", with: "      description: String\n      pages: {type: Number, column: publishing_year}\n")
        }
        try importLibrary()
        XCTAssertEqual(try Mirror(target).value("SELECT pages FROM Book WHERE title = 'Dune'"), "1965")
        XCTAssertTrue(try XCTUnwrap(Mirror(target).value("SELECT schema FROM _SCHEMA WHERE className = 'Book'")).contains(#""pages":{"type":"Number"}"#))

        let before = try Data(contentsOf: target)
        try edit("dataset.yml") { $0.replacingOccurrences(of: "publishingYear: {type: Number", with: "publishingYear: {type: String") }
        let refused = try importLibrary(expectStatus: 1)
        XCTAssertTrue(refused.stderr.contains("Book.publishingYear is Number there, the manifest declares String"), refused.stderr)
        XCTAssertEqual(try Data(contentsOf: target), before)
        let validated = try CommandRunner.run(["validate", dataset.path, "--against", target.path, "--quiet"])
        XCTAssertEqual(validated.status, 1)
        XCTAssertTrue(validated.stderr.contains("conflicts with the target"), validated.stderr)
    }

    /// `--max-errors`: a row with a bad value and the rows that point at it are rejected,
    /// the rest is loaded, rejects/<Class>.csv holds them with `_error`.
    func testMaxErrorsLoadsValidRowsAndWritesRejects() throws {
        try edit("genres.csv") { $0.replacingOccurrences(of: "\nFantasy\n", with: "\nFantasy\nFantasy\n") }
        try edit("books.csv") { $0.replacingOccurrences(of: "Dune,1965,", with: "Dune,19x5,") }
        let strict = try importLibrary(expectStatus: 1)
        XCTAssertTrue(strict.stderr.contains(#"books.csv:2: column "publishing_year" (Book.publishingYear): value "19x5": not a number"#), strict.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))

        let tooFew = try importLibrary(["--max-errors", "1"], expectStatus: 1)
        XCTAssertTrue(tooFew.stderr.contains("more than the 1 allowed: nothing written (--max-errors 1)"), tooFew.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))

        let rejects = scratch.appendingPathComponent("rejects")
        let summary = try ImportSummary.parse(try importLibrary(["--max-errors", "100", "--rejects", rejects.path]))
        XCTAssertTrue(summary.committed)
        XCTAssertEqual(summary.tally("Genre")?.rejected, 1)
        XCTAssertEqual(summary.tally("Book")?.rejected, 1)
        let mirror = try Mirror(target)
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Book"), "42")
        XCTAssertNil(try mirror.value("SELECT objectId FROM Book WHERE title = 'Dune'"))
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Genre WHERE name = 'Fantasy'"), "1")
        let bookRejects = try String(contentsOf: rejects.appendingPathComponent("Book.csv"), encoding: .utf8)
        XCTAssertTrue(bookRejects.hasPrefix("_line,title,publishing_year,genre,isbn,authors,publishers,description,_error\n"), bookRejects)
        XCTAssertTrue(bookRejects.contains("2,Dune,19x5,"), bookRejects)
        XCTAssertTrue(bookRejects.contains("not a number"), bookRejects)
        let genreRejects = try String(contentsOf: rejects.appendingPathComponent("Genre.csv"), encoding: .utf8)
        XCTAssertTrue(genreRejects.contains("duplicate key, first seen at line"), genreRejects)
    }

    /// A row pointing at a rejected row is rejected too, through any number of steps.
    func testRejectsFollowPointers() throws {
        try edit("genres.csv") { $0.replacingOccurrences(of: "\nScience Fiction\n", with: "\nScience Fiction,extra\n") }
        let summary = try ImportSummary.parse(try importLibrary(["--max-errors", "1000"]))
        let fiction = try String(contentsOf: dataset.appendingPathComponent("books.csv"), encoding: .utf8)
        XCTAssertEqual(summary.tally("Genre")?.rejected, 1)
        XCTAssertGreaterThan(summary.tally("Book")?.rejected ?? 0, 0)
        XCTAssertTrue(fiction.contains(",Science Fiction,"))
        let mirror = try Mirror(target)
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Book b LEFT JOIN Genre g ON g.objectId = b.genre WHERE g.objectId IS NULL"), "0")
        XCTAssertEqual(
            try mirror.value(#"SELECT count(*) FROM "_Join:books:Genre" j LEFT JOIN Book b ON b.objectId = j.relatedId WHERE b.objectId IS NULL"#), "0")
        let rejected = try String(contentsOf: dataset.appendingPathComponent("rejects/Book.csv"), encoding: .utf8)
        XCTAssertTrue(rejected.contains("which is rejected"), rejected)
    }

    func testDryRunWritesNothing() throws {
        let result = try importLibrary(["--dry-run"])
        XCTAssertEqual(try ImportSummary.parse(result).tally("Book")?.inserted, 43)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))

        // Not even the rejects a real run with --max-errors would write.
        try edit("books.csv") { $0.replacingOccurrences(of: "Dune,1965,", with: "Dune,19x5,") }
        let rejects = scratch.appendingPathComponent("rejects")
        let dry = try ImportSummary.parse(try importLibrary(["--dry-run", "--max-errors", "5", "--rejects", rejects.path]))
        XCTAssertEqual(dry.tally("Book")?.rejected, 1)
        XCTAssertEqual(dry.tally("Book")?.inserted, 42)
        XCTAssertFalse(dry.committed)
        XCTAssertTrue(dry.succeeded, "a real run would load the 42 valid books")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: rejects.path).filter { $0.hasSuffix(".csv") }, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
    }
}
