import Foundation
import XCTest

/// A Parse export folder without a manifest (`Fixtures/parse-app`: `schema.json`, `<Class>.json`,
/// join files) imports with its objectIds, timestamps, typed values, pointers and links; again
/// without a change; and `validate` and `plan` read it too.
final class ParseLayoutImportTests: XCTestCase {
    let parseApp = CommandRunner.fixtures.appendingPathComponent("parse-app").path

    func importParseApp(to target: URL, file: StaticString = #filePath, line: UInt = #line) throws -> ImportSummary {
        let result = try CommandRunner.run(["import", parseApp, "--to", target.path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return try ImportSummary.parse(result)
    }

    func testImportKeepsIdsTimestampsValuesAndLinks() throws {
        let target = try temporaryFolder().appendingPathComponent("app.sqlite")
        let summary = try importParseApp(to: target)
        XCTAssertEqual(summary.classes.map { [$0.className: $0.inserted] }, [["Genre": 3], ["Author": 4], ["Shop": 2], ["Book": 4]])
        XCTAssertEqual(summary.relation("Book.authors")?.added, 5)
        XCTAssertEqual(summary.relation("Shop.stock")?.added, 3)
        XCTAssertEqual(summary.relation("Genre.featured")?.added, 0)
        let mirror = try Mirror(target)

        // objectIds and createdAt/updatedAt as exported, also for the objects the cycle patch touched.
        XCTAssertEqual(
            try mirror.rows("SELECT objectId, createdAt, updatedAt FROM Book ORDER BY objectId"),
            [
                ["Bk1EarthSe", "2023-04-05T09:30:00.000Z", "2023-06-01T12:00:00.000Z"],
                ["Bk2TombsAt", "2023-04-05T09:31:00.000Z", "2023-04-05T09:31:00.000Z"],
                ["Bk3DuneFH1", "2023-04-06T18:00:00.000Z", "2024-01-31T09:30:00.000Z"],
                ["Bk4Messiah", "2023-04-06T18:05:00.000Z", "2023-04-06T18:05:00.000Z"],
            ])
        XCTAssertEqual(
            try mirror.rows("SELECT objectId, updatedAt, born, ACL FROM Author ORDER BY createdAt"),
            [
                ["Au1LgW7r2K", "2023-04-03T08:15:00.000Z", "1929-10-21T00:00:00.000Z", #"{"*":{"read":true}}"#],
                ["Au4Fh9Xe3N", "2024-02-29T23:59:59.999Z", "1920-10-08T00:00:00.000Z", "{}"],
                ["Au8Th2Lk5Q", "2023-04-03T08:17:00.000Z", nil, nil],
                ["Au2Ok6Ni9Z", "2023-05-20T14:00:00.000Z", "1974-04-08T00:00:00.000Z", #"{"*":{"read":true},"role:Editor":{"read":true,"write":true}}"#],
            ])

        // Typed values in the mirror's column encoding.
        XCTAssertEqual(
            try mirror.rows(
                """
                SELECT pages, typeof(pages), price, typeof(price), copies, format, inPrint, published, details, tags, cover, sample, genre, sequel, ACL
                FROM Book WHERE objectId = 'Bk1EarthSe'
                """),
            [
                [
                    "183", "integer", "8.99", "real", "3", "hardcover", "1", "1968-11-01T00:00:00.000Z",
                    #"{"publisher":"Parnassus Press","series":{"name":"Earthsea","number":1}}"#, #"["fantasy","magic","coming of age"]"#,
                    #"{"__type":"File","name":"7c1d9e0f2a3b4c5d6e7f8091a2b3c4d5_earthsea.jpg","url":"https://files.example.com/app/7c1d9e0f2a3b4c5d6e7f8091a2b3c4d5_earthsea.jpg"}"#,
                    #"{"__type":"Bytes","base64":"SGVsbG8sIEVhcnRoc2VhIQ=="}"#, "Gn7fA2kQ1x", "Bk2TombsAt",
                    #"{"*":{"read":true},"role:Editor":{"read":true,"write":true}}"#,
                ]
            ])
        // Defaults fill what an object lacks; an integer price stays an integer; no ACL stays none.
        XCTAssertEqual(
            try mirror.rows("SELECT price, typeof(price), copies, format, inPrint, tags, details, sequel, ACL FROM Book WHERE objectId = 'Bk2TombsAt'"),
            [["9", "integer", "1", "paperback", "0", "[]", nil, nil, nil]])
        XCTAssertEqual(try mirror.value("SELECT ACL FROM Book WHERE objectId = 'Bk3DuneFH1'"), "{}")
        // Pointers, the self-pointer cycle included, resolve to existing objects.
        XCTAssertEqual(
            try mirror.rows(
                "SELECT b.title, g.name, s.title FROM Book b JOIN Genre g ON g.objectId = b.genre LEFT JOIN Book s ON s.objectId = b.sequel ORDER BY b.objectId"
            ),
            [
                ["A Wizard of Earthsea", "Fantasy", "The Tombs of Atuan"], ["The Tombs of Atuan", "Fantasy", nil],
                ["Dune", "Science Fiction", "Dune Messiah"], ["Dune Messiah", "Science Fiction", nil],
            ])
        XCTAssertEqual(
            try mirror.rows("SELECT name, location, area FROM Shop ORDER BY objectId"),
            [
                [
                    "Livraria Bertrand", #"{"__type":"GeoPoint","latitude":38.7107,"longitude":-9.1421}"#,
                    #"{"__type":"Polygon","coordinates":[[38.711,-9.143],[38.711,-9.141],[38.71,-9.141],[38.71,-9.143]]}"#,
                ],
                ["丸善 京都本店", #"{"__type":"GeoPoint","latitude":35.0045,"longitude":135.7637}"#, nil],
            ])

        // Join tables: from `_Join:authors:Book.json`, Back4App's `_Join꞉stock꞉Shop.json`, and none for Genre.featured.
        XCTAssertEqual(
            try mirror.rows(#"SELECT owningId, relatedId FROM "_Join:authors:Book" ORDER BY owningId, relatedId"#),
            [
                ["Bk1EarthSe", "Au1LgW7r2K"], ["Bk2TombsAt", "Au1LgW7r2K"], ["Bk3DuneFH1", "Au4Fh9Xe3N"],
                ["Bk4Messiah", "Au2Ok6Ni9Z"], ["Bk4Messiah", "Au4Fh9Xe3N"],
            ])
        XCTAssertEqual(
            try mirror.rows(#"SELECT owningId, relatedId FROM "_Join:stock:Shop" ORDER BY owningId, relatedId"#),
            [
                ["Sh1Lisb0aX", "Bk1EarthSe"], ["Sh1Lisb0aX", "Bk3DuneFH1"], ["Sh2Kyot0bY", "Bk3DuneFH1"],
            ])
        XCTAssertEqual(try mirror.value(#"SELECT count(*) FROM "_Join:featured:Genre""#), "0")

        // `_SCHEMA` holds schema.json's types, required flags and defaults.
        let book = try XCTUnwrap(try mirror.value("SELECT schema FROM _SCHEMA WHERE className = 'Book'"))
        for spec in [
            #""title":{"type":"String","required":true}"#, #""copies":{"type":"Number","defaultValue":1}"#,
            #""format":{"type":"String","required":true,"defaultValue":"paperback"}"#, #""inPrint":{"type":"Boolean"}"#,
            #""published":{"type":"Date"}"#, #""details":{"type":"Object"}"#, #""tags":{"type":"Array"}"#, #""cover":{"type":"File"}"#,
            #""sample":{"type":"Bytes"}"#, #""genre":{"type":"Pointer","targetClass":"Genre"}"#,
            #""sequel":{"type":"Pointer","targetClass":"Book"}"#, #""authors":{"type":"Relation","targetClass":"Author"}"#,
        ] {
            XCTAssertTrue(book.contains(spec), "\(spec) not in \(book)")
        }
        let shop = try XCTUnwrap(try mirror.value("SELECT schema FROM _SCHEMA WHERE className = 'Shop'"))
        XCTAssertTrue(shop.contains(#""location":{"type":"GeoPoint"},"area":{"type":"Polygon"},"stock":{"type":"Relation","targetClass":"Book"}"#), shop)
        XCTAssertTrue(
            try XCTUnwrap(try mirror.value("SELECT schema FROM _SCHEMA WHERE className = 'Genre'")).contains(
                #""featured":{"type":"Relation","targetClass":"Book"}"#))
    }

    func testSecondImportChangesNothing() throws {
        let target = try temporaryFolder().appendingPathComponent("app.sqlite")
        _ = try importParseApp(to: target)
        let before = try Mirror(target).rows("SELECT objectId, updatedAt, sequel FROM Book ORDER BY objectId")
        let second = try importParseApp(to: target)
        XCTAssertTrue(second.committed)
        for tally in second.classes {
            XCTAssertEqual([tally.inserted, tally.updated, tally.rejected], [0, 0, 0], tally.className)
            XCTAssertEqual(tally.unchanged, tally.read, tally.className)
        }
        XCTAssertTrue(second.relations.allSatisfy { $0.added == 0 && $0.removed == 0 }, "\(second.relations)")
        XCTAssertEqual(try Mirror(target).rows("SELECT objectId, updatedAt, sequel FROM Book ORDER BY objectId"), before)
    }

    /// Without `--to`, the mirror is `<folder>/<folder name>.sqlite`, as for a dataset with a manifest.
    func testDefaultMirrorAndValidateAndPlan() throws {
        let copy = try CommandRunner.copyFixture("parse-app", to: try temporaryFolder())
        let validated = try CommandRunner.run(["validate", copy.path, "--quiet"])
        XCTAssertEqual(validated.status, 0, validated.stderr)
        XCTAssertTrue(validated.stdout.contains("valid: 13 records in 4 classes"), validated.stdout)
        let plan = try CommandRunner.run(["plan", copy.path])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("patch Book.sequel"), plan.stdout)
        XCTAssertTrue(plan.stdout.contains("relations Genre.featured, Book.authors, Shop.stock"), plan.stdout)
        let imported = try CommandRunner.run(["import", copy.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(try Mirror(copy.appendingPathComponent("parse-app.sqlite")).value("SELECT count(*) FROM Book"), "4")
        XCTAssertEqual(try CommandRunner.run(["validate", copy.appendingPathComponent("schema.json").path, "--quiet"]).status, 0)
        // The mirror the import left in the folder is not mistaken for part of the export.
        XCTAssertEqual(try CommandRunner.run(["validate", copy.path, "--quiet"]).status, 0)
    }

    /// `_User` and `_Role` (with their join files) import like any class; `_Session`, which a
    /// served mirror's schema lists after a log-in, is skipped and named in the summary.
    func testSystemClasses() throws {
        let copy = try CommandRunner.copyFixture("parse-app", to: try temporaryFolder())
        let schema = copy.appendingPathComponent("schema.json")
        let system = """
            {"className": "_User", "fields": {"objectId": {"type": "String"}, "username": {"type": "String"}, "password": {"type": "String"},
              "email": {"type": "String"}, "emailVerified": {"type": "Boolean"}, "authData": {"type": "Object"}}},
            {"className": "_Role", "fields": {"name": {"type": "String"}, "users": {"type": "Relation", "targetClass": "_User"},
              "roles": {"type": "Relation", "targetClass": "_Role"}}},
            {"className": "_Session", "fields": {"user": {"type": "Pointer", "targetClass": "_User"}, "sessionToken": {"type": "String"}}},
            """
        try String(contentsOf: schema, encoding: .utf8).replacingOccurrences(of: "\"results\": [", with: "\"results\": [\n" + system)
            .write(to: schema, atomically: true, encoding: .utf8)
        try
            #"[{"objectId": "Us1Ann0001", "username": "ann", "email": "ann@example.com", "emailVerified": true, "ACL": {"Us1Ann0001": {"read": true, "write": true}}}]"#
            .write(to: copy.appendingPathComponent("_User.json"), atomically: true, encoding: .utf8)
        try #"{"results": [{"objectId": "Ro1Editor1", "name": "Editor", "ACL": {"*": {"read": true}}}]}"#
            .write(to: copy.appendingPathComponent("_Role.json"), atomically: true, encoding: .utf8)
        try #"[{"owningId": "Ro1Editor1", "relatedId": "Us1Ann0001"}]"#
            .write(to: copy.appendingPathComponent("_Join:users:_Role.json"), atomically: true, encoding: .utf8)
        let target = copy.appendingPathComponent("app.sqlite")
        let result = try CommandRunner.run(["import", copy.path, "--to", target.path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("skipped _Session: sessions belong to the server that issued them"), result.stdout)
        let mirror = try Mirror(target)
        XCTAssertEqual(try mirror.rows("SELECT objectId, username, email, emailVerified FROM _User"), [["Us1Ann0001", "ann", "ann@example.com", "1"]])
        XCTAssertEqual(try mirror.rows(#"SELECT owningId, relatedId FROM "_Join:users:_Role""#), [["Ro1Editor1", "Us1Ann0001"]])
        XCTAssertNil(try mirror.value("SELECT name FROM sqlite_master WHERE name = '_Session'"))
    }

    /// A class file beside `schema.json` that it does not list is named as skipped, not ignored.
    func testClassFilesTheSchemaDoesNotListAreNamed() throws {
        let copy = try CommandRunner.copyFixture("parse-app", to: try temporaryFolder())
        try #"[{"objectId": "Ex1", "note": "left out"}]"#.write(to: copy.appendingPathComponent("Extra.json"), atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["import", copy.path, "--to", copy.appendingPathComponent("app.sqlite").path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let skipped = try XCTUnwrap(json["skippedClasses"] as? [[String: String]])
        XCTAssertEqual(skipped, [["className": "Extra", "reason": "Extra.json is not read: schema.json does not list Extra"]])
        XCTAssertNil(try Mirror(copy.appendingPathComponent("app.sqlite")).value("SELECT name FROM sqlite_master WHERE name = 'Extra'"))
    }

    /// Into a Parse Server that takes custom objectIds, the objects and links arrive as in a
    /// mirror (a Polygon's ring closed, as Parse Server stores it), and a second run sends no write.
    func testImportIntoAParseServer() throws {
        let server = try ServedMirror(in: self, allowCustomObjectId: true)
        let first = try server.runImport(parseApp, ["--json"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let mirror = try temporaryFolder().appendingPathComponent("app.sqlite")
        _ = try importParseApp(to: mirror)
        let served = try MirrorContent(server.file, keys: [:]), local = try MirrorContent(mirror, keys: [:]).withPolygonRingsClosed()
        XCTAssertEqual(served.objectCount, 13)
        XCTAssertEqual(served.linkCount, 8)
        XCTAssertEqual(served, local, "\(served.differences(from: local))")
        let second = try ImportSummary.parse(try server.runImport(parseApp, ["--json"]))
        XCTAssertTrue(second.classes.allSatisfy { $0.unchanged == $0.read }, "\(second.classes)")
        let written = second.requests.filter {
            $0.phase.hasPrefix("write") || $0.phase.hasPrefix("patch") || $0.phase.hasPrefix("relations") || $0.phase == "schemas"
        }
        XCTAssertEqual(written.map(\.requests).reduce(0, +), 0, "\(second.requests)")
    }
}
