import CSQLite
import Foundation
import ParseModel
import PorterPipeline
import PorterSQLite
import PorterTestSupport
import XCTest

/// A mirror file in a fresh folder, a Book schema, and read-only SQL on the file.
class MirrorTestCase: XCTestCase {
    var directory: URL!
    var path: String { directory.appendingPathComponent("mirror.sqlite").path }

    override func setUpWithError() throws {
        directory = try temporaryFolder("mirror-tests")
    }

    let book = ClassSchema(
        className: "Book",
        fields: [
            SchemaField(name: "title", type: .string, required: true),
            SchemaField(name: "year", type: .number),
            SchemaField(name: "inPrint", type: .boolean),
            SchemaField(name: "released", type: .date),
            SchemaField(name: "genre", type: .pointer(targetClass: "Genre")),
            SchemaField(name: "tags", type: .array),
            SchemaField(name: "authors", type: .relation(targetClass: "Author")),
        ])

    func rows(_ sql: String) throws -> [[String?]] {
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil), SQLITE_OK)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(db, sql, -1, &statement, nil), SQLITE_OK, String(cString: sqlite3_errmsg(db)))
        defer { sqlite3_finalize(statement) }
        var result: [[String?]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            result.append((0..<sqlite3_column_count(statement)).map { sqlite3_column_text(statement, $0).map { String(cString: $0) } })
        }
        return result
    }
}

/// The mirror sink on its own: layout, outcomes, schema growth, links, commit and rollback.
final class SQLiteMirrorTests: MirrorTestCase {
    func object(_ id: String, title: String, year: ParseValue = .integer(1937), line: Int = 2) -> ResolvedObject {
        ResolvedObject(
            objectId: id, line: line,
            fields: [
                FieldValue("title", .string(title)), FieldValue("year", year), FieldValue("inPrint", .boolean(true)),
                FieldValue("released", .date(ParseDate(iso: "1937-09-21")!)),
                FieldValue("genre", .pointer(PointerRef(className: "Genre", objectId: "g1"))),
                FieldValue("tags", .array([.string("b"), .string("a")])),
            ], acl: ParseACL(["*": .init(read: true, write: false)]))
    }

