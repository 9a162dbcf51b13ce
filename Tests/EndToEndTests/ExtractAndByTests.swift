import Foundation
import XCTest

/// `Fixtures/goodbooks-mini`: classes extracted from a column (`extract:`) and references that
/// name their target by another unique field (`by:`, `ownerBy:`, `targetBy:`), into a mirror
/// and through the REST API into a served mirror.
final class ExtractAndByTests: XCTestCase {
    var dataset: String { CommandRunner.fixtures.appendingPathComponent("goodbooks-mini").path }

    /// The (user_id, book_id) pairs of a CSV file of the fixture, as written.
    func pairs(_ file: String) throws -> Set<[String]> {
        let text = try String(contentsOf: CommandRunner.fixtures.appendingPathComponent("goodbooks-mini/\(file)"), encoding: .utf8)
        return Set(text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").prefix(2).map(String.init) })
    }

    func importIntoMirror() throws -> (URL, ImportSummary) {
        let target = try temporaryFolder().appendingPathComponent("goodbooks.sqlite")
        let result = try CommandRunner.run(["import", dataset, "--to", target.path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (target, try ImportSummary.parse(result))
    }

    /// The objects and links the import must leave, asserted on `target`.
    func assertGoodbooks(_ target: URL, _ context: String) throws {
        let mirror = try Mirror(target)
        // One Author per distinct name of the split cells (parts trimmed; a name twice in one cell once).
        XCTAssertEqual(
            try mirror.rows("SELECT name FROM Author ORDER BY name").map { $0[0]! },
            [
                "Alice Sebold", "F. Scott Fitzgerald", "Harper Lee", "J.K. Rowling", "Mary GrandPré", "Neil Gaiman",
                "Rufus Beck", "Stephenie Meyer", "Suzanne Collins", "Terry Pratchett",
            ], context)
        func authors(_ title: String) throws -> [String] {
            try mirror.rows(
                """
                SELECT a.name FROM "_Join:authors:Book" j JOIN Book b ON b.objectId = j.owningId
                JOIN Author a ON a.objectId = j.relatedId WHERE b.title = '\(title)' ORDER BY a.name
                """
            ).map { $0[0]! }
        }
        XCTAssertEqual(try authors("Harry Potter and the Prisoner of Azkaban"), ["J.K. Rowling", "Mary GrandPré", "Rufus Beck"], context)
        XCTAssertEqual(try authors("Good Omens"), ["Neil Gaiman", "Terry Pratchett"], context)
        XCTAssertEqual(try authors("Mockingjay"), ["Suzanne Collins"], context)
        XCTAssertEqual(try mirror.value(#"SELECT count(*) FROM "_Join:authors:Book""#), "14", context)
        // A Pointer to a class extracted from an unsplit column: the comma stays in the name.
        XCTAssertEqual(
            try mirror.rows("SELECT name FROM Publisher ORDER BY name").map { $0[0]! },
            ["Harper Perennial", "Little, Brown and Company", "Scholastic Inc", "Scholastic Press", "Scribner"], context)
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT b.title, p.name FROM Book b LEFT JOIN Publisher p ON p.objectId = b.publisher
                WHERE b.title IN ('Twilight', 'Good Omens', 'Catching Fire') ORDER BY b.title
                """), [["Catching Fire", "Scholastic Press"], ["Good Omens", nil], ["Twilight", "Little, Brown and Company"]], context)
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Book WHERE publisher IS NOT NULL"), "9", context)
        // Ratings name books by book_id, not by the key goodreads_book_id: book_id 5 is Catching
        // Fire, whose key is 6148028; the book whose key is 5 is the Prisoner of Azkaban.
        let ratings = try mirror.rows("SELECT r.userId, b.bookId FROM Rating r JOIN Book b ON b.objectId = r.book")
        XCTAssertEqual(Set(ratings.map { [$0[0]!, $0[1]!] }), try pairs("ratings.csv"), context)
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Rating"), "7", context)
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT b.title FROM Rating r JOIN Book b ON b.objectId = r.book WHERE r.userId = 1 ORDER BY b.title
                """
            ).map { $0[0]! }, ["Catching Fire", "Harry Potter and the Sorcerer's Stone"], context)
        // A join file naming its targets by tag_id (Tag's key is the name) and one naming its
        // owners by book_id, its targets the Readers extracted from that file.
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT t.name FROM "_Join:tags:Book" j JOIN Book b ON b.objectId = j.owningId
                JOIN Tag t ON t.objectId = j.relatedId WHERE b.title = 'The Hunger Games' ORDER BY t.name
                """
            ).map { $0[0]! }, ["to-read", "young-adult"], context)
        XCTAssertEqual(try mirror.value(#"SELECT count(*) FROM "_Join:tags:Book""#), "7", context)
        XCTAssertEqual(try mirror.rows("SELECT userId FROM Reader ORDER BY userId").map { $0[0]! }, ["1", "2", "4"], context)
        let readers = try mirror.rows(
            """
            SELECT r.userId, b.bookId FROM "_Join:readers:Book" j JOIN Book b ON b.objectId = j.owningId JOIN Reader r ON r.objectId = j.relatedId
            """)
        XCTAssertEqual(Set(readers.map { [$0[0]!, $0[1]!] }), try pairs("to_read.csv"), context)
    }

    func testGoodbooksIntoMirror() throws {
        let (target, summary) = try importIntoMirror()
        XCTAssertTrue(summary.succeeded)
        // Distinct values are counted, not the records naming them.
        for (className, count) in [("Author", 10), ("Publisher", 5), ("Reader", 3), ("Book", 10), ("Rating", 7), ("Tag", 5)] {
            XCTAssertEqual(summary.tally(className)?.read, count, className)
            XCTAssertEqual(summary.tally(className)?.inserted, count, className)
        }
        XCTAssertEqual(summary.relation("Book.authors")?.added, 14)
        try assertGoodbooks(target, "mirror")
    }

    /// A second run of the same files changes nothing, extracted classes included.
    func testReimportLeavesEverythingUnchanged() throws {
        let (target, _) = try importIntoMirror()
        let second = try CommandRunner.run(["import", dataset, "--to", target.path, "--json"])
        XCTAssertEqual(second.status, 0, second.stderr)
        let summary = try ImportSummary.parse(second)
        for tally in summary.classes {
            XCTAssertEqual(tally.unchanged, tally.read, tally.className)
            XCTAssertEqual(tally.inserted + tally.updated + tally.rejected, 0, tally.className)
        }
        XCTAssertEqual(summary.tally("Author")?.unchanged, 10)
        XCTAssertEqual(summary.relations.map(\.added).reduce(0, +), 0)
        try assertGoodbooks(target, "after a re-import")
    }

    /// The extracted classes are written before the classes that name them.
    func testPlanPutsExtractedClassesFirst() throws {
        let json = try CommandRunner.run(["plan", dataset, "--format", "json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let phases = try XCTUnwrap(object["phases"] as? [[String: Any]])
        let inserts = phases.filter { $0["kind"] as? String == "insert" }.flatMap { $0["items"] as? [String] ?? [] }
        for extracted in ["Author", "Publisher", "Reader"] {
            XCTAssertLessThan(try XCTUnwrap(inserts.firstIndex(of: extracted)), try XCTUnwrap(inserts.firstIndex(of: "Book")), "\(inserts)")
        }
    }

    /// Through the Parse REST API, with server-assigned and with the loader's objectIds: the same
    /// objects and links as the direct import.
    func testGoodbooksIntoServedMirror() throws {
        let directory = try temporaryFolder()
        let (direct, _) = try importIntoMirror()
        let keys = try RESTImportTests.naturalKeys(direct)
        XCTAssertEqual(keys["Author"], ["name"])
        let expected = try MirrorContent(direct, keys: keys)
        for customIds in [false, true] {
            let served = directory.appendingPathComponent("served-\(customIds).sqlite")
            let server = try ServedMirror(path: served.path, allowCustomObjectId: customIds)
            let result = try server.runImport(dataset, ["--json"])
            XCTAssertEqual(result.status, 0, "customIds=\(customIds): \(result.stdout) \(result.stderr)")
            XCTAssertEqual(try ImportSummary.parse(result).tally("Author")?.inserted, 10)
            let content = try MirrorContent(served, keys: keys)
            XCTAssertEqual(content, expected, "customIds=\(customIds): " + content.differences(from: expected).joined(separator: "\n"))
            try assertGoodbooks(served, "served, customIds=\(customIds)")
            let again = try ImportSummary.parse(try server.runImport(dataset, ["--json"]))
            XCTAssertEqual(again.tally("Author")?.unchanged, 10, "customIds=\(customIds)")
            XCTAssertEqual(again.tally("Rating")?.unchanged, 7, "customIds=\(customIds)")
        }
    }

    /// With `--max-errors`, an extracted value that cannot be read is left out with the rows
    /// naming it, and nothing else: the other values of its line are objects, and rows naming
    /// them are written. Two books sharing an `isbn` no cell names are no fault; a review naming
    /// the rejected book by its `isbn` is rejected with it.
    func testUnreadableValueRejectsOnlyRowsNamingIt() throws {
        let folder = try temporaryFolder().appendingPathComponent("years")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        version: 1
        classes:
          Book:
            source: books.csv
            key: [title]
            fields:
              title: String!
              isbn: String
              years: {type: Relation<Year>, split: ";"}
          Year:
            extract: {source: books.csv, column: years, split: ";"}
            fields: {value: Number!}
          Review:
            source: reviews.csv
            key: [text]
            fields:
              text: String!
              book: {type: Pointer<Book>, column: isbn, by: isbn}
        """.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try "title,isbn,years\nA,111,1990; 1991\nB,222,abc; 1992\nC,333,1992;1993\nD,111,1990\n"
            .write(to: folder.appendingPathComponent("books.csv"), atomically: true, encoding: .utf8)
        try "text,isbn\nGreat,333\nDull,222\n".write(to: folder.appendingPathComponent("reviews.csv"), atomically: true, encoding: .utf8)
        let target = folder.appendingPathComponent("years.sqlite")
        let strict = try CommandRunner.run(["import", folder.path, "--to", target.path])
        XCTAssertEqual(strict.status, 1)
        XCTAssertTrue(strict.stderr.contains(#"books.csv:3: column "years" (Year.value): value "abc": not a number"#), strict.stderr)
        // A reference by isbn to the rejected book B is told so, as one by its key would be.
        XCTAssertTrue(
            strict.stderr.contains(#"reviews.csv:3: column "isbn" (Review.book): value "222": points to Book "222" (line 3), which is rejected"#), strict.stderr
        )
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
        let result = try CommandRunner.run(["import", folder.path, "--to", target.path, "--max-errors", "3", "--json"], currentDirectory: folder)
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try ImportSummary.parse(result)
        XCTAssertEqual(summary.tally("Year")?.inserted, 4)
        XCTAssertEqual(summary.tally("Year")?.rejected, 1)
        XCTAssertEqual(summary.tally("Book")?.inserted, 3)
        XCTAssertEqual(summary.tally("Book")?.rejected, 1)
        let mirror = try Mirror(target)
        XCTAssertEqual(try mirror.rows("SELECT value FROM Year ORDER BY value").map { $0[0]! }, ["1990", "1991", "1992", "1993"])
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT b.title, y.value FROM "_Join:years:Book" j JOIN Book b ON b.objectId = j.owningId
                JOIN Year y ON y.objectId = j.relatedId ORDER BY b.title, y.value
                """
            ).map { [$0[0]!, $0[1]!] }, [["A", "1990"], ["A", "1991"], ["C", "1992"], ["C", "1993"], ["D", "1990"]])
        XCTAssertEqual(try mirror.rows("SELECT b.title FROM Review r JOIN Book b ON b.objectId = r.book").map { $0[0]! }, ["C"])

        // --prune with the unreadable value still there: which Year it meant is not known, so no
        // Year is deleted (1993, which no cell names now, stays); book D, gone from the file, goes.
        try "title,isbn,years\nA,111,1990; 1991\nB,222,abc; 1992\nC,333,1992\n"
            .write(to: folder.appendingPathComponent("books.csv"), atomically: true, encoding: .utf8)
        let pruned = try CommandRunner.run(["import", folder.path, "--to", target.path, "--max-errors", "3", "--prune"], currentDirectory: folder)
        XCTAssertEqual(pruned.status, 0, pruned.stderr)
        XCTAssertEqual(try mirror.rows("SELECT value FROM Year ORDER BY value").map { $0[0]! }, ["1990", "1991", "1992", "1993"])
        XCTAssertEqual(try mirror.rows("SELECT title FROM Book ORDER BY title").map { $0[0]! }, ["A", "C"])
    }

    /// `by` needs the target's fields: a class only the target has cannot be named by one (exit 2,
    /// the mirror left as it was).
    func testByToClassOutsideTheManifestIsRefused() throws {
        let scratch = try temporaryFolder()
        let target = scratch.appendingPathComponent("todo.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("todo").path, "--to", target.path, "-q"]).status, 0)
        let before = try Data(contentsOf: target)
        let folder = scratch.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        version: 1
        classes:
          Note:
            source: notes.csv
            key: [text]
            fields:
              text: String!
              item: {type: Pointer<TodoListItem>, by: title}
        """.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try "text,item\nSoon,Buy milk\n".write(to: folder.appendingPathComponent("notes.csv"), atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["import", folder.path, "--to", target.path])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(
                "dataset.yml: classes.Note.fields.item.by: TodoListItem is not declared in this manifest, so its objects cannot be found by title"),
            result.stderr)
        XCTAssertEqual(try Data(contentsOf: target), before)
    }

    /// From NDJSON: a JSON array gives one value per item, a JSON number a Number; a key no
    /// field reads is named under the class read record by record, not the extracted one.
    func testExtractFromJSONRecords() throws {
        let folder = try temporaryFolder().appendingPathComponent("json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        version: 1
        classes:
          Author:
            extract: {source: books.ndjson, column: authors}
            fields: {name: String!}
          Year:
            extract: {source: books.ndjson, column: year}
            fields: {value: Number!}
          Book:
            source: books.ndjson
            key: [title]
            fields:
              title: String!
              authors: Relation<Author>
              year: Pointer<Year>
        """.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try """
        {"title": "Good Omens", "authors": ["Terry Pratchett", "Neil Gaiman"], "year": 1990, "isbn": "0-575-04800-X"}
        {"title": "Mort", "authors": ["Terry Pratchett"], "year": 1987}
        {"title": "Coraline", "authors": "Neil Gaiman", "year": 2002}
        {"title": "Anonymous", "authors": [], "year": null}

        """.write(to: folder.appendingPathComponent("books.ndjson"), atomically: true, encoding: .utf8)
        let target = folder.appendingPathComponent("json.sqlite")
        let result = try CommandRunner.run(["import", folder.path, "--to", target.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("skipped key Book.isbn: not a field, in 1 object (first books.ndjson:1)"), result.stdout)
        let mirror = try Mirror(target)
        XCTAssertEqual(try mirror.rows("SELECT name FROM Author ORDER BY name").map { $0[0]! }, ["Neil Gaiman", "Terry Pratchett"])
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT b.title, a.name FROM "_Join:authors:Book" j JOIN Book b ON b.objectId = j.owningId
                JOIN Author a ON a.objectId = j.relatedId ORDER BY b.title, a.name
                """
            ).map { [$0[0]!, $0[1]!] },
            [["Coraline", "Neil Gaiman"], ["Good Omens", "Neil Gaiman"], ["Good Omens", "Terry Pratchett"], ["Mort", "Terry Pratchett"]])
        XCTAssertEqual(
            try mirror.rows("SELECT b.title, y.value FROM Book b LEFT JOIN Year y ON y.objectId = b.year ORDER BY b.title"),
            [["Anonymous", nil], ["Coraline", "2002"], ["Good Omens", "1990"], ["Mort", "1987"]])
    }

    /// A split Relation cell naming its targets by another field, here of the owner's own
    /// class, read further down the file.
    func testSplitRelationByAnotherField() throws {
        let folder = try temporaryFolder().appendingPathComponent("similar")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        version: 1
        classes:
          Book:
            source: books.csv
            key: [id]
            fields:
              id: Number!
              code: String!
              title: String!
              similar: {type: Relation<Book>, split: ";", by: code}
        """.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try "id,code,title,similar\n100,A1,One,\"A2; A3\"\n200,A2,Two,A1\n300,A3,Three,\n"
            .write(to: folder.appendingPathComponent("books.csv"), atomically: true, encoding: .utf8)
        let target = folder.appendingPathComponent("similar.sqlite")
        let result = try CommandRunner.run(["import", folder.path, "--to", target.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            try Mirror(target).rows(
                """
                SELECT b.title, c.title FROM "_Join:similar:Book" j JOIN Book b ON b.objectId = j.owningId
                JOIN Book c ON c.objectId = j.relatedId ORDER BY b.title, c.title
                """
            ).map { [$0[0]!, $0[1]!] }, [["One", "Three"], ["One", "Two"], ["Two", "One"]])
    }
}
