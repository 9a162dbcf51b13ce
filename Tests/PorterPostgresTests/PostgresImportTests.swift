import Foundation
import ParseModel
import PorterPipeline
import PorterPostgres
import PorterTestSupport
import XCTest

/// The bundled datasets imported into a real PostgreSQL, then read back with SQL: the values
/// stored as Parse Server's `PostgresStorageAdapter.js` stores them (`createObject`), and read
/// as its `postgresObjectToParseObject` reads them.
final class PostgresImportTests: PostgresTestCase {
    /// Every Parse type in its column: `parseTypeToPostgresType` for the column types,
    /// `createObject` for the values.
    func testRecipesStoreEachParseTypeAsParseServerDoes() async throws {
        let report = try await importDataset(fixture("recipes"))
        XCTAssertTrue(report.succeeded, "\(report.errors)")
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Kitchen""#), "6")
        let types = try rows(
            """
            SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'Kitchen' ORDER BY column_name
            """
        ).map { "\($0[0]!) \($0[1]!)" }
        XCTAssertEqual(
            types,
            [
                "_rperm ARRAY", "_wperm ARRAY", "createdAt timestamp with time zone", "deliveryArea polygon", "location point",
                "logo jsonb", "name text", "objectId text", "settings jsonb", "updatedAt timestamp with time zone",
            ])
        // GeoPoint: a point (longitude, latitude), read back as x → longitude, y → latitude.
        XCTAssertEqual(try value(#"SELECT location[0] || ' ' || location[1] FROM "Kitchen" WHERE name = 'Trattoria Luce'"#), "9.19 45.4642")
        // Polygon: (longitude, latitude) points, the ring closed (`convertPolygonToSQL`).
        XCTAssertEqual(
            try value(#"SELECT "deliveryArea"::text FROM "Kitchen" WHERE name = 'Trattoria Luce'"#),
            "((9.19,45.5142),(9.24,45.4642),(9.19,45.4142),(9.14,45.4642),(9.155,45.4992),(9.19,45.5142))")
        // ACL: _rperm/_wperm text[]; no ACL column.
        XCTAssertEqual(
            try rows(#"SELECT _rperm::text, _wperm::text FROM "Kitchen" WHERE name = 'Trattoria Luce'"#),
            [[#"{*,role:KitchenStaff}"#, "{role:KitchenStaff}"]])
        // Bytes: the REST object in jsonb; Object: jsonb.
        XCTAssertEqual(try value(#"SELECT logo->>'__type' FROM "Kitchen" WHERE name = 'Trattoria Luce'"#), "Bytes")
        XCTAssertEqual(
            try value(#"SELECT logo->>'base64' FROM "Kitchen" WHERE name = 'Trattoria Luce'"#),
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGM4oaEBAALUARkFUI+kAAAAAElFTkSuQmCC")
        XCTAssertEqual(try value(#"SELECT settings->'openingHours'->>'tue-sun' FROM "Kitchen" WHERE name = 'Trattoria Luce'"#), "12:00-23:00")
        // Pointer: the target's objectId as text; Date: timestamptz; Number: double; File: the name; Array: jsonb.
        let risotto = try rows(
            """
            SELECT r.kitchen = k."objectId", to_char(r."releaseDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI'), r.price, r.servings,
                   r."isAvailable", r.category, r.ingredients->0->>'description', r."sideOptions"::text, r.photo, r._rperm IS NULL
            FROM "Recipe" r JOIN "Kitchen" k ON k.name = 'Trattoria Luce' WHERE r.name = 'Risotto alla Milanese'
            """)
        XCTAssertEqual(
            risotto,
            [
                [
                    "t", "2019-03-12 00:00", "18.5", "4", "t", "2", "g Carnaroli rice", #"["gremolata", "green salad"]"#,
                    "risotto-milanese.jpg", "t",
                ]
            ])
        XCTAssertEqual(
            try value(#"SELECT photo FROM "Recipe" WHERE name = 'Spaghetti alla Carbonara'"#), "a9f1c2_carbonara.jpg",
            "a File column holds only the name")
        XCTAssertEqual(
            try value(#"SELECT to_char(since AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') FROM "Chef" WHERE name = 'Giulia Bianchi'"#),
            "2015-04-01 07:00")
    }

    /// `_SCHEMA`: one row per class in the adapter's form (`convertSchemaToAdapterSchema`,
    /// `createTable`): default fields, `_rperm`/`_wperm` with String contents, no `ACL`.
    func testSchemaRowsHaveTheAdaptersShape() async throws {
        let report = try await importDataset(fixture("library"))
        XCTAssertTrue(report.succeeded, "\(report.errors)")
        XCTAssertEqual(
            try rows(#"SELECT "className", "isParseClass"::text FROM "_SCHEMA" ORDER BY "className""#),
            [["Author", "true"], ["Book", "true"], ["Genre", "true"], ["ISBN", "true"], ["Publisher", "true"]])
        let fields = try XCTUnwrap(value(#"SELECT "schema"->'fields' FROM "_SCHEMA" WHERE "className" = 'Book'"#))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(fields.utf8)) as? [String: [String: Any]])
        XCTAssertEqual(
            Set(json.keys),
            [
                "objectId", "createdAt", "updatedAt", "_rperm", "_wperm", "title", "publishingYear", "genre", "isbn",
                "authors", "publishers", "description",
            ])
        XCTAssertEqual(json["_rperm"]?["type"] as? String, "Array")
        XCTAssertEqual((json["_rperm"]?["contents"] as? [String: String]), ["type": "String"])
        XCTAssertEqual(json["genre"]?["targetClass"] as? String, "Genre")
        XCTAssertEqual(json["authors"]?["type"] as? String, "Relation")
        XCTAssertEqual(json["title"]?["required"] as? Bool, true)
        XCTAssertNil(
            try value(#"SELECT "schema"->'classLevelPermissions' FROM "_SCHEMA" WHERE "className" = 'Book'"#),
            "no CLP given: none stored, Parse Server reads its defaults (toParseSchema)")
        // Relations: no column, a _Join table of (relatedId, owningId) with that primary key.
        XCTAssertEqual(try value("SELECT count(*) FROM information_schema.columns WHERE table_name = 'Book' AND column_name = 'authors'"), "0")
        XCTAssertEqual(try value(#"SELECT count(*) FROM "_Join:books:Genre""#), "72")
        XCTAssertEqual(
            try value(
                """
                SELECT count(*) FROM "_Join:books:Genre" j JOIN "Genre" g ON g."objectId" = j."owningId" JOIN "Book" b ON b."objectId" = j."relatedId"
                WHERE g.name = 'Fantasy' AND b.title = 'American Gods'
                """), "1")
        XCTAssertEqual(try value(#"SELECT b.genre = g."objectId" FROM "Book" b, "Genre" g WHERE b.title = 'Dune' AND g.name = 'Science Fiction'"#), "t")
        XCTAssertEqual(
            try value(
                """
                SELECT string_agg(a.name, ';' ORDER BY a.name) FROM "_Join:authors:Book" j JOIN "Book" b ON b."objectId" = j."owningId"
                JOIN "Author" a ON a."objectId" = j."relatedId" WHERE b.title = 'Dune'
                """), "Frank Herbert")
        XCTAssertEqual(
            try value(#"SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = '"_Join:books:Genre"'::regclass AND contype = 'p'"#),
            #"PRIMARY KEY ("relatedId", "owningId")"#)
        // The keys of the tables the import made are built after their rows, named as createTable's.
        XCTAssertEqual(
            try rows(
                #"SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text IN ('"Book"', '"_Join:authors:Book"') ORDER BY 1"#
            ),
            [
                [#""Book""#, "Book_pkey", #"PRIMARY KEY ("objectId")"#],
                [#""_Join:authors:Book""#, "_Join:authors:Book_pkey", #"PRIMARY KEY ("relatedId", "owningId")"#],
            ])
    }

    /// A new table gets its primary key once its rows are in: two objects with one objectId (which
    /// the loader never sends, but a library caller may) fail the import there, and nothing stays.
    func testTwoObjectsWithOneObjectIdInANewTableFailTheImport() throws {
        let target = PostgresTarget(url: url)
        try target.begin(schemas: [ClassSchema(className: "Note", fields: [SchemaField(name: "title", type: .string)])], naturalKeys: ["Note": ["title"]])
        func note(_ title: String, line: Int) -> ResolvedObject {
            ResolvedObject(objectId: "n1", line: line, fields: [FieldValue("title", .string(title))], acl: nil)
        }
        XCTAssertEqual(try target.write([note("One", line: 2)], className: "Note", mode: .upsert), [.inserted])
        XCTAssertEqual(try target.write([note("Two", line: 3)], className: "Note", mode: .upsert), [.inserted])
        XCTAssertThrowsError(try target.flush()) { error in
            XCTAssertEqual((error as? PorterError)?.postgresError?.sqlState, "23505", "\(error)")
            XCTAssertTrue((error as? PorterError)?.message.hasPrefix("Note: two rows share objectId: Key (\"objectId\")=(n1)") == true, "\(error)")
        }
        target.rollback()
        XCTAssertEqual(try value("SELECT to_regclass('\"Note\"') IS NULL"), "t")
    }

    /// Users keep their bcrypt hashes in `_hashed_password`; `_Role` memberships land in the
    /// join tables; the unique indexes of `performInitialization` exist, and those the schema
    /// declares (`createIndexes`, named as in `/schemas`).
    func testUsersRolesAndTheirIndexes() async throws {
        let report = try await importDataset(fixture("parse-com-users"))
        XCTAssertTrue(report.succeeded, "\(report.errors)")
        XCTAssertEqual(
            try value(#"SELECT _hashed_password FROM "_User" WHERE username = 'ada'"#),
            "$2a$10$G79K/V8v.SpVAroW0R52Uuhog3UHST6zTDOEiQlDVQMNq9nip2iYe")
        XCTAssertEqual(
            try rows(
                #"SELECT _rperm::text, _wperm::text, to_char("createdAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') FROM "_User" WHERE "objectId" = 'UsAda18150'"#
            ),
            [["{*,UsAda18150}", "{UsAda18150}", "2014-03-01T10:15:30.123"]])
        XCTAssertEqual(try value(#"SELECT count(*) FROM "_Join:users:_Role" WHERE "owningId" = 'RoEditors1' AND "relatedId" = 'UsAda18150'"#), "1")
        let schema = try XCTUnwrap(value(#"SELECT "schema"->'fields' FROM "_SCHEMA" WHERE "className" = '_User'"#))
        XCTAssertTrue(schema.contains(#""_hashed_password": {"type": "String"}"#), schema)
        XCTAssertFalse(schema.contains(#""password""#), "the adapter's form has _hashed_password instead of password")
        let indexes = try rows("SELECT indexname FROM pg_indexes WHERE tablename IN ('_User', '_Role') ORDER BY indexname").compactMap { $0[0] }
        XCTAssertEqual(
            indexes,
            [
                "_Role_pkey", "_Role_unique_name", "_User_pkey", "_User_unique_email", "_User_unique_username",
                "case_insensitive_email", "case_insensitive_username", "displayName_1", "username_1",
            ])
    }

    /// A second import of a dataset with one changed cell updates that object only.
    func testAReimportUpdatesTheChangedObjectOnly() async throws {
        let folder = try copyOfFixture("recipes")
        let first = try await importDataset(folder.path)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let before = try rows(#"SELECT name, "updatedAt"::text, price FROM "Recipe" ORDER BY name"#)
        let recipes = folder.appendingPathComponent("recipes.csv")
        let text = try String(contentsOf: recipes, encoding: .utf8)
        try text.replacingOccurrences(of: ",4,18.50,yes,", with: ",4,19.75,yes,").write(to: recipes, atomically: true, encoding: .utf8)

        let second = try await importDataset(folder.path)
        XCTAssertTrue(second.succeeded, "\(second.errors)")
        let recipe = try XCTUnwrap(second.classes.first { $0.className == "Recipe" })
        XCTAssertEqual([recipe.inserted, recipe.updated], [0, 1])
        XCTAssertEqual(second.classes.map(\.inserted).reduce(0, +), 0)
        let after = try rows(#"SELECT name, "updatedAt"::text, price FROM "Recipe" ORDER BY name"#)
        XCTAssertEqual(after.count, before.count, "nothing duplicated")
        for (old, new) in zip(before, after) {
            if new[0] == "Risotto alla Milanese" {
                XCTAssertEqual(new[2], "19.75")
                XCTAssertNotEqual(new[1], old[1], "the changed object gets a new updatedAt")
            } else {
                XCTAssertEqual(new, old, "an unchanged object keeps its row")
            }
        }
        XCTAssertEqual(try value(#"SELECT count(*) FROM "_SCHEMA""#), "3")
    }

    /// A re-import compares each object with the digest of its stored row: with every Parse
    /// type (recipes), nothing changed leaves every row as it was (not rewritten: same `xmin`),
    /// and a row changed in the database since (by the app) is found changed and written back.
    func testAReimportComparesEveryTypeWithTheStoredRows() async throws {
        let folder = try copyOfFixture("recipes")
        let first = try await importDataset(folder.path)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let tables = ["Kitchen", "Recipe", "Chef"]
        func versions() throws -> [[String?]] {
            try tables.flatMap { table in try rows(#"SELECT '\#(table)', "objectId", xmin::text, "updatedAt"::text FROM "\#(table)" ORDER BY 2"#) }
        }
        let before = try versions()
        let again = try await importDataset(folder.path)
        XCTAssertTrue(again.succeeded, "\(again.errors)")
        for tally in again.classes { XCTAssertEqual([tally.unchanged, tally.updated, tally.inserted], [tally.read, 0, 0], tally.className) }
        XCTAssertEqual(try versions(), before, "no row rewritten")

        try db.execute(#"UPDATE "Kitchen" SET location = point(1, 2), "deliveryArea" = NULL WHERE name = 'Trattoria Luce'"#)
        try db.execute(#"UPDATE "Recipe" SET price = 1, _rperm = '{*}' WHERE name = 'Risotto alla Milanese'"#)
        let restored = try await importDataset(folder.path)
        XCTAssertEqual(restored.classes.first { $0.className == "Kitchen" }?.updated, 1)
        XCTAssertEqual(restored.classes.first { $0.className == "Recipe" }?.updated, 1)
        XCTAssertEqual(try value(#"SELECT location[0] || ' ' || location[1] FROM "Kitchen" WHERE name = 'Trattoria Luce'"#), "9.19 45.4642")
        XCTAssertEqual(try value(#"SELECT "deliveryArea" IS NOT NULL FROM "Kitchen" WHERE name = 'Trattoria Luce'"#), "t")
        XCTAssertEqual(try rows(#"SELECT price::text, _rperm::text FROM "Recipe" WHERE name = 'Risotto alla Milanese'"#), [["18.5", nil]])
    }

    /// An import that fails on the database (a username another user has) leaves everything
    /// as it was: no rows, no new class, no new `_SCHEMA` row.
    func testAFailedImportLeavesTheDatabaseAsItWas() async throws {
        let folder = try temporaryFolder("postgres-clash")
        let yaml = """
            version: 1
            classes:
              _User:
                source: users.csv
                key: [email]
                fields:
                  username: String!
                  email: String!
              Note:
                source: notes.csv
                key: [title]
                fields:
                  title: String!
                  author: Pointer<_User>
            """
        try yaml.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try "username,email\nana,ana@example.com\n".write(to: folder.appendingPathComponent("users.csv"), atomically: true, encoding: .utf8)
        try "title,author\nFirst,ana@example.com\n".write(to: folder.appendingPathComponent("notes.csv"), atomically: true, encoding: .utf8)
        let first = try await importDataset(folder.path)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let before = try snapshot()

        // Another e-mail (so another user) with the same username, and a new class.
        try "username,email\nana,other@example.com\n".write(to: folder.appendingPathComponent("users.csv"), atomically: true, encoding: .utf8)
        try "title,author\nSecond,other@example.com\n".write(to: folder.appendingPathComponent("notes.csv"), atomically: true, encoding: .utf8)
        do {
            _ = try await importDataset(folder.path)
            XCTFail("the clash must fail the import")
        } catch let error as PorterError {
            XCTAssertEqual(error.postgresError?.sqlState, "23505", "\(error)")
            XCTAssertEqual(error.postgresError?.constraint, "_User_unique_username")
            XCTAssertFalse(error.message.contains("password"), error.message)
        }
        XCTAssertEqual(try snapshot(), before)
    }
}

/// Pointer cycles: the pointers a cycle leaves for later are patched in, one UPDATE per field
/// and batch; on a re-import a changed pointer updates its object and its `updatedAt`.
final class PostgresPointerCycleTests: PostgresTestCase {
    /// Each employee's manager and team, and each team's lead, by name.
    private func pointers() throws -> [[String?]] {
        try rows(
            """
            SELECT e.name, m.name, t.name, l.name FROM "Employee" e LEFT JOIN "Employee" m ON m."objectId" = e.manager
            LEFT JOIN "Team" t ON t."objectId" = e.team LEFT JOIN "Employee" l ON l."objectId" = t.lead ORDER BY e.name
            """)
    }

    func testCyclicPointersArriveAndAChangedOneIsPatched() async throws {
        let folder = try copyOfFixture("org")
        let first = try await importDataset(folder.path)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let arrived = try pointers()
        XCTAssertEqual(arrived.count, 16)
        XCTAssertEqual(arrived.first { $0[0] == "Sofia Petrova" }, ["Sofia Petrova", "Lukas Schmidt", "Platform", "Lukas Schmidt"])
        XCTAssertEqual(arrived.first { $0[0] == "Amara Okafor" }?[1], .some(nil), "the CEO has no manager")
        let csv = try String(contentsOf: PackageFolders.fixtures.appendingPathComponent("org/employees.csv"), encoding: .utf8)
        // name,title,manager,team: the manager is the second cell from the end (a title may hold a quoted comma).
        let managers = Dictionary(
            uniqueKeysWithValues: csv.split(separator: "\n").dropFirst().map { line in
                let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                return (cells[0], cells[cells.count - 2].isEmpty ? nil : cells[cells.count - 2])
            })
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: arrived.map { ($0[0]!, $0[1]) }), managers, "every manager as employees.csv names it")
        XCTAssertEqual(
            try value(#"SELECT count(*) FROM "Employee" WHERE "updatedAt" <> "createdAt""#), "0",
            "patching a table the import made keeps the time the objects were written with")

        let employees = folder.appendingPathComponent("employees.csv")
        try csv.replacingOccurrences(of: "Sofia Petrova,Backend Engineer,Lukas Schmidt,", with: "Sofia Petrova,Backend Engineer,Amara Okafor,")
            .write(to: employees, atomically: true, encoding: .utf8)
        let before = try value(#"SELECT "updatedAt"::text FROM "Employee" WHERE name = 'Sofia Petrova'"#)
        let second = try await importDataset(folder.path)
        XCTAssertTrue(second.succeeded, "\(second.errors)")
        XCTAssertEqual(try pointers().first { $0[0] == "Sofia Petrova" }?[1], "Amara Okafor")
        XCTAssertEqual(try pointers().filter { $0[0] != "Sofia Petrova" }, arrived.filter { $0[0] != "Sofia Petrova" })
        XCTAssertNotEqual(try value(#"SELECT "updatedAt"::text FROM "Employee" WHERE name = 'Sofia Petrova'"#), before)
        XCTAssertEqual(try value(#"SELECT count(*) FROM "Employee" WHERE "updatedAt" <> "createdAt""#), "1", "only the changed employee is touched")
        let employeeTally = try XCTUnwrap(second.classes.first { $0.className == "Employee" })
        XCTAssertEqual([employeeTally.updated, employeeTally.unchanged], [1, 15])
    }
}

/// Relations on a re-import: a changed relation cell replaces that owner's links in its join table.
final class PostgresRelationReimportTests: PostgresTestCase {
    /// A join table the import makes takes its links straight in and is keyed at the end; a
    /// link listed twice is stored and counted once, and the table gets its primary key.
    func testALinkListedTwiceIntoANewJoinTableIsStoredOnce() async throws {
        let folder = try copyOfFixture("library")
        let links = folder.appendingPathComponent("book_genres.csv")
        let text = try String(contentsOf: links, encoding: .utf8)
        try (text + "Fantasy,American Gods\nFantasy,American Gods\n").write(to: links, atomically: true, encoding: .utf8)
        let report = try await importDataset(folder.path)
        XCTAssertTrue(report.succeeded, "\(report.errors)")
        XCTAssertEqual(report.relations.first { $0.relation == "Genre.books" }?.added, 72)
        XCTAssertEqual(try value(#"SELECT count(*) FROM "_Join:books:Genre""#), "72")
        XCTAssertEqual(
            try value(
                """
                SELECT count(*) FROM "_Join:books:Genre" j JOIN "Genre" g ON g."objectId" = j."owningId" JOIN "Book" b ON b."objectId" = j."relatedId"
                WHERE g.name = 'Fantasy' AND b.title = 'American Gods'
                """), "1")
        XCTAssertEqual(
            try value(#"SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = '"_Join:books:Genre"'::regclass AND contype = 'p'"#),
            #"PRIMARY KEY ("relatedId", "owningId")"#)
    }

    func testAChangedRelationCellReplacesTheOwnersLinks() async throws {
        let folder = try copyOfFixture("library")
        let first = try await importDataset(folder.path)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        // Links are staged and written once, at the end: the summary still counts each relation's.
        let written = try XCTUnwrap(first.relations.first { $0.relation == "Book.authors" })
        XCTAssertEqual([written.added, written.removed], [47, 0])
        let books = folder.appendingPathComponent("books.csv")
        let text = try String(contentsOf: books, encoding: .utf8)
        try text.replacingOccurrences(of: "978-0-441-17271-9,Frank Herbert,", with: "978-0-441-17271-9,Isaac Asimov,")
            .write(to: books, atomically: true, encoding: .utf8)

        let second = try await importDataset(folder.path)
        XCTAssertTrue(second.succeeded, "\(second.errors)")
        let authors = try XCTUnwrap(second.relations.first { $0.relation == "Book.authors" })
        XCTAssertEqual([authors.added, authors.removed], [1, 1])
        XCTAssertEqual(
            try value(
                """
                SELECT string_agg(a.name, ';' ORDER BY a.name) FROM "_Join:authors:Book" j JOIN "Book" b ON b."objectId" = j."owningId"
                JOIN "Author" a ON a."objectId" = j."relatedId" WHERE b.title = 'Dune'
                """), "Isaac Asimov")
        XCTAssertEqual(try value(#"SELECT count(*) FROM "_Join:authors:Book""#), "47", "one link replaced, none added elsewhere")
    }

    /// A re-import where one book's one field and one of its links changed writes exactly
    /// those: that row (a new `xmin`) and that link; every other row of every class and join
    /// table keeps its `xmin`, and the join table holds the stored pairs but the replaced one.
    func testAReimportWithOneFieldAndOneLinkChangedWritesExactlyThose() async throws {
        let folder = try copyOfFixture("library")
        let first = try await importDataset(folder.path)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let tables = ["Genre", "Author", "Publisher", "ISBN", "Book"]
        let joins = ["_Join:authors:Book", "_Join:publishers:Book", "_Join:books:Genre"]
        func versions() throws -> [[String?]] {
            try tables.flatMap { table in try rows(#"SELECT '\#(table)', "objectId", xmin::text FROM "\#(table)" ORDER BY 2"#) }
                + joins.flatMap { table in
                    try rows(#"SELECT '\#(table)', "owningId" || '>' || "relatedId", xmin::text FROM "\#(table)" ORDER BY 2"#)
                }
        }
        let before = try versions()
        let dune = try XCTUnwrap(value(#"SELECT "objectId" FROM "Book" WHERE title = 'Dune'"#))
        let herbert = try XCTUnwrap(value(#"SELECT "objectId" FROM "Author" WHERE name = 'Frank Herbert'"#))
        let asimov = try XCTUnwrap(value(#"SELECT "objectId" FROM "Author" WHERE name = 'Isaac Asimov'"#))
        let books = folder.appendingPathComponent("books.csv")
        let text = try String(contentsOf: books, encoding: .utf8)
        let changed = text.replacingOccurrences(
            of: "Dune,1965,Science Fiction,978-0-441-17271-9,Frank Herbert,", with: "Dune,1966,Science Fiction,978-0-441-17271-9,Isaac Asimov,")
        XCTAssertNotEqual(changed, text)
        try changed.write(to: books, atomically: true, encoding: .utf8)

        let second = try await importDataset(folder.path)
        XCTAssertTrue(second.succeeded, "\(second.errors)")
        for tally in second.classes {
            let updated = tally.className == "Book" ? 1 : 0
            XCTAssertEqual([tally.inserted, tally.updated, tally.unchanged], [0, updated, tally.read - updated], tally.className)
        }
        XCTAssertEqual(
            Dictionary(uniqueKeysWithValues: second.relations.map { ($0.relation, [$0.added, $0.removed]) }),
            ["Book.authors": [1, 1], "Book.publishers": [0, 0], "Genre.books": [0, 0]])
        XCTAssertEqual(try value(#"SELECT "publishingYear"::text FROM "Book" WHERE title = 'Dune'"#), "1966")
        let after = try versions()
        let removed = "\(dune)>\(herbert)", added = "\(dune)>\(asimov)"
        XCTAssertEqual(
            after.filter { !($0[0] == "Book" && $0[1] == dune) && $0[1] != added },
            before.filter { !($0[0] == "Book" && $0[1] == dune) && $0[1] != removed },
            "every other row and link as it was, not rewritten")
        XCTAssertNotEqual(after.first { $0[0] == "Book" && $0[1] == dune }, before.first { $0[0] == "Book" && $0[1] == dune })
        XCTAssertEqual(after.filter { $0[1] == added }.count, 1)
        XCTAssertEqual(after.filter { $0[1] == removed }.count, 0)
    }

    /// A re-import compares each owner's links with the digest of its stored ones: links the
    /// app removed or added since are found (the owner's set differs) and put back as the
    /// sources list them; the other owners are left out.
    func testAReimportFindsLinksChangedInTheDatabaseSince() async throws {
        let folder = try copyOfFixture("library")
        let first = try await importDataset(folder.path)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let links = #"SELECT string_agg("owningId" || '>' || "relatedId", ',' ORDER BY "owningId", "relatedId") FROM "_Join:authors:Book""#
        let stored = try value(links)
        let unchanged = try await importDataset(folder.path)
        XCTAssertEqual(unchanged.relations.map { [$0.added, $0.removed] }, unchanged.relations.map { _ in [0, 0] })

        try db.execute(
            """
            DELETE FROM "_Join:authors:Book" j USING "Book" b WHERE b."objectId" = j."owningId" AND b.title = 'Dune'
            """)
        try db.execute(
            """
            INSERT INTO "_Join:authors:Book" ("owningId", "relatedId") SELECT b."objectId", a."objectId" FROM "Book" b, "Author" a
            WHERE b.title = 'American Gods' AND a.name = 'Frank Herbert'
            """)
        let again = try await importDataset(folder.path)
        XCTAssertTrue(again.succeeded, "\(again.errors)")
        let authors = try XCTUnwrap(again.relations.first { $0.relation == "Book.authors" })
        XCTAssertEqual([authors.added, authors.removed], [1, 1])
        XCTAssertEqual(try value(links), stored)
    }
}
