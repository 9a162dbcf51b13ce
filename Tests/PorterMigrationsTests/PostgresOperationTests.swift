import Foundation
import ParseModel
import PorterMigrations
import PorterPostgres
import PorterTestSupport
import XCTest

/// The migration operations that read and write objects, run by ``OperationRunner`` on a Parse
/// Server's PostgreSQL database (the tests' private cluster): the same ``Library`` and the same
/// expectations as ``OperationRunnerTests`` on a mirror and a Parse Server, read back from the
/// tables, join tables and `_SCHEMA` with SQL. Each operation run again changes nothing.
final class PostgresOperationTests: XCTestCase {
    /// The library's objectIds, fixed here because its rows are written with SQL.
    private static let ids = [
        "Herbert": "herbert", "Le Guin": "leguin", "Science Fiction": "scifi", "Fantasy": "fantasy",
        "Dune": "dune", "The Left Hand of Darkness": "lefthand", "A Wizard of Earthsea": "earthsea", "Neuromancer": "neuromancer",
    ]

    private struct Database {
        let target: PostgresDatabaseTarget
        let connection: PostgresConnection

        func rows(_ sql: String) throws -> [[String?]] { try connection.execute(sql) }

        func columns(_ table: String) throws -> [String] {
            try rows("SELECT column_name FROM information_schema.columns WHERE table_name = '\(table)' ORDER BY column_name").compactMap { $0[0] }
        }

        func tables() throws -> [String] {
            try rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1").compactMap { $0[0] }
        }

        /// Every table with its rows as text, sorted, for "nothing changed" checks.
        func snapshot() throws -> [String: [String]] {
            var tables: [String: [String]] = [:]
            for table in try self.tables() {
                tables[table] = try rows("SELECT t::text FROM \"\(table)\" t").compactMap { $0[0] }.sorted()
            }
            return tables
        }
    }

