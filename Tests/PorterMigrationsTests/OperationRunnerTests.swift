import Foundation
import ParseModel
import PorterMigrations
import PorterPipeline
import XCTest

/// Each operation on a mirror and on a served mirror (a Parse Server over HTTP), checked in the
/// mirror file it wrote; each is then run again and must change nothing.
final class OperationRunnerTests: XCTestCase {
    private func runner(_ fixture: TargetFixture) -> OperationRunner {
        OperationRunner(target: fixture.target, migrationsFolder: "Migrations")
    }

    private func columns(_ fixture: TargetFixture, _ table: String) throws -> [String] {
        try fixture.rows("SELECT name FROM pragma_table_info('\(table)')").compactMap { $0[0] }
    }

    private func tables(_ fixture: TargetFixture) throws -> [String] {
        try fixture.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0] }
    }

    /// Applies `operation` again and asserts it reports and does nothing.
    private func assertRerunChangesNothing(
        _ operation: MigrationOperation, on fixture: TargetFixture,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let before = try fixture.snapshot()
        let again = try blocking { try await runner(fixture).apply(operation) }
        XCTAssertEqual(again.schemaChanges, 0, "\(fixture.kind): \(again.summary)", file: file, line: line)
        XCTAssertEqual(again.objectsWritten, 0, "\(fixture.kind): \(again.summary)", file: file, line: line)
        XCTAssertEqual(try fixture.snapshot(), before, "\(fixture.kind): a second run changed the target", file: file, line: line)
    }

    // MARK: Classes, fields, indexes, permissions

    func testCreateClassMakesFieldsPermissionsAndIndexesThenCompletesAnExistingClass() throws {
        let book = try ClassSchema(
            schemaJSON: json(
                #"""
                {"className":"Book",
                 "fields":{"title":{"type":"String","required":true},"pages":{"type":"Number"},"genre":{"type":"Pointer","targetClass":"Genre"}},
                 "classLevelPermissions":{"find":{"*":true},"get":{"*":true},"create":{"role:Librarian":true}},
                 "indexes":{"_id_":{"_id":1},"title_1":{"title":1}}}
                """#))
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let created = try blocking { try await runner(fixture).apply(.createClass(book)) }
            XCTAssertEqual(created.summary, "created class Book (3 fields, 1 index)", label)
            let schema = try XCTUnwrap(try blocking { try await fixture.target.api.schema(of: "Book") }, label)
            XCTAssertEqual(schema.fields, book.fields, label)
            XCTAssertEqual(schema.indexes?["title_1"], try json(#"{"title":1}"#), label)
            XCTAssertEqual(schema.classLevelPermissions?["create"], try json(#"{"role:Librarian":true}"#), label)
            XCTAssertEqual(schema.classLevelPermissions?["delete"], try json("{}"), label)
            XCTAssertEqual(try columns(fixture, "Book"), ["objectId", "createdAt", "updatedAt", "ACL", "title", "pages", "genre"], label)
            try assertRerunChangesNothing(.createClass(book), on: fixture)

            var more = book
            more.fields.append(SchemaField(name: "isbn", type: .string))
            more.indexes = try json(#"{"title_1":{"title":1},"isbn_1":{"isbn":1}}"#)
            let completed = try blocking { try await runner(fixture).apply(.createClass(more)) }
            XCTAssertEqual(completed.summary, "class Book existed: added fields isbn; added indexes isbn_1", label)
            XCTAssertEqual(try blocking { try await fixture.target.api.schema(of: "Book")?.indexes?["isbn_1"] }, try json(#"{"isbn":1}"#), label)
            XCTAssertTrue(try columns(fixture, "Book").contains("isbn"), label)

            var conflicting = more
            conflicting.fields[1].type = .string
            conflicting.fields.append(SchemaField(name: "subtitle", type: .string))
            let before = try fixture.snapshot()
            assertFails(.invalidData, containing: ["Book.pages is Number, not String"], label) {
                try blocking { try await runner(fixture).apply(.createClass(conflicting)) }
            }
            XCTAssertEqual(try fixture.snapshot(), before, "\(label): a refused createClass wrote something")
        }
    }

    func testAddFieldAndDeleteFieldWithItsValues() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            _ = try Library(on: fixture.target.api)
            let isbn = SchemaField(name: "isbn", type: .string)
            XCTAssertEqual(try blocking { try await runner(fixture).apply(.addField(className: "Book", field: isbn)).summary }, "added field Book.isbn", label)
            XCTAssertEqual(try blocking { try await fixture.target.api.schema(of: "Book")?.field(named: "isbn") }, isbn, label)
            XCTAssertTrue(try columns(fixture, "Book").contains("isbn"), label)
            try assertRerunChangesNothing(.addField(className: "Book", field: isbn), on: fixture)

            let required = SchemaField(name: "isbn", type: .string, required: true)
            XCTAssertEqual(
                try blocking { try await runner(fixture).apply(.addField(className: "Book", field: required)).summary }, "updated the options of Book.isbn",
                label)
            XCTAssertEqual(try blocking { try await fixture.target.api.schema(of: "Book")?.field(named: "isbn") }, required, label)
            assertFails(.invalidData, containing: ["Book.isbn exists as String, not Number"], label) {
                try blocking { try await runner(fixture).apply(.addField(className: "Book", field: SchemaField(name: "isbn", type: .number))) }
            }
            assertFails(.invalidData, containing: ["class Shelf does not exist"], label) {
                try blocking { try await runner(fixture).apply(.addField(className: "Shelf", field: isbn)) }
            }

            XCTAssertEqual(try fixture.rows("SELECT count(*) FROM Book WHERE notes IS NOT NULL"), [["1"]], label)
            XCTAssertEqual(try blocking { try await runner(fixture).apply(.deleteField(className: "Book", name: "notes")).schemaChanges }, 1, label)
            XCTAssertNil(try blocking { try await fixture.target.api.schema(of: "Book")?.field(named: "notes") }, label)
            XCTAssertFalse(try columns(fixture, "Book").contains("notes"), label)
            try assertRerunChangesNothing(.deleteField(className: "Book", name: "notes"), on: fixture)

            XCTAssertTrue(try tables(fixture).contains("_Join:authors:Book"), label)
            _ = try blocking { try await runner(fixture).apply(.deleteField(className: "Book", name: "authors")) }
            XCTAssertFalse(try tables(fixture).contains("_Join:authors:Book"), "\(label): the deleted relation's links are kept")
        }
    }

    func testAddIndexAndDropIndex() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            _ = try Library(on: fixture.target.api)
            let keys = try json(#"{"year":-1,"title":1}"#)
            XCTAssertEqual(
                try blocking { try await runner(fixture).apply(.addIndex(className: "Book", name: "year_title", keys: keys)).schemaChanges }, 1, label)
            XCTAssertEqual(try blocking { try await fixture.target.api.schema(of: "Book")?.indexes?["year_title"] }, keys, label)
            try assertRerunChangesNothing(.addIndex(className: "Book", name: "year_title", keys: keys), on: fixture)
            assertFails(.invalidData, containing: ["index Book.year_title exists on", #"{"year":1}"#], label) {
                try blocking { try await runner(fixture).apply(.addIndex(className: "Book", name: "year_title", keys: try json(#"{"year":1}"#))) }
            }
            // Parse Server names a Pointer field `_p_<field>` in index keys (Mongo notation).
            let pointerKeys = try json(#"{"_p_genre":1}"#)
            XCTAssertEqual(
                try blocking { try await runner(fixture).apply(.addIndex(className: "Book", name: "genre_1", keys: pointerKeys)).schemaChanges }, 1, label)

            XCTAssertEqual(
                try blocking { try await runner(fixture).apply(.dropIndex(className: "Book", name: "year_title")).summary }, "dropped index Book.year_title",
                label)
            XCTAssertNil(try blocking { try await fixture.target.api.schema(of: "Book")?.indexes?["year_title"] }, label)
            XCTAssertEqual(try blocking { try await fixture.target.api.schema(of: "Book")?.indexes?["genre_1"] }, pointerKeys, label)
            try assertRerunChangesNothing(.dropIndex(className: "Book", name: "year_title"), on: fixture)
        }
    }

    func testSetPermissions() throws {
        let permissions = try json(#"{"find":{"*":true},"get":{"*":true},"update":{"role:Librarian":true},"delete":{"role:Librarian":true}}"#)
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            _ = try Library(on: fixture.target.api)
            XCTAssertEqual(
                try blocking { try await runner(fixture).apply(.setPermissions(className: "Book", classLevelPermissions: permissions)).schemaChanges }, 1, label
            )
            let stored = try XCTUnwrap(try blocking { try await fixture.target.api.schema(of: "Book") }?.classLevelPermissions, label)
            XCTAssertEqual(stored["update"], try json(#"{"role:Librarian":true}"#), label)
            XCTAssertEqual(stored["create"], try json("{}"), "\(label): an operation left out is master-key only")
            let schemaRow = try XCTUnwrap(fixture.rows("SELECT schema FROM _SCHEMA WHERE className = 'Book'").first?[0] ?? nil, label)
            XCTAssertEqual(try json(schemaRow)["classLevelPermissions"]?["update"], try json(#"{"role:Librarian":true}"#), label)
            try assertRerunChangesNothing(.setPermissions(className: "Book", classLevelPermissions: permissions), on: fixture)
        }
    }

    // MARK: Rename and type change

    func testRenameMovesValuesPointersAndRelationLinks() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let library = try Library(on: fixture.target.api)
            let years = try fixture.rows("SELECT title, year FROM Book ORDER BY title")
            let links = try fixture.rows(#"SELECT owningId, relatedId FROM "_Join:authors:Book" ORDER BY 1, 2"#)
            XCTAssertEqual(links.count, 3, label)

            let renamed = try blocking { try await runner(fixture).apply(.renameField(className: "Book", from: "year", to: "publishingYear")) }
            XCTAssertEqual(renamed.objectsWritten, 4, "\(label): \(renamed.summary)")
            XCTAssertEqual(try fixture.rows("SELECT title, publishingYear FROM Book ORDER BY title"), years, label)
            XCTAssertFalse(try columns(fixture, "Book").contains("year"), label)
            let schema = try XCTUnwrap(try blocking { try await fixture.target.api.schema(of: "Book") }, label)
            XCTAssertNil(schema.field(named: "year"), label)
            XCTAssertEqual(schema.field(named: "publishingYear")?.type, .number, label)

            _ = try blocking { try await runner(fixture).apply(.renameField(className: "Book", from: "genre", to: "category")) }
            XCTAssertEqual(
                try blocking { try await fixture.target.api.schema(of: "Book")?.field(named: "category")?.type }, .pointer(targetClass: "Genre"), label)
            XCTAssertEqual(try fixture.rows("SELECT category FROM Book WHERE title = 'A Wizard of Earthsea'"), [[library.id("Fantasy")]], label)

            _ = try blocking { try await runner(fixture).apply(.renameField(className: "Book", from: "authors", to: "writers")) }
            XCTAssertEqual(try fixture.rows(#"SELECT owningId, relatedId FROM "_Join:writers:Book" ORDER BY 1, 2"#), links, label)
            XCTAssertFalse(try tables(fixture).contains("_Join:authors:Book"), label)
            XCTAssertEqual(
                try blocking { try await fixture.target.api.schema(of: "Book")?.field(named: "writers")?.type }, .relation(targetClass: "Author"), label)

            for (from, to) in [("year", "publishingYear"), ("genre", "category"), ("authors", "writers")] {
                try assertRerunChangesNothing(.renameField(className: "Book", from: from, to: to), on: fixture)
            }
            assertFails(.invalidData, containing: ["renamed to itself"], label) {
                try blocking { try await runner(fixture).apply(.renameField(className: "Book", from: "title", to: "title")) }
            }
            assertFails(.invalidData, containing: ["Book has neither shelf nor place"], label) {
                try blocking { try await runner(fixture).apply(.renameField(className: "Book", from: "shelf", to: "place")) }
            }
        }
    }

    func testChangeTypeConvertsEveryValue() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            _ = try Library(on: fixture.target.api)
            let changed = try blocking { try await runner(fixture).apply(.changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false)) }
            XCTAssertEqual(changed.objectsWritten, 4, "\(label): \(changed.summary)")
            XCTAssertEqual(
                try fixture.rows("SELECT title, pages, typeof(pages) FROM Book ORDER BY title"),
                [
                    ["A Wizard of Earthsea", "183", "text"], ["Dune", "412", "text"], ["Neuromancer", "271", "text"],
                    ["The Left Hand of Darkness", "304", "text"],
                ], label)
            let schema = try XCTUnwrap(try blocking { try await fixture.target.api.schema(of: "Book") }, label)
            XCTAssertEqual(schema.field(named: "pages")?.type, .string, label)
            XCTAssertFalse(schema.fields.contains { $0.name.contains("__porter_") }, "\(label): the temporary field is left")
            XCTAssertFalse(try columns(fixture, "Book").contains { $0.contains("__porter_") }, label)
            try assertRerunChangesNothing(.changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false), on: fixture)

            _ = try blocking { try await runner(fixture).apply(.changeType(className: "Book", field: "genre", type: .string, allowDataLoss: false)) }
            XCTAssertEqual(
                try fixture.rows("SELECT g.name FROM Book b JOIN Genre g ON g.objectId = b.genre WHERE b.title = 'Dune'"), [["Science Fiction"]], label)
        }
    }

    func testChangeTypeRefusesValuesThatDoNotConvertUnlessDataLossIsAllowed() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let library = try Library(on: fixture.target.api)
            _ = try blocking { try await fixture.target.api.send("PUT", "/classes/Book/\(library.id("Neuromancer"))", body: json(#"{"notes":"12"}"#)) }
            let before = try fixture.snapshot()
            assertFails(
                .invalidData,
                containing: [
                    "Book.notes", "String to Number", "1 value", library.id("Dune"), #"notes = "The spice must flow.""#,
                    "allowDataLoss: true",
                ], label
            ) {
                try blocking { try await runner(fixture).apply(.changeType(className: "Book", field: "notes", type: .number, allowDataLoss: false)) }
            }
            XCTAssertEqual(try fixture.snapshot(), before, "\(label): a refused type change wrote something")

            let lossy = try blocking { try await runner(fixture).apply(.changeType(className: "Book", field: "notes", type: .number, allowDataLoss: true)) }
            XCTAssertTrue(lossy.summary.contains("1 unconvertible value unset"), "\(label): \(lossy.summary)")
            XCTAssertEqual(
                try fixture.rows("SELECT title, notes FROM Book WHERE notes IS NOT NULL OR title = 'Dune' ORDER BY title"),
                [["Dune", nil], ["Neuromancer", "12"]], label)
            XCTAssertEqual(try blocking { try await fixture.target.api.schema(of: "Book")?.field(named: "notes")?.type }, .number, label)
            assertFails(.invalidData, containing: ["Relation fields do not convert"], label) {
                try blocking { try await runner(fixture).apply(.changeType(className: "Book", field: "authors", type: .string, allowDataLoss: true)) }
            }
        }
    }

    // MARK: Data

    func testImportDatasetFromAPathRelativeToTheMigrationsFolder() throws {
        let root = PackageFolders.root
        let operation = MigrationOperation.importDataset(path: "../Fixtures/library")
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let runner = OperationRunner(target: fixture.target, migrationsFolder: root.appendingPathComponent("Migrations").path)
            let imported = try blocking { try await runner.apply(operation) }
            XCTAssertTrue(imported.summary.hasPrefix("imported \(root.path)/Fixtures/library:"), "\(label): \(imported.summary)")
            let counts = try ["Book", "Genre", "Author", "Publisher", "ISBN"].map { try fixture.rows("SELECT count(*) FROM \($0)")[0][0] }
            XCTAssertEqual(counts, ["43", "12", "42", "13", "43"], label)
            XCTAssertEqual(imported.objectsWritten, 153, label)
            XCTAssertEqual(
                try fixture.rows("SELECT g.name FROM Book b JOIN Genre g ON g.objectId = b.genre WHERE b.title = 'Dune'"), [["Science Fiction"]], label)
            let again = try blocking { try await runner.apply(operation) }
            XCTAssertEqual(again.objectsWritten, 0, "\(label): \(again.summary)")
            XCTAssertEqual(try ["Book", "Genre", "Author", "Publisher", "ISBN"].map { try fixture.rows("SELECT count(*) FROM \($0)")[0][0] }, counts, label)
        }
    }

    func testUpdateObjectsSetsAndUnsetsFieldsOfTheObjectsMatchingWhere() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let library = try Library(on: fixture.target.api)
            let update = MigrationOperation.updateObjects(
                className: "Book", where: try jsonObject(#"{"year":{"$lt":1969}}"#),
                set: try jsonObject(#"{"pages":100,"notes":{"__op":"Delete"},"genre":\#(library.pointer("Genre", "Fantasy"))}"#))
            let updated = try blocking { try await runner(fixture).apply(update) }
            XCTAssertEqual(updated.summary, "updated 2 Book objects (0 already up to date)", label)
            XCTAssertEqual(
                try fixture.rows("SELECT title, pages, notes, genre FROM Book ORDER BY title"),
                [
                    ["A Wizard of Earthsea", "100", nil, library.id("Fantasy")], ["Dune", "100", nil, library.id("Fantasy")],
                    ["Neuromancer", "271", nil, library.id("Science Fiction")], ["The Left Hand of Darkness", "304", nil, library.id("Science Fiction")],
                ], label)
            try assertRerunChangesNothing(update, on: fixture)
        }
    }

    func testUpdateObjectsChecksClassWhereAndValuesBeforeWriting() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            _ = try Library(on: fixture.target.api)
            let before = try fixture.snapshot()
            let cases: [(JSONObject, JSONObject, [String])] = [
                (try jsonObject(#"{"shelf":1}"#), try jsonObject(#"{"pages":1}"#), ["where: Book has no field shelf"]),
                (try jsonObject(#"{"$or":[{"year":1965},{"place.x":1}]}"#), try jsonObject(#"{"pages":1}"#), ["has no field place.x"]),
                (JSONObject(), try jsonObject(#"{"title":"ok","pages":"many"}"#), ["Book.pages is Number, not String"]),
                (
                    JSONObject(), try jsonObject(#"{"genre":{"__type":"Pointer","className":"Author","objectId":"a"}}"#),
                    ["Book.genre is Pointer<Genre>, not Pointer<Author>"]
                ),
                (
                    JSONObject(), try jsonObject(#"{"createdAt":{"__type":"Date","iso":"2020-01-01T00:00:00.000Z"},"authors":[]}"#),
                    ["Book.createdAt cannot be set", "Book.authors is a Relation"]
                ),
                (JSONObject(), try jsonObject(#"{"pages":{"__op":"Increment","amount":1}}"#), [#"only values and {"__op":"Delete"}"#]),
            ]
            for (constraints, values, parts) in cases {
                assertFails(.invalidData, containing: parts, label) {
                    try blocking { try await runner(fixture).apply(.updateObjects(className: "Book", where: constraints, set: values)) }
                }
            }
            assertFails(.invalidData, containing: ["class Shelf does not exist"], label) {
                try blocking { try await runner(fixture).apply(.deleteObjects(className: "Shelf", where: JSONObject())) }
            }
            XCTAssertEqual(try fixture.snapshot(), before, "\(label): a refused operation wrote something")
        }
    }

    func testDeleteObjectsRemovesTheObjectsAndTheirRelationLinks() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let library = try Library(on: fixture.target.api)
            let delete = MigrationOperation.deleteObjects(className: "Book", where: try jsonObject(#"{"year":{"$lt":1969}}"#))
            let deleted = try blocking { try await runner(fixture).apply(delete) }
            XCTAssertEqual(deleted.objectsWritten, 2, "\(label): \(deleted.summary)")
            XCTAssertEqual(try fixture.rows("SELECT title FROM Book ORDER BY title"), [["Neuromancer"], ["The Left Hand of Darkness"]], label)
            XCTAssertEqual(
                try fixture.rows(#"SELECT owningId, relatedId FROM "_Join:authors:Book""#),
                [[library.id("The Left Hand of Darkness"), library.id("Le Guin")]], "\(label): links owned by deleted books")
            XCTAssertEqual(
                try fixture.rows(#"SELECT relatedId FROM "_Join:books:Genre""#).compactMap { $0[0] }.sorted(),
                [library.id("Neuromancer"), library.id("The Left Hand of Darkness")].sorted(), "\(label): links to deleted books")
            try assertRerunChangesNothing(delete, on: fixture)
        }
    }

    // MARK: Runs after a partial run

    func testRenameFinishesACopyBegunByHand() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let library = try Library(on: fixture.target.api)
            let api = fixture.target.api
            _ = try blocking { try await api.send("PUT", "/schemas/Book", body: json(#"{"fields":{"publishingYear":{"type":"Number"}}}"#)) }
            _ = try blocking { try await api.send("PUT", "/classes/Book/\(library.id("Dune"))", body: json(#"{"publishingYear":1965}"#)) }
            _ = try blocking { try await api.send("PUT", "/classes/Book/\(library.id("Neuromancer"))", body: json(#"{"publishingYear":2000}"#)) }
            let renamed = try blocking { try await runner(fixture).apply(.renameField(className: "Book", from: "year", to: "publishingYear")) }
            XCTAssertEqual([renamed.schemaChanges, renamed.objectsWritten, renamed.objectsUnchanged], [1, 3, 1], "\(label): \(renamed.summary)")
            XCTAssertEqual(
                try fixture.rows("SELECT title, publishingYear FROM Book ORDER BY title"),
                [
                    ["A Wizard of Earthsea", "1968"], ["Dune", "1965"], ["Neuromancer", "1984"], ["The Left Hand of Darkness", "1969"],
                ], label)
            XCTAssertNil(try blocking { try await api.schema(of: "Book")?.field(named: "year") }, label)
        }
    }

    func testChangeTypeResumesWithTheTemporaryFieldAlreadyThere() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let library = try Library(on: fixture.target.api)
            let api = fixture.target.api
            _ = try blocking { try await api.send("PUT", "/schemas/Book", body: json(#"{"fields":{"pages__porter_String":{"type":"String"}}}"#)) }
            _ = try blocking { try await api.send("PUT", "/classes/Book/\(library.id("Dune"))", body: json(#"{"pages__porter_String":"412"}"#)) }
            _ = try blocking { try await api.send("PUT", "/classes/Book/\(library.id("Neuromancer"))", body: json(#"{"pages__porter_String":"stale"}"#)) }
            let changed = try blocking { try await runner(fixture).apply(.changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false)) }
            XCTAssertEqual(changed.schemaChanges, 3, "\(label): the temporary field is not added again (\(changed.summary))")
            XCTAssertEqual(
                try fixture.rows("SELECT title, pages FROM Book ORDER BY title"),
                [
                    ["A Wizard of Earthsea", "183"], ["Dune", "412"], ["Neuromancer", "271"], ["The Left Hand of Darkness", "304"],
                ], label)
            XCTAssertNil(try blocking { try await api.schema(of: "Book")?.field(named: "pages__porter_String") }, label)
        }
    }

    /// The state a run leaves once it copied every value into the temporary field and deleted `pages`.
    private func copiedIntoTemporaryField(_ fixture: TargetFixture) throws -> Library {
        let library = try Library(on: fixture.target.api)
        let api = fixture.target.api
        _ = try blocking { try await api.send("PUT", "/schemas/Book", body: json(#"{"fields":{"pages__porter_String":{"type":"String"}}}"#)) }
        for (title, pages) in [("Dune", "412"), ("Neuromancer", "271"), ("A Wizard of Earthsea", "183"), ("The Left Hand of Darkness", "304")] {
            _ = try blocking { try await api.send("PUT", "/classes/Book/\(library.id(title))", body: json(#"{"pages__porter_String":"\#(pages)"}"#)) }
        }
        _ = try blocking { try await api.send("PUT", "/schemas/Book", body: json(#"{"fields":{"pages":{"__op":"Delete"}}}"#)) }
        return library
    }

    func testChangeTypeResumesAfterTheOldFieldWasDeleted() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            _ = try copiedIntoTemporaryField(fixture)
            let changed = try blocking { try await runner(fixture).apply(.changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false)) }
            XCTAssertEqual([changed.schemaChanges, changed.objectsWritten], [2, 4], "\(label): \(changed.summary)")
            XCTAssertEqual(try fixture.rows("SELECT pages FROM Book ORDER BY title"), [["183"], ["412"], ["271"], ["304"]], label)
            XCTAssertEqual(try columns(fixture, "Book").filter { $0.hasPrefix("pages") }, ["pages"], label)
        }
    }

    func testChangeTypeResumesACopyBackBegun() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let library = try copiedIntoTemporaryField(fixture)
            _ = try blocking { try await fixture.target.api.send("PUT", "/schemas/Book", body: json(#"{"fields":{"pages":{"type":"String"}}}"#)) }
            _ = try blocking { try await fixture.target.api.send("PUT", "/classes/Book/\(library.id("Dune"))", body: json(#"{"pages":"412"}"#)) }
            let changed = try blocking { try await runner(fixture).apply(.changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false)) }
            XCTAssertEqual([changed.schemaChanges, changed.objectsWritten, changed.objectsUnchanged], [1, 3, 1], "\(label): \(changed.summary)")
            XCTAssertEqual(try fixture.rows("SELECT pages FROM Book ORDER BY title"), [["183"], ["412"], ["271"], ["304"]], label)
            XCTAssertEqual(try columns(fixture, "Book").filter { $0.hasPrefix("pages") }, ["pages"], label)
        }
    }

    func testDeleteObjectsAfterSomeWereDeletedAndUnlinkedByHand() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let library = try Library(on: fixture.target.api)
            let api = fixture.target.api
            _ = try blocking { try await api.send("DELETE", "/classes/Book/\(library.id("Dune"))") }
            _ = try blocking {
                try await api.send(
                    "PUT", "/classes/Book/\(library.id("A Wizard of Earthsea"))",
                    body: json(#"{"authors":{"__op":"RemoveRelation","objects":[\#(library.pointer("Author", "Le Guin"))]}}"#))
            }
            let deleted = try blocking { try await runner(fixture).apply(.deleteObjects(className: "Book", where: try jsonObject(#"{"year":{"$lt":1969}}"#))) }
            XCTAssertEqual(deleted.objectsWritten, 1, "\(label): \(deleted.summary)")
            XCTAssertEqual(try fixture.rows("SELECT title FROM Book ORDER BY title"), [["Neuromancer"], ["The Left Hand of Darkness"]], label)
            XCTAssertFalse(try fixture.rows(#"SELECT relatedId FROM "_Join:books:Genre""#).contains([library.id("A Wizard of Earthsea")]), label)
        }
    }

    // MARK: Mirror transaction and plan text

    func testARolledBackMigrationLeavesTheMirrorAsItWas() throws {
        let fixture = try TargetFixture.make(.mirror, in: self)
        let library = try Library(on: fixture.target.api)
        let root = PackageFolders.root
        let runner = OperationRunner(target: fixture.target, migrationsFolder: root.appendingPathComponent("Fixtures").path)
        let before = try fixture.snapshot()
        try fixture.target.begin()
        let operations: [MigrationOperation] = [
            .createClass(ClassSchema(className: "Shelf", fields: [SchemaField(name: "label", type: .string)])),
            .addField(className: "Book", field: SchemaField(name: "barcode", type: .string)),
            .addIndex(className: "Book", name: "title_1", keys: try json(#"{"title":1}"#)),
            .setPermissions(className: "Book", classLevelPermissions: try json(#"{"find":{"*":true}}"#)),
            .renameField(className: "Book", from: "authors", to: "writers"),
            .changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false),
            .updateObjects(className: "Book", where: JSONObject(), set: try jsonObject(#"{"notes":"reviewed"}"#)),
            .deleteObjects(className: "Genre", where: try jsonObject(#"{"objectId":"\#(library.id("Fantasy"))"}"#)),
            .deleteField(className: "Book", name: "year"),
            .importDataset(path: "recipes"),
        ]
        for operation in operations { _ = try blocking { try await runner.apply(operation) } }
        // Inside the transaction (read through the target's own connection) the changes are there.
        let changed = try blocking { try await fixture.target.api.schemas() }
        XCTAssertEqual(changed.map(\.className), ["Author", "Book", "Chef", "Genre", "Kitchen", "Recipe", "Shelf"])
        XCTAssertEqual(changed.first { $0.className == "Book" }?.field(named: "pages")?.type, .string)
        fixture.target.rollback()
        XCTAssertEqual(try fixture.snapshot(), before)
        XCTAssertEqual(try blocking { try await fixture.target.api.schemas().map(\.className) }, ["Author", "Book", "Genre"])
    }

    func testDescribeGivesThePlanLine() throws {
        let book = ClassSchema(
            className: "Book",
            fields: [
                SchemaField(name: "title", type: .string), SchemaField(name: "year", type: .number),
                SchemaField(name: "pages", type: .number),
            ],
            indexes: try json(#"{"_id_":{"_id":1},"title_1":{"title":1}}"#))
        let lines = [
            (MigrationOperation.createClass(book), "create class Book (3 fields, 1 index)"),
            (.addField(className: "Book", field: SchemaField(name: "isbn", type: .string, required: true)), "add field Book.isbn (String, required)"),
            (.renameField(className: "Book", from: "year", to: "publishingYear"), "rename Book.year → publishingYear (copy values, then delete year)"),
            (
                .changeType(className: "Book", field: "pages", type: .string, allowDataLoss: false),
                "change Book.pages Number → String (new field, converted copy, swap)"
            ),
            (
                .changeType(className: "Book", field: "isbn", type: .pointer(targetClass: "ISBN"), allowDataLoss: true),
                "change Book.isbn → Pointer<ISBN> (new field, converted copy, swap, unset values that do not convert)"
            ),
            (.importDataset(path: "../Fixtures/library"), "import dataset Fixtures/library"),
            (.importDataset(path: "/data/library"), "import dataset /data/library"),
            (
                .updateObjects(
                    className: "Book", where: try jsonObject(#"{"year":{"$lt":1969}}"#), set: try jsonObject(#"{"pages":1,"notes":{"__op":"Delete"}}"#)),
                #"set pages, unset notes on Book where {"year":{"$lt":1969}}"#
            ),
            (.deleteObjects(className: "Book", where: JSONObject()), "delete every Book"),
        ]
        for (operation, line) in lines {
            XCTAssertEqual(OperationRunner.describe(operation, migrationsFolder: "Migrations", schemas: [book]), line)
        }
    }
}
