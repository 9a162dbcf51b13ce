import Foundation
import PorterPostgres
import PorterTestSupport
import XCTest

/// `schema pull/diff/check/push` and `migrate` with `--target postgres://…`, against the tests'
/// private PostgreSQL: what arrives is read back from `_SCHEMA`, `information_schema.columns`
/// and `pg_indexes`, as Parse Server's `PostgresStorageAdapter.js` (`createClass`,
/// `addFieldIfNotExists`, `setClassLevelPermissions`, `setIndexesWithSchemaFormat`,
/// `createIndexes`, `dropIndexes`, `deleteFields`) writes them.
final class PostgresSchemaCommandTests: XCTestCase {
    var url = ""
    /// The URL with a password in it, which no output may show (the cluster trusts loopback).
    var urlWithPassword: String { url.replacingOccurrences(of: "postgres@", with: "postgres:not-to-be-shown@") }

    override func setUpWithError() throws {
        url = try PostgresCluster.shared().createDatabase()
    }

    func rows(_ sql: String) throws -> [[String?]] {
        let db = try PostgresConnection(url: url)
        defer { db.close() }
        return try db.execute(sql)
    }

    func value(_ sql: String) throws -> String? { try rows(sql).first?.first ?? nil }

    func columns(_ table: String) throws -> [String] {
        try rows("SELECT column_name FROM information_schema.columns WHERE table_name = '\(table)' ORDER BY column_name").compactMap { $0[0] }
    }

    func indexes(_ table: String) throws -> [String] {
        try rows("SELECT indexname FROM pg_indexes WHERE tablename = '\(table)' ORDER BY indexname").compactMap { $0[0] }
    }