    /// A new database holding the library: classes through the target's `/schemas` requests,
    /// objects and links written as Parse Server stores them.
    private func library() throws -> Database {
        let url = try PostgresCluster.shared().createDatabase()
        let target = try PostgresDatabaseTarget(url: url)
        try Library.createClasses(on: target.api)
        let connection = try PostgresConnection(url: url)
        addTeardownBlock { connection.close() }
        let created = "'2024-01-02T03:04:05.678Z'"
        for statement in [
            #"INSERT INTO "Author" ("objectId", "createdAt", "updatedAt", "name") VALUES ('herbert', \#(created), \#(created), 'Herbert'), ('leguin', \#(created), \#(created), 'Le Guin')"#,
            #"INSERT INTO "Genre" ("objectId", "createdAt", "updatedAt", "name") VALUES ('scifi', \#(created), \#(created), 'Science Fiction'), ('fantasy', \#(created), \#(created), 'Fantasy')"#,
            #"""
            INSERT INTO "Book" ("objectId", "createdAt", "updatedAt", "title", "year", "pages", "notes", "genre") VALUES
              ('dune', \#(created), \#(created), 'Dune', 1965, 412, 'The spice must flow.', 'scifi'),
              ('lefthand', \#(created), \#(created), 'The Left Hand of Darkness', 1969, 304, NULL, 'scifi'),
              ('earthsea', \#(created), \#(created), 'A Wizard of Earthsea', 1968, 183, NULL, 'fantasy'),
              ('neuromancer', \#(created), \#(created), 'Neuromancer', 1984, 271, NULL, 'scifi')
            """#,
            #"INSERT INTO "_Join:authors:Book" ("relatedId", "owningId") VALUES ('herbert', 'dune'), ('leguin', 'lefthand'), ('leguin', 'earthsea')"#,
            #"INSERT INTO "_Join:books:Genre" ("relatedId", "owningId") VALUES ('dune', 'scifi'), ('lefthand', 'scifi'), ('neuromancer', 'scifi'), ('earthsea', 'fantasy')"#,
        ] {
            try connection.execute(statement)
        }
        return Database(target: target, connection: connection)
    }

    private func apply(_ operation: MigrationOperation, on database: Database) throws -> OperationResult {
        try blocking { try await OperationRunner(target: database.target, migrationsFolder: "Migrations").apply(operation) }
    }

    private func assertRerunChangesNothing(_ operation: MigrationOperation, on database: Database, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try database.snapshot()
        let again = try apply(operation, on: database)
        XCTAssertEqual(again.schemaChanges, 0, again.summary, file: file, line: line)
        XCTAssertEqual(again.objectsWritten, 0, again.summary, file: file, line: line)
        XCTAssertEqual(try database.snapshot(), before, "a second run changed the database", file: file, line: line)
    }

    private func pointer(_ className: String, _ name: String) -> String {
        #"{"__type":"Pointer","className":"\#(className)","objectId":"\#(Self.ids[name]!)"}"#
    }

    func testRenameMovesValuesPointersAndRelationLinks() throws {
        let database = try library()
        let years = try database.rows(#"SELECT title, year::text FROM "Book" ORDER BY title"#)
        let links = try database.rows(#"SELECT "owningId", "relatedId" FROM "_Join:authors:Book" ORDER BY 1, 2"#)

        let renamed = try apply(.renameField(className: "Book", from: "year", to: "publishingYear"), on: database)
        XCTAssertEqual(renamed.objectsWritten, 4, renamed.summary)
        XCTAssertEqual(try database.rows(#"SELECT title, "publishingYear"::text FROM "Book" ORDER BY title"#), years)
        XCTAssertFalse(try database.columns("Book").contains("year"))
        let schema = try XCTUnwrap(try blocking { try await database.target.api.schema(of: "Book") })
        XCTAssertNil(schema.field(named: "year"))
        XCTAssertEqual(schema.field(named: "publishingYear")?.type, .number)
        XCTAssertEqual(
            try database.rows(#"SELECT "schema"->'fields'->'publishingYear'->>'type', "schema"->'fields'->'year' FROM "_SCHEMA" WHERE "className" = 'Book'"#),
            [["Number", nil]])

        _ = try apply(.renameField(className: "Book", from: "genre", to: "category"), on: database)
        XCTAssertEqual(try blocking { try await database.target.api.schema(of: "Book")?.field(named: "category")?.type }, .pointer(targetClass: "Genre"))
        XCTAssertEqual(try database.rows(#"SELECT category FROM "Book" WHERE title = 'A Wizard of Earthsea'"#), [["fantasy"]])

        _ = try apply(.renameField(className: "Book", from: "authors", to: "writers"), on: database)
        XCTAssertEqual(try database.rows(#"SELECT "owningId", "relatedId" FROM "_Join:writers:Book" ORDER BY 1, 2"#), links)
        XCTAssertFalse(try database.tables().contains("_Join:authors:Book"))
        XCTAssertEqual(try blocking { try await database.target.api.schema(of: "Book")?.field(named: "writers")?.type }, .relation(targetClass: "Author"))

        for (from, to) in [("year", "publishingYear"), ("genre", "category"), ("authors", "writers")] {
            try assertRerunChangesNothing(.renameField(className: "Book", from: from, to: to), on: database)
        }
    }

    func testChangeTypeConvertsEveryValueAndRefusesValuesThatDoNotConvert() throws {
        let database = try library()
        let changed = try apply(.changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false), on: database)
        XCTAssertEqual(changed.objectsWritten, 4, changed.summary)
        XCTAssertEqual(
            try database.rows(#"SELECT title, pages, pg_typeof(pages)::text FROM "Book" ORDER BY title"#),
            [
                ["A Wizard of Earthsea", "183", "text"], ["Dune", "412", "text"], ["Neuromancer", "271", "text"], ["The Left Hand of Darkness", "304", "text"],
            ])
        XCTAssertEqual(try blocking { try await database.target.api.schema(of: "Book")?.field(named: "pages")?.type }, .string)
        XCTAssertFalse(try database.columns("Book").contains { $0.contains("__porter_") }, "the temporary column is left")
        try assertRerunChangesNothing(.changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false), on: database)

        try database.connection.execute(#"UPDATE "Book" SET notes = '12' WHERE "objectId" = 'neuromancer'"#)
        let before = try database.snapshot()
        assertFails(
            .invalidData, containing: ["Book.notes", "String to Number", "1 value", #"dune notes = "The spice must flow.""#, "allowDataLoss: true"], "refused"
        ) {
            try apply(.changeType(className: "Book", field: "notes", type: .number, allowDataLoss: false), on: database)
        }
        XCTAssertEqual(try database.snapshot(), before, "a refused type change wrote something")
        let lossy = try apply(.changeType(className: "Book", field: "notes", type: .number, allowDataLoss: true), on: database)
        XCTAssertTrue(lossy.summary.contains("1 unconvertible value unset"), lossy.summary)
        XCTAssertEqual(
            try database.rows(#"SELECT title, notes::text, pg_typeof(notes)::text FROM "Book" WHERE notes IS NOT NULL OR title = 'Dune' ORDER BY title"#),
            [["Dune", nil, "double precision"], ["Neuromancer", "12", "double precision"]])
    }

    func testUpdateObjectsSetsAndUnsetsFieldsOfTheObjectsMatchingWhere() throws {
        let database = try library()
        let update = MigrationOperation.updateObjects(
            className: "Book", where: try jsonObject(#"{"year":{"$lt":1969}}"#),
            set: try jsonObject(#"{"pages":100,"notes":{"__op":"Delete"},"genre":\#(pointer("Genre", "Fantasy")),"ACL":{"*":{"read":true}}}"#))
        let updated = try apply(update, on: database)
        XCTAssertEqual(updated.summary, "updated 2 Book objects (0 already up to date)")
        XCTAssertEqual(
            try database.rows(#"SELECT title, pages::text, notes, genre, "_rperm"::text, "_wperm"::text FROM "Book" ORDER BY title"#),
            [
                ["A Wizard of Earthsea", "100", nil, "fantasy", "{*}", "{}"], ["Dune", "100", nil, "fantasy", "{*}", "{}"],
                ["Neuromancer", "271", nil, "scifi", nil, nil], ["The Left Hand of Darkness", "304", nil, "scifi", nil, nil],
            ])
        XCTAssertEqual(
            try database.rows(#"SELECT "objectId" FROM "Book" WHERE "updatedAt" > "createdAt" ORDER BY 1"#), [["dune"], ["earthsea"]],
            "updatedAt moves on the objects written, and only on them")
        try assertRerunChangesNothing(update, on: database)
    }

    /// A value of every type a column holds, set by `updateObjects` and read back through the
    /// target's query as Parse Server's `postgresObjectToParseObject` gives it; a second run
    /// finds every value held.
    func testUpdateObjectsWritesEveryColumnType() throws {
        let database = try library()
        let fields = #"""
            {"fields":{"released":{"type":"Date"},"inPrint":{"type":"Boolean"},"details":{"type":"Object"},"tags":{"type":"Array"},
             "shop":{"type":"GeoPoint"},"cover":{"type":"File"},"scan":{"type":"Bytes"},"area":{"type":"Polygon"}}}
            """#
        _ = try blocking { try await database.target.api.send("PUT", "/schemas/Book", body: json(fields)) }
        let values = #"""
            {"released":{"__type":"Date","iso":"1965-08-01T12:30:00.250Z"},"inPrint":false,"details":{"isbn":"0-441-17271-7","tab":"a\tb\\c"},
             "tags":["spice",1965,{"n":null}],"shop":{"__type":"GeoPoint","latitude":52.37,"longitude":4.89},
             "cover":{"__type":"File","name":"dune.jpg"},"scan":{"__type":"Bytes","base64":"AQID"},
             "area":{"__type":"Polygon","coordinates":[[1,2],[3,4],[5,6],[1,2]]}}
            """#
        let update = MigrationOperation.updateObjects(className: "Book", where: try jsonObject(#"{"title":"Dune"}"#), set: try jsonObject(values))
        XCTAssertEqual(try apply(update, on: database).objectsWritten, 1)
        let found = try blocking {
            try await database.target.api.send("GET", "/classes/Book", query: [("where", #"{"objectId":"dune"}"#)], body: nil)
        }
        guard case .array(let results)? = found["results"], case .object(let dune)? = results.first else { return XCTFail(found.serialized()) }
        for member in try jsonObject(values) {
            let stored = try XCTUnwrap(dune[member.key], member.key)
            XCTAssertEqual(try ParseValue(wire: stored), try ParseValue(wire: member.value), member.key)
        }
        XCTAssertEqual(
            try database.rows(#"SELECT released::text, "inPrint"::text, shop::text, cover FROM "Book" WHERE "objectId" = 'dune'"#),
            [["1965-08-01 12:30:00.25+00", "false", "(4.89,52.37)", "dune.jpg"]])
        try assertRerunChangesNothing(update, on: database)
    }

    func testDeleteObjectsRemovesTheObjectsAndTheirRelationLinks() throws {
        let database = try library()
        let delete = MigrationOperation.deleteObjects(className: "Book", where: try jsonObject(#"{"year":{"$lt":1969}}"#))
        let deleted = try apply(delete, on: database)
        XCTAssertEqual(deleted.objectsWritten, 2, deleted.summary)
        XCTAssertEqual(try database.rows(#"SELECT title FROM "Book" ORDER BY title"#), [["Neuromancer"], ["The Left Hand of Darkness"]])
        XCTAssertEqual(
            try database.rows(#"SELECT "owningId", "relatedId" FROM "_Join:authors:Book""#), [["lefthand", "leguin"]], "links owned by deleted books")
        XCTAssertEqual(
            try database.rows(#"SELECT "relatedId" FROM "_Join:books:Genre" ORDER BY 1"#), [["lefthand"], ["neuromancer"]], "links to deleted books")
        try assertRerunChangesNothing(delete, on: database)
    }

    /// A type change whose temporary field would be named past the 63 bytes PostgreSQL keeps
    /// is refused when that field is added, before any value is copied.
    func testAChangeTypeWhoseTemporaryFieldNameIsTooLongIsRefused() throws {
        let database = try library()
        let name = String(repeating: "p", count: 49)
        _ = try blocking { try await database.target.api.send("PUT", "/schemas/Book", body: json(#"{"fields":{"\#(name)":{"type":"Number"}}}"#)) }
        try database.connection.execute(#"UPDATE "Book" SET "\#(name)" = pages"#)
        let before = try database.snapshot()
        assertFails(.target, containing: ["\(name)__porter_String", "64 bytes", "63 bytes PostgreSQL keeps of a name"], "too long") {
            try apply(.changeType(className: "Book", field: name, type: .string, allowDataLoss: false), on: database)
        }
        XCTAssertEqual(try database.snapshot(), before)
    }

    /// A `where` PostgreSQL cannot be asked is refused by name before anything is written.
    func testAWhereTheDatabaseCannotAnswerIsRefusedBeforeWriting() throws {
        let database = try library()
        let before = try database.snapshot()
        assertFails(.target, containing: ["Parse error 102", "title: $regex is not supported"], "regex") {
            try apply(
                .updateObjects(className: "Book", where: try jsonObject(#"{"title":{"$regex":"^D"}}"#), set: try jsonObject(#"{"pages":1}"#)), on: database)
        }
        XCTAssertEqual(try database.snapshot(), before)
    }
}