    func testLayoutAndTypedColumns() throws {
        let mirror = SQLiteMirror(path: path)
        XCTAssertEqual(try mirror.existingSchemas(), [])
        try mirror.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        XCTAssertEqual(try mirror.write([object("b1", title: "The Hobbit", year: .double(12.5))], className: "Book", mode: .upsert), [.inserted])
        _ = try mirror.flush()
        try mirror.commit()
        XCTAssertEqual(
            try rows("SELECT objectId, title, year, typeof(year), inPrint, released, genre, tags, ACL FROM Book"),
            [["b1", "The Hobbit", "12.5", "real", "1", "1937-09-21T00:00:00.000Z", "g1", #"["b","a"]"#, #"{"*":{"read":true}}"#]])
        XCTAssertEqual(
            try rows("SELECT name FROM sqlite_master WHERE type IN ('table','index') ORDER BY name").map { $0[0]! },
            [
                "Book", "Book_naturalKey", "_Join:authors:Book", "_PorterMigrations", "_SCHEMA", "sqlite_autoindex_Book_1",
                "sqlite_autoindex__PorterMigrations_1", "sqlite_autoindex__SCHEMA_1",
            ])
        let stored = try XCTUnwrap(mirror.existingSchemas().first)
        XCTAssertEqual(stored.fields, book.fields)
        XCTAssertEqual(stored.classLevelPermissions, ClassSchema.defaultCLP, "a class with no CLP set reads back with Parse's defaults")
        XCTAssertTrue(try mirror.hasObject(className: "Book", objectId: "b1"))
        XCTAssertFalse(try mirror.hasObject(className: "Book", objectId: "nope"))
    }

    func testOutcomesOnAnExistingTable() throws {
        let first = SQLiteMirror(path: path)
        try first.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        _ = try first.write([object("b1", title: "The Hobbit"), object("b2", title: "Dune")], className: "Book", mode: .upsert)
        _ = try first.flush()
        try first.commit()
        let updatedAt = try rows("SELECT updatedAt FROM Book WHERE objectId = 'b1'")

        let second = SQLiteMirror(path: path)
        try second.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        let outcomes = try second.write(
            [object("b1", title: "The Hobbit"), object("b2", title: "Dune", year: .integer(1965)), object("b3", title: "Emma")],
            className: "Book", mode: .upsert)
        XCTAssertEqual(outcomes, [.unchanged, .updated, .inserted])
        XCTAssertEqual(
            try second.write([object("b4", title: "Dune")], className: "Book", mode: .upsert),
            [.failed("Book b4: another object in the target already has this title")])
        XCTAssertEqual(
            try second.write([object("b1", title: "The Hobbit")], className: "Book", mode: .insert),
            [.failed("Book b1 already exists in the target (mode: insert)")])
        XCTAssertEqual(
            try second.patch(
                className: "Book", field: "genre",
                values: [
                    ("b1", .pointer(PointerRef(className: "Genre", objectId: "g1"))),
                    ("b2", .null),
                ]), [.unchanged, .updated])
        _ = try second.flush()
        try second.commit()
        XCTAssertEqual(try rows("SELECT updatedAt FROM Book WHERE objectId = 'b1'"), updatedAt)
        XCTAssertEqual(
            try rows("SELECT objectId, year, genre FROM Book ORDER BY objectId"), [["b1", "1937", "g1"], ["b2", "1965", nil], ["b3", "1937", "g1"]])
    }

    /// A patch of a table the import created keeps the source's updatedAt; on an existing
    /// table, an object whose pointer changes gets this import's time.
    func testPatchKeepsTheSourceUpdatedAtInANewTable() throws {
        let source = ParseDate(iso: "2023-06-01T12:00:00.000Z")!
        let genre = ParseValue.pointer(PointerRef(className: "Genre", objectId: "g1"))
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: [book], naturalKeys: [:])
        let written = ResolvedObject(objectId: "b1", line: 2, fields: [FieldValue("title", .string("Dune"))], acl: nil, createdAt: source, updatedAt: source)
        XCTAssertEqual(try mirror.write([written], className: "Book", mode: .upsert), [.inserted])
        XCTAssertEqual(try mirror.patch(className: "Book", field: "genre", values: [("b1", genre)]), [.updated])
        _ = try mirror.flush()
        try mirror.commit()
        XCTAssertEqual(try rows("SELECT genre, updatedAt FROM Book"), [["g1", source.iso]])

        let again = SQLiteMirror(path: path)
        try again.begin(schemas: [book], naturalKeys: [:])
        XCTAssertEqual(try again.patch(className: "Book", field: "genre", values: [("b1", .null)]), [.updated])
        _ = try again.flush()
        try again.commit()
        XCTAssertNotEqual(try rows("SELECT updatedAt FROM Book"), [[source.iso]])
    }

    func testMergeKeepsWhatTheObjectLacks() throws {
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        _ = try mirror.write([object("b1", title: "The Hobbit")], className: "Book", mode: .upsert)
        _ = try mirror.flush()
        try mirror.commit()
        let again = SQLiteMirror(path: path)
        try again.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        XCTAssertEqual(try again.write([object("b1", title: "The Hobbit", year: .null)], className: "Book", mode: .merge), [.unchanged])
        XCTAssertEqual(try again.write([object("b1", title: "The Hobbit", year: .null)], className: "Book", mode: .upsert), [.updated])
        _ = try again.flush()
        try again.commit()
        XCTAssertEqual(try rows("SELECT year FROM Book"), [[nil]])
    }

    /// Links into a new join table are staged and counted at flush; on an
    /// existing table, `replace` makes each owner's links exactly the given set.
    func testLinks() throws {
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        let links = [RelationLinks(ownerId: "b2", relatedIds: ["a3", "a1"], line: 2), RelationLinks(ownerId: "b1", relatedIds: ["a2", "a1", "a2"], line: 3)]
        XCTAssertEqual(try mirror.link(owner: "Book", field: "authors", targetClass: "Author", links, replace: true), LinkChanges())
        XCTAssertEqual(try mirror.flush(), ["Book.authors": LinkChanges(added: 4)])
        try mirror.commit()
        XCTAssertEqual(
            try rows(#"SELECT owningId, relatedId FROM "_Join:authors:Book" ORDER BY 1, 2"#),
            [["b1", "a1"], ["b1", "a2"], ["b2", "a1"], ["b2", "a3"]])

        let again = SQLiteMirror(path: path)
        try again.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        XCTAssertEqual(
            try again.link(
                owner: "Book", field: "authors", targetClass: "Author",
                [RelationLinks(ownerId: "b1", relatedIds: ["a1", "a4"], line: 3)], replace: true), LinkChanges(added: 1, removed: 1))
        XCTAssertEqual(
            try again.link(
                owner: "Book", field: "authors", targetClass: "Author",
                [RelationLinks(ownerId: "b2", relatedIds: ["a5"], line: 2)], replace: false), LinkChanges(added: 1))
        XCTAssertEqual(try again.flush(), [:])
        try again.commit()
        XCTAssertEqual(
            try rows(#"SELECT owningId, relatedId FROM "_Join:authors:Book" ORDER BY 1, 2"#),
            [["b1", "a1"], ["b1", "a4"], ["b2", "a1"], ["b2", "a3"], ["b2", "a5"]])
    }

    func testSchemaGrowsWithNewFields() throws {
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        try mirror.commit()
        var grown = book
        grown.fields.append(SchemaField(name: "pages", type: .number, defaultValue: .integer(100)))
        let again = SQLiteMirror(path: path)
        try again.begin(schemas: [grown], naturalKeys: ["Book": ["title"]])
        try again.commit()
        XCTAssertEqual(try again.existingSchemas().first?.field(named: "pages"), SchemaField(name: "pages", type: .number, defaultValue: .integer(100)))
        XCTAssertEqual(try rows("SELECT name, type FROM pragma_table_info('Book') WHERE name = 'pages'"), [["pages", "NUMERIC"]])
    }

    func testRollbackRemovesANewFileAndRestoresAnOldOne() throws {
        let fresh = SQLiteMirror(path: path)
        try fresh.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        _ = try fresh.write([object("b1", title: "The Hobbit")], className: "Book", mode: .upsert)
        fresh.rollback()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        let seeded = SQLiteMirror(path: path)
        try seeded.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        try seeded.commit()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let failing = SQLiteMirror(path: path)
        try failing.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        _ = try failing.write([object("b1", title: "The Hobbit")], className: "Book", mode: .upsert)
        failing.rollback()
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    /// A new table is written without a statement journal (INSERT OR IGNORE); a row that clashes
    /// with one already written is still a failure, never left out in silence.
    func testARowClashingInANewTableFailsTheWriteAndTheRollbackLeavesNoFile() throws {
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        XCTAssertEqual(try mirror.write([object("b1", title: "The Hobbit")], className: "Book", mode: .upsert), [.inserted])
        XCTAssertThrowsError(try mirror.write([object("b2", title: "Dune"), object("b1", title: "Emma")], className: "Book", mode: .upsert)) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .target)
            XCTAssertEqual((error as? PorterError)?.message, "Book: 1 of 2 objects from line 2 clash with objects already written (same objectId or key)")
        }
        mirror.rollback()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testUnopenableTargetIsATargetError() throws {
        let mirror = SQLiteMirror(path: directory.appendingPathComponent("missing/dir/mirror.sqlite").path)
        XCTAssertThrowsError(try mirror.begin(schemas: [book], naturalKeys: [:])) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .target)
        }
    }
}
