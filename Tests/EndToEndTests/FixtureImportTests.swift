import Foundation
import XCTest

/// Each good fixture imports, and the mirror holds its objects with resolved pointers,
/// relation links and typed values (Docs/MirrorLayout.md#columns-and-values).
final class FixtureImportTests: XCTestCase {
    func importFixture(_ name: String) throws -> (Mirror, ImportSummary, URL) {
        let scratch = try temporaryFolder()
        let target = scratch.appendingPathComponent("\(name).sqlite")
        let result = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent(name).path, "--to", target.path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (try Mirror(target), try ImportSummary.parse(result), target)
    }

    func testLibraryPointersAndRelations() throws {
        let (mirror, summary, _) = try importFixture("library")
        XCTAssertEqual(summary.tally("Book")?.inserted, 43)
        XCTAssertEqual(summary.tally("Genre")?.inserted, 12)
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Book"), "43")
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM ISBN"), "43")
        // Every pointer resolves to an existing object.
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Book b JOIN Genre g ON g.objectId = b.genre"), "43")
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Book b JOIN ISBN i ON i.objectId = b.isbn"), "43")
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT b.publishingYear, g.name, i.value FROM Book b JOIN Genre g ON g.objectId = b.genre
                JOIN ISBN i ON i.objectId = b.isbn WHERE b.title = 'Dune'
                """), [["1965", "Science Fiction", "978-0-441-17271-9"]])
        // Relation links, from split cells and from the join file.
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT a.name FROM "_Join:authors:Book" j JOIN Book b ON b.objectId = j.owningId
                JOIN Author a ON a.objectId = j.relatedId WHERE b.title = 'Dune'
                """), [["Frank Herbert"]])
        let joinRows = try String(contentsOf: CommandRunner.fixtures.appendingPathComponent("library/book_genres.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst()
        XCTAssertEqual(try mirror.value(#"SELECT count(*) FROM "_Join:books:Genre""#), String(Set(joinRows).count))
        XCTAssertEqual(
            try mirror.value(#"SELECT count(*) FROM "_Join:books:Genre" j LEFT JOIN Book b ON b.objectId = j.relatedId WHERE b.objectId IS NULL"#), "0")
        XCTAssertEqual(summary.relation("Genre.books")?.added, Set(joinRows).count)
        // The /schemas JSON in _SCHEMA, the class ACL and timestamps.
        let schema = try XCTUnwrap(try mirror.value("SELECT schema FROM _SCHEMA WHERE className = 'Book'"))
        XCTAssertTrue(schema.contains(#""genre":{"type":"Pointer","targetClass":"Genre"}"#), schema)
        XCTAssertTrue(schema.contains(#""authors":{"type":"Relation","targetClass":"Author"}"#), schema)
        XCTAssertEqual(try mirror.value("SELECT ACL FROM Book WHERE title = 'Dune'"), #"{"*":{"read":true},"role:Librarian":{"read":true,"write":true}}"#)
        let createdAt = try XCTUnwrap(try mirror.value("SELECT createdAt FROM Book LIMIT 1"))
        XCTAssertNotNil(createdAt.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression), createdAt)
        XCTAssertEqual(try mirror.value("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Book' AND sql LIKE '%UNIQUE%'"), "Book_naturalKey")
    }

    func testRecipesTypedValues() throws {
        let (mirror, _, _) = try importFixture("recipes")
        let rows = try mirror.rows(
            """
            SELECT servings, price, isAvailable, category, ingredients, sideOptions, nutritionalInfo, releaseDate, photo, typeof(price)
            FROM Recipe WHERE name = 'Risotto alla Milanese'
            """)
        XCTAssertEqual(rows.first?[0], "4")
        XCTAssertEqual(rows.first?[1], "18.5")
        XCTAssertEqual(rows.first?[2], "1")
        XCTAssertEqual(rows.first?[3], "2")
        XCTAssertTrue(rows.first?[4]?.hasPrefix(#"[{"description":"g Carnaroli rice","quantity":320}"#) == true, "\(rows)")
        XCTAssertEqual(rows.first?[5], #"["gremolata","green salad"]"#)
        XCTAssertEqual(rows.first?[6], #"{"calories":"610 kcal","carbohydrates":"82 g","fat":"24 g","protein":"14 g"}"#)
        XCTAssertEqual(rows.first?[7], "2019-03-12T00:00:00.000Z")
        XCTAssertEqual(rows.first?[8], #"{"__type":"File","name":"risotto-milanese.jpg"}"#)
        XCTAssertEqual(rows.first?[9], "real")
        XCTAssertEqual(
            try mirror.value("SELECT location FROM Kitchen WHERE name = 'Trattoria Luce'"), #"{"__type":"GeoPoint","latitude":45.4642,"longitude":9.19}"#)
        XCTAssertTrue(
            try XCTUnwrap(mirror.value("SELECT deliveryArea FROM Kitchen WHERE name = 'Trattoria Luce'")).hasPrefix(
                #"{"__type":"Polygon","coordinates":[[45.5142,9.19],"#))
        XCTAssertTrue(try XCTUnwrap(mirror.value("SELECT logo FROM Kitchen LIMIT 1")).hasPrefix(#"{"__type":"Bytes","base64":"#))
        // Defaults, null tokens, the JSON source's nested values and dotted columns.
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Recipe WHERE servings IS NULL"), "0")
        XCTAssertEqual(
            try mirror.rows("SELECT email, since, k.name FROM Chef c JOIN Kitchen k ON k.objectId = c.kitchen WHERE c.name = 'Giulia Bianchi'"),
            [["giulia.bianchi@trattorialuce.example", "2015-04-01T07:00:00.000Z", "Trattoria Luce"]])
        XCTAssertEqual(
            try mirror.value("SELECT count(*) FROM Recipe r JOIN Kitchen k ON k.objectId = r.kitchen"),
            try mirror.value("SELECT count(*) FROM Recipe WHERE kitchen IS NOT NULL"))
    }

    func testContactsFromNDJSON() throws {
        let (mirror, summary, _) = try importFixture("contacts")
        XCTAssertEqual(summary.tally("Contact")?.inserted, 30)
        XCTAssertEqual(
            try mirror.rows("SELECT birthday, numberOfFriends, favoriteFoods, city FROM Contact WHERE name = 'Ana García'"),
            [["1990-04-12T00:00:00.000Z", "12", #"["paella","churros"]"#, "Madrid"]])
    }

    func testTodoFromTSV() throws {
        let (mirror, _, _) = try importFixture("todo")
        let lines = try String(contentsOf: CommandRunner.fixtures.appendingPathComponent("todo/todos.tsv"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM TodoListItem"), String(lines.count - 1))
        let first = lines[1].split(separator: "\t", omittingEmptySubsequences: false)
        XCTAssertEqual(
            try mirror.value("SELECT description FROM TodoListItem WHERE title = '\(first[0].replacingOccurrences(of: "'", with: "''"))'"), String(first[1]))
    }

    /// Cycles: Employee.manager (self) and Team.lead ↔ Employee.team, written by a patch phase.
    func testOrgPointerCycles() throws {
        let (mirror, _, _) = try importFixture("org")
        XCTAssertEqual(
            try mirror.rows("SELECT e.name FROM Employee e JOIN Employee m ON m.objectId = e.manager WHERE m.name = 'Amara Okafor' ORDER BY e.name").count, 4)
        XCTAssertNil(try mirror.value("SELECT manager FROM Employee WHERE name = 'Amara Okafor'"))
        XCTAssertEqual(try mirror.value("SELECT e.name FROM Team t JOIN Employee e ON e.objectId = t.lead WHERE t.name = 'Platform'"), "Lukas Schmidt")
        XCTAssertEqual(try mirror.value("SELECT t.name FROM Employee e JOIN Team t ON t.objectId = e.team WHERE e.name = 'Sofia Petrova'"), "Platform")
        XCTAssertEqual(
            try mirror.value("SELECT o.city || '/' || o.country FROM Team t JOIN Office o ON o.objectId = t.office WHERE t.name = 'Platform'"), "Berlin/DE")
        XCTAssertEqual(try mirror.value("SELECT count(*) FROM Employee WHERE team IS NULL"), "0")
    }

    /// A re-import that changes only a cyclic pointer (written by the patch phase) counts its
    /// object as updated, not unchanged; the others stay unchanged.
    func testAChangedCyclicPointerCountsItsObjectAsUpdated() throws {
        let scratch = try temporaryFolder()
        let folder = scratch.appendingPathComponent("org")
        try FileManager.default.copyItem(at: CommandRunner.fixtures.appendingPathComponent("org"), to: folder)
        let target = scratch.appendingPathComponent("org.sqlite").path
        func importOrg() throws -> ImportSummary.ClassTally? {
            let result = try CommandRunner.run(["import", folder.path, "--to", target, "--json"])
            XCTAssertEqual(result.status, 0, result.stderr)
            return try ImportSummary.parse(result).classes.first { $0.className == "Employee" }
        }
        XCTAssertEqual(try importOrg()?.inserted, 16)
        XCTAssertEqual(try importOrg().map { [$0.updated, $0.unchanged] }, [0, 16])
        let employees = folder.appendingPathComponent("employees.csv")
        try String(contentsOf: employees, encoding: .utf8)
            .replacingOccurrences(of: "Sofia Petrova,Backend Engineer,Lukas Schmidt,", with: "Sofia Petrova,Backend Engineer,Amara Okafor,")
            .write(to: employees, atomically: true, encoding: .utf8)
        XCTAssertEqual(try importOrg().map { [$0.updated, $0.unchanged] }, [1, 15])
        let mirror = try Mirror(URL(fileURLWithPath: target))
        XCTAssertEqual(
            try mirror.value("SELECT m.name FROM Employee e JOIN Employee m ON m.objectId = e.manager WHERE e.name = 'Sofia Petrova'"), "Amara Okafor")
    }

    /// A Parse export: objectIds, createdAt/updatedAt and pointers by objectId are kept.
    func testParseExportKeepsIdsAndTimestamps() throws {
        let (mirror, _, _) = try importFixture("parse-export")
        XCTAssertEqual(
            try mirror.rows("SELECT objectId, createdAt, updatedAt, author, publishedAt FROM Post WHERE objectId = 'aZ1bY2cX3d'"),
            [["aZ1bY2cX3d", "2023-01-31T05:00:00.000Z", "2024-02-01T00:00:00.000Z", "Xk3mP9qR2a", "2023-02-01T08:00:00.000Z"]])
        XCTAssertEqual(
            try mirror.value("SELECT count(*) FROM Post p LEFT JOIN Author a ON a.objectId = p.author WHERE p.author IS NOT NULL AND a.objectId IS NULL"), "0")
    }
}