    /// The class's `_SCHEMA.schema` member, as JSON text with sorted keys (jsonb's own order).
    func stored(_ className: String, _ member: String) throws -> String? {
        try value(#"SELECT ("schema"->'\#(member)')::text FROM "_SCHEMA" WHERE "className" = '\#(className)'"#)
    }

    func run(_ arguments: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(arguments)
        XCTAssertEqual(result.status, status, "\(arguments): \(result.stdout)\(result.stderr)", file: file, line: line)
        XCTAssertFalse((result.stdout + result.stderr).contains("not-to-be-shown"), "the password is never shown", file: file, line: line)
        return result
    }

    func schemaFile(_ text: String) throws -> String {
        let file = try temporaryFolder().appendingPathComponent("schema-\(UUID().uuidString.prefix(6)).json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// The same dataset imported into a mirror and into PostgreSQL pulls as the same schema file.
    func testPullGivesWhatAMirrorWithTheSameDataGives() throws {
        for dataset in ["library", "parse-com-users"] {
            let database = try PostgresCluster.shared().createDatabase()
            let mirror = try temporaryFolder().appendingPathComponent("app.sqlite").path
            let fixture = CommandRunner.fixtures.appendingPathComponent(dataset).path
            _ = try run(["import", fixture, "--target", mirror, "--quiet"])
            _ = try run(["import", fixture, "--to", database, "--quiet"])
            let fromMirror = try run(["schema", "pull", "--target", mirror]).stdout
            let fromPostgres = try run(["schema", "pull", "--target", database]).stdout
            XCTAssertTrue(fromMirror.contains("\"className\""), fromMirror)
            XCTAssertEqual(fromPostgres, fromMirror, dataset)
            guard dataset == "parse-com-users" else { continue }
            // The import made the indexes the schema declares (createIndexes), after the rows.
            let db = try PostgresConnection(url: database)
            defer { db.close() }
            XCTAssertEqual(
                try db.execute("SELECT tablename, indexname FROM pg_indexes WHERE indexname IN ('username_1', 'displayName_1', 'title_1') ORDER BY indexname"),
                [["_User", "displayName_1"], ["Diary", "title_1"], ["_User", "username_1"]])
        }
    }

    /// check: 0 on a match, 1 on a difference, 3 when the database cannot be reached; diff prints
    /// the difference and exits 0.
    func testCheckAndDiffExitCodes() throws {
        _ = try run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", url, "--quiet"])
        let pulled = try temporaryFolder().appendingPathComponent("schema.json").path
        let pull = try run(["schema", "pull", "--target", urlWithPassword, "--out", pulled])
        XCTAssertTrue(pull.stderr.contains("from \(url) into"), pull.stderr)
        XCTAssertTrue(try run(["schema", "check", "--target", urlWithPassword, pulled]).stdout.contains("no differences"))

        var document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: pulled))) as? [String: Any])
        var classes = try XCTUnwrap(document["results"] as? [[String: Any]])
        let book = try XCTUnwrap(classes.firstIndex { $0["className"] as? String == "Book" })
        var fields = try XCTUnwrap(classes[book]["fields"] as? [String: Any])
        fields["subtitle"] = ["type": "String"]
        classes[book]["fields"] = fields
        document["results"] = classes
        let changed = try schemaFile(String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self))
        _ = try run(["schema", "check", "--target", urlWithPassword, changed], status: 1)
        XCTAssertTrue(try run(["schema", "diff", "--target", urlWithPassword, changed]).stdout.contains("subtitle"))

        let unreachable = try run(["schema", "check", "--target", "postgres://postgres:not-to-be-shown@127.0.0.1:1/none", pulled], status: 3)
        XCTAssertTrue(unreachable.stderr.contains("postgres://postgres@127.0.0.1:1/none"), unreachable.stderr)
    }

    /// push creates a class (table, `_SCHEMA` row, index), then adds a field, changes the
    /// permissions and swaps an index; a dry run writes nothing; a push that fails half-way
    /// leaves the database as it was.
    func testPushChangesTablesSchemaRowsAndIndexes() throws {
        let first = try schemaFile(
            """
            [{"className": "Note", "fields": {"title": {"type": "String", "required": true}, "pages": {"type": "Number"},
              "author": {"type": "Pointer", "targetClass": "_User"}, "tags": {"type": "Relation", "targetClass": "Note"}},
              "classLevelPermissions": {"find": {"*": true}, "get": {"*": true}}, "indexes": {"title_1": {"title": 1}}}]
            """)
        let created = try run(["schema", "push", "--target", urlWithPassword, first])
        XCTAssertTrue(created.stdout.contains("pushed"), created.stdout)
        XCTAssertEqual(try columns("Note"), ["_rperm", "_wperm", "author", "createdAt", "objectId", "pages", "title", "updatedAt"])
        XCTAssertEqual(try columns("_Join:tags:Note"), ["owningId", "relatedId"])
        XCTAssertEqual(try indexes("Note"), ["Note_pkey", "title_1"])
        XCTAssertEqual(
            try stored("Note", "indexes"), #"{"_id_": {"_id": 1}, "title_1": {"title": 1}}"#, "setIndexesWithSchemaFormat records _id_ beside the first index")
        XCTAssertEqual(
            try stored("Note", "fields"),
            #"{"tags": {"type": "Relation", "targetClass": "Note"}, "pages": {"type": "Number"}, "title": {"type": "String", "required": true}, "_rperm": {"type": "Array", "contents": {"type": "String"}}, "_wperm": {"type": "Array", "contents": {"type": "String"}}, "author": {"type": "Pointer", "targetClass": "_User"}, "objectId": {"type": "String"}, "createdAt": {"type": "Date"}, "updatedAt": {"type": "Date"}}"#
        )
        XCTAssertTrue(try stored("Note", "classLevelPermissions")!.contains(#""find": {"*": true}"#))
        _ = try run(["schema", "check", "--target", url, first])

        let second = try schemaFile(
            """
            [{"className": "Note", "fields": {"title": {"type": "String", "required": true}, "pages": {"type": "Number"},
              "author": {"type": "Pointer", "targetClass": "_User"}, "tags": {"type": "Relation", "targetClass": "Note"}, "summary": {"type": "String"}},
              "classLevelPermissions": {"find": {"role:Staff": true}, "get": {"*": true}}, "indexes": {"pages_1": {"pages": 1}}}]
            """)
        let schemaBefore = try value(#"SELECT "schema"::text FROM "_SCHEMA""#)
        let dry = try run(["schema", "push", "--target", urlWithPassword, second, "--dry-run"])
        XCTAssertTrue(dry.stdout.contains("nothing was sent"), dry.stdout)
        XCTAssertEqual(try value(#"SELECT "schema"::text FROM "_SCHEMA""#), schemaBefore, "a dry run writes nothing")
        XCTAssertFalse(try columns("Note").contains("summary"))

        _ = try run(["schema", "push", "--target", urlWithPassword, second])
        XCTAssertTrue(try columns("Note").contains("summary"))
        XCTAssertEqual(try indexes("Note"), ["Note_pkey", "pages_1"])
        XCTAssertEqual(try stored("Note", "indexes"), #"{"_id_": {"_id": 1}, "pages_1": {"pages": 1}}"#)
        XCTAssertTrue(try stored("Note", "classLevelPermissions")!.contains(#""find": {"role:Staff": true}"#))
        _ = try run(["schema", "check", "--target", url, second])

        // deleteFields: the column goes, and a Relation's join table with it.
        let third = try schemaFile(
            """
            [{"className": "Note", "fields": {"title": {"type": "String", "required": true}, "pages": {"type": "Number"},
              "author": {"type": "Pointer", "targetClass": "_User"}},
              "classLevelPermissions": {"find": {"role:Staff": true}, "get": {"*": true}}, "indexes": {"pages_1": {"pages": 1}}}]
            """)
        _ = try run(["schema", "push", "--target", urlWithPassword, third, "--delete-extra-fields"])
        XCTAssertEqual(try columns("Note"), ["_rperm", "_wperm", "author", "createdAt", "objectId", "pages", "title", "updatedAt"])
        XCTAssertNil(try value(#"SELECT to_regclass('"_Join:tags:Note"')::text"#))
        XCTAssertEqual(try stored("Note", "fields").map { $0.contains("tags") || $0.contains("summary") }, false)
        _ = try run(["schema", "check", "--target", url, third])

        // Alpha comes first and is created; Beta's index name is Note's, which PostgreSQL refuses.
        let failing = try schemaFile(
            """
            [{"className": "Alpha", "fields": {"name": {"type": "String"}}},
             {"className": "Beta", "fields": {"pages": {"type": "Number"}}, "indexes": {"pages_1": {"pages": 1}}}]
            """)
        let everything = "SELECT string_agg(\"className\" || \"schema\"::text, ',' ORDER BY \"className\") FROM \"_SCHEMA\""
        let before = try value(everything)
        let refused = try run(["schema", "push", "--target", urlWithPassword, failing], status: 3)
        XCTAssertTrue(refused.stderr.contains("Index pages_1 exists on Note"), refused.stderr)
        XCTAssertEqual(try value(everything), before, "the failed push left _SCHEMA as it was")
        XCTAssertNil(try value(#"SELECT to_regclass('"Alpha"')::text"#), "the class created before the failure was rolled back")
    }

    /// A name longer than the 63 bytes PostgreSQL keeps (a new field's column, a new class's
    /// index) is refused (exit 3, as Parse's refusals are) naming the class, the field or index,
    /// the name, its bytes and the limit; the push changes nothing, not even the class created
    /// before it. A name of exactly 63 bytes is pushed whole.
    /// A compound index's key order is the PostgreSQL index's, not the `_SCHEMA` row's: `jsonb`
    /// puts shorter keys first (`{"title": 1, "year": 1}` is stored `{"year": 1, "title": 1}`, as
    /// Parse Server 7.1.0 stores it too, `Fixtures/parse-server-7.1.0/compound-index`). Before,
    /// check found the indexes changed after every push, every push dropped and rebuilt them,
    /// and pull wrote the keys swapped.
    func testCompoundIndexKeysKeepTheIndexOrder() throws {
        let file = PackageFolders.fixtures.appendingPathComponent("parse-server-7.1.0/compound-index/pushed-schema.json").path
        XCTAssertEqual(try run(["schema", "push", "--target", url, file]).status, 0)
        XCTAssertEqual(
            try stored("Tune", "indexes"), #"{"_id_": {"_id": 1}, "by_title_year": {"year": 1, "title": 1}, "by_artist_title": {"title": 1, "artist": 1}}"#)
        XCTAssertEqual(
            try value("SELECT indexdef FROM pg_indexes WHERE indexname = 'by_title_year'"),
            #"CREATE INDEX by_title_year ON public."Tune" USING btree (title, year)"#)
        let check = try run(["schema", "check", "--target", url, file])
        XCTAssertEqual(check.status, 0, check.stdout)
        let again = try run(["schema", "push", "--target", url, file])
        XCTAssertTrue(again.stdout.contains("pushed 0 changes in 0 classes (0 requests)"), again.stdout)
        let pulled = try run(["schema", "pull", "--target", url])
        XCTAssertTrue(pulled.stdout.contains(#""by_artist_title": {"artist": 1, "title": 1}"#), pulled.stdout)
        XCTAssertTrue(pulled.stdout.contains(#""by_title_year": {"title": 1, "year": 1}"#), pulled.stdout)
    }

    func testPushRefusesNamesLongerThan63Bytes() throws {
        _ = try run(["schema", "push", "--target", urlWithPassword, try schemaFile(#"[{"className": "Note", "fields": {"title": {"type": "String"}}}]"#)])
        let everything = "SELECT string_agg(\"className\" || \"schema\"::text, ',' ORDER BY \"className\") FROM \"_SCHEMA\""
        let before = try value(everything)
        let (long, index) = (String(repeating: "a", count: 63) + "b", String(repeating: "i", count: 64))
        for (file, expected) in [
            (
                #"[{"className": "Alpha", "fields": {"name": {"type": "String"}}}, {"className": "Note", "fields": {"title": {"type": "String"}, "\#(long)": {"type": "String"}}}]"#,
                "Note.\(long): the column name \"\(long)\" is 64 bytes, longer than the 63 bytes PostgreSQL keeps of a name"
            ),
            (
                #"[{"className": "Alpha", "fields": {"name": {"type": "String"}}, "indexes": {"\#(index)": {"name": 1}}}]"#,
                "Alpha index \(index): the index name \"\(index)\" is 64 bytes, longer than the 63 bytes PostgreSQL keeps of a name"
            ),
        ] {
            let refused = try run(["schema", "push", "--target", urlWithPassword, try schemaFile(file)], status: 3)
            XCTAssertTrue(refused.stderr.contains(expected), refused.stderr)
            XCTAssertTrue(refused.stderr.contains("a shorter name"), refused.stderr)
            XCTAssertEqual(try value(everything), before, "the refused push left _SCHEMA as it was")
            XCTAssertNil(try value(#"SELECT to_regclass('"Alpha"')::text"#), "the class created before the refusal was rolled back")
            XCTAssertEqual(try columns("Note"), ["_rperm", "_wperm", "createdAt", "objectId", "title", "updatedAt"])
        }
        let whole = String(long.dropLast())
        _ = try run([
            "schema", "push", "--target", urlWithPassword,
            try schemaFile(#"[{"className": "Note", "fields": {"title": {"type": "String"}, "\#(whole)": {"type": "String"}}}]"#),
        ])
        XCTAssertTrue(try columns("Note").contains(whole))
    }

    /// A migration creating a class with a field named longer than 63 bytes, or an index, is
    /// refused before anything changes (exit 1), naming the operation and the name.
    func testMigrateRefusesNamesLongerThan63BytesBeforeAnythingChanges() throws {
        let long = String(repeating: "f", count: 64)
        let folder = try migrations([
            "V1__create_item.yml": "operations:\n  - createClass: {className: Item, fields: {name: {type: String}, \(long): {type: Number}}}",
            "V2__index.yml": "operations:\n  - addIndex: {className: Item, name: \(String(repeating: "i", count: 70)), keys: {name: 1}}",
        ])
        let refused = try run(["migrate", "up", "--dir", folder.path, "--target", urlWithPassword], status: 1)
        XCTAssertTrue(refused.stderr.contains("refused, nothing was changed"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("V1__create_item.yml: operation 1"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("Item.\(long): the column name \"\(long)\" is 64 bytes, longer than the 63 bytes"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("V2__index.yml: operation 1"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("is 70 bytes"), refused.stderr)
        XCTAssertNil(try value(#"SELECT to_regclass('"Item"')::text"#))
        XCTAssertNil(try value(#"SELECT to_regclass('"_SCHEMA"')::text"#))
    }

    private func migrations(_ files: [String: String]) throws -> URL {
        let root = try temporaryFolder()
        try CommandRunner.writeItemsDataset(20, to: root.appendingPathComponent("items"))
        let folder = root.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try (text + "\n").write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder
    }

    private static let createAndImport = [
        "V1__create_item.yml": """
        operations:
          - createClass:
              className: Item
              fields: {name: {type: String, required: true}, price: {type: Number}}
              indexes: {price_1: {price: 1}}
        """,
        "V2__import_items.yml": """
        operations:
          - addField: {className: Item, name: onSale, type: Boolean, defaultValue: false}
          - import: {dataset: ../items}
        """,
    ]

    /// up applies the migrations in one transaction each and records them in `_PorterMigrations`;
    /// status lists them; a second up is a no-op.
    func testMigrateUpAddsFieldsImportsAndRecordsHistory() throws {
        let folder = try migrations(Self.createAndImport)
        let up = try run(["migrate", "up", "--dir", folder.path, "--target", urlWithPassword])
        XCTAssertTrue(up.stdout.contains("applied 2 migrations to \(url)"), up.stdout)
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Item""#), "20")
        XCTAssertEqual(try columns("Item"), ["_rperm", "_wperm", "createdAt", "name", "objectId", "onSale", "price", "updatedAt"])
        XCTAssertEqual(try indexes("Item"), ["Item_pkey", "price_1"])
        XCTAssertEqual(try stored("Item", "fields").map { $0.contains(#""onSale": {"type": "Boolean", "defaultValue": false}"#) }, true)
        XCTAssertEqual(
            try rows(#"SELECT "version", "success"::text, "error" FROM "_PorterMigrations" ORDER BY "version""#),
            [["1", "true", nil], ["2", "true", nil]])

        let status = try run(["migrate", "status", "--dir", folder.path, "--target", urlWithPassword])
        XCTAssertTrue(status.stdout.contains("applied"), status.stdout)
        let again = try run(["migrate", "up", "--dir", folder.path, "--target", urlWithPassword])
        XCTAssertTrue(again.stdout.contains("up to date") || again.stdout.contains("applied 0 migrations"), again.stdout)
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Item""#), "20")
        XCTAssertEqual(try value(#"SELECT count(*) FROM "_PorterMigrations""#), "2")
    }

    /// A migration whose later step fails leaves the database as it was, and is recorded as failed.
    func testAFailedMigrationLeavesTheDatabaseAsItWas() throws {
        var files = Self.createAndImport
        files["V3__broken.yml"] = """
            operations:
              - addField: {className: Item, name: note, type: String}
              - import: {dataset: ../items}
              - addIndex: {className: Item, name: missing_1, keys: {missing: 1}}
            """
        let folder = try migrations(files)
        let failed = try run(["migrate", "up", "--dir", folder.path, "--target", urlWithPassword], status: 3)
        XCTAssertTrue(failed.stderr.contains("The database was rolled back"), failed.stderr)
        XCTAssertFalse(try columns("Item").contains("note"), "the field added before the failure was rolled back")
        XCTAssertEqual(try stored("Item", "fields").map { $0.contains("note") }, false)
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Item""#), "20")
        XCTAssertEqual(
            try rows(#"SELECT "version", "success"::text FROM "_PorterMigrations" ORDER BY "version""#),
            [["1", "true"], ["2", "true"], ["3", "false"]])
    }

    /// The operations that read and write objects run on the database inside the migration's
    /// transaction: a later failure takes their writes back with the rest.
    func testObjectOperationsRunInTheMigrationsTransaction() throws {
        var files = Self.createAndImport
        files["V3__flag.yml"] = """
            operations:
              - addField: {className: Item, name: expensive, type: Boolean}
              - updateObjects: {className: Item, where: {price: {"$gte": 10}}, set: {expensive: true}}
              - renameField: {className: Item, from: price, to: cost}
            """
        let folder = try migrations(files)
        let plan = try run(["migrate", "plan", "--dir", folder.path, "--target", urlWithPassword])
        XCTAssertTrue(plan.stdout.contains("V3"), plan.stdout)
        let up = try run(["migrate", "up", "--dir", folder.path, "--target", urlWithPassword])
        XCTAssertTrue(up.stdout.contains("applied 3 migrations"), up.stdout)
        let expensive = try value(#"SELECT count(*) FROM "Item" WHERE cost >= 10"#)
        XCTAssertNotEqual(expensive, "0", "the dataset has items of 10 or more")
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Item" WHERE expensive"#), expensive)
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Item" WHERE expensive IS NULL"#).map { Int($0)! + Int(expensive!)! }, 20)
        XCTAssertFalse(try columns("Item").contains("price"))
        XCTAssertEqual(try rows(#"SELECT name, cost::text FROM "Item" WHERE name IN ('item 3', 'item 98')"#), [["item 3", "3"]])
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Item" WHERE cost IS NOT NULL"#), "20", "every item's price was copied")

        files["V4__broken.yml"] = """
            operations:
              - deleteObjects: {className: Item, where: {expensive: true}}
              - addIndex: {className: Item, name: missing_1, keys: {missing: 1}}
            """
        let failed = try run(["migrate", "up", "--dir", try migrations(files).path, "--target", urlWithPassword], status: 3)
        XCTAssertTrue(failed.stderr.contains("The database was rolled back"), failed.stderr)
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Item""#), "20", "the deletes were rolled back with the failed migration")
        XCTAssertEqual(
            try rows(#"SELECT "version", "success"::text FROM "_PorterMigrations" ORDER BY "version""#),
            [["1", "true"], ["2", "true"], ["3", "true"], ["4", "false"]])
    }

    /// `Fixtures/bad-postgres-migrations/`: each V2 is refused as its `expected-error.txt` says,
    /// recorded as failed, and leaves nothing of itself in the database; V1 stays applied.
    func testBadPostgresMigrations() throws {
        let root = CommandRunner.fixtures.appendingPathComponent("bad-postgres-migrations")
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            let database = try PostgresCluster.shared().createDatabase()
            let expected = try BadInputTests.Expectation(root.appendingPathComponent(name).appendingPathComponent("expected-error.txt"))
            let result = try run(["migrate", "up", "--dir", root.appendingPathComponent(name).path, "--target", database], status: expected.exitCode)
            for fragment in expected.fragments {
                XCTAssertTrue(result.stderr.contains(fragment), "\(name): stderr lacks \"\(fragment)\":\n\(result.stderr)")
            }
            let connection = try PostgresConnection(url: database)
            defer { connection.close() }
            XCTAssertEqual(
                try connection.execute(#"SELECT "version", "success"::text FROM "_PorterMigrations" ORDER BY "version""#),
                [["1", "true"], ["2", "false"]], name)
            XCTAssertEqual(
                try connection.execute(#"SELECT count(*) FROM information_schema.columns WHERE table_name = 'Item' AND column_name LIKE '%__porter_%'"#),
                [["0"]], name)
        }
    }

    /// The advisory lock keeps a second runner out while one holds it.
    func testAHeldAdvisoryLockKeepsAnotherRunnerOut() throws {
        let folder = try migrations(Self.createAndImport)
        let holder = try PostgresConnection(url: url)
        defer { holder.close() }
        try holder.execute("SELECT set_config('application_name', 'other-runner', false)")
        try holder.execute("SELECT pg_advisory_lock(1348563571, 1298753394)")
        let locked = try run(["migrate", "up", "--dir", folder.path, "--target", urlWithPassword, "--lock-wait", "0.5"], status: 3)
        XCTAssertTrue(locked.stderr.contains("locked by other-runner"), locked.stderr)
        XCTAssertNil(try value(#"SELECT to_regclass('"Item"')::text"#))
        try holder.execute("SELECT pg_advisory_unlock(1348563571, 1298753394)")
        _ = try run(["migrate", "up", "--dir", folder.path, "--target", urlWithPassword])
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Item""#), "20")
    }
}
