import Foundation
import PorterPostgres
import XCTest

/// Parse exports as Parse kept them (excerpts of real ones, `Fixtures/README.md`): pointers to
/// deleted objects (one whose objectId is the text "null") and join rows naming deleted objects
/// stay as they are, counted per field, into a mirror, a Parse Server (a served mirror) and
/// PostgreSQL; `--dangling clear` and `reject` do what they say.
final class DanglingReferenceTests: XCTestCase {
    let anglish = CommandRunner.fixtures.appendingPathComponent("parse-com-anglish")
    let notetexer = CommandRunner.fixtures.appendingPathComponent("parse-com-notetexer")
    /// The 20 join rows of the NoteTeXer excerpt whose owner (and related page) was deleted, and the 4 whose pages are there.
    static let deletedOwnerRows = 20, liveRows = 4

    func json(_ result: CommandRunner.Result, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        XCTAssertEqual(result.status, 0, result.stderr, file: file, line: line)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], file: file, line: line)
    }

    func dangling(_ summary: [String: Any]) -> [[String: Any]] { summary["danglingReferences"] as? [[String: Any]] ?? [] }

    /// Into a mirror (the default for an export): every object and every link as the export has
    /// it, the dangling ones counted per field with the first one named; a second import changes nothing.
    func testMirrorKeepsWhatParseKept() throws {
        let scratch = try temporaryFolder()
        let words = scratch.appendingPathComponent("anglish.sqlite")
        let summary = try json(try CommandRunner.run(["import", anglish.path, "--to", words.path, "--json"]))
        let counted = dangling(summary)
        XCTAssertEqual(counted.map { "\($0["className"]!).\($0["field"]!)" }, ["Comment.parentWord", "Comment.parentComment"])
        XCTAssertEqual(counted.map { $0["count"] as? Int }, [1, 1])
        XCTAssertEqual(counted.map { $0["policy"] as? String }, ["keep", "keep"])
        XCTAssertEqual(counted.map { $0["source"] as? String }, ["pointer", "pointer"])
        XCTAssertEqual(counted.map { $0["value"] as? String }, ["9TT2Qfz77z", "null"])
        XCTAssertEqual(counted.map { $0["file"] as? String }, ["Comment.json", "Comment.json"])
        XCTAssertEqual(counted.map { $0["line"] as? Int }, [2, 2])
        XCTAssertEqual(try Mirror(words).rows("SELECT parentWord, parentComment, by FROM Comment"), [["9TT2Qfz77z", "null", "TyeUpnrLdw"]])
        try ExportSourceCheck.assertMirror(words, matches: anglish, skipped: ["_Installation"])

        let pages = scratch.appendingPathComponent("notetexer.sqlite")
        let imported = try CommandRunner.run(["import", notetexer.path, "--to", pages.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(
            imported.stdout.contains(
                """
                dangling NotePage.linksTo: 20 join rows naming a missing object (20 with no NotePage owner), kept (first _Join:linksTo:NotePage.json:2, "QjVpqqhwj7")
                """), imported.stdout)
        let compared = try ExportSourceCheck.assertMirror(pages, matches: notetexer, skipped: ["_Installation"])
        XCTAssertEqual(compared.links, Self.deletedOwnerRows + Self.liveRows)
        XCTAssertEqual(try Mirror(pages).value(#"SELECT count(*) FROM "_Join:linksTo:NotePage" WHERE owningId NOT IN (SELECT objectId FROM NotePage)"#), "20")

        let again = try json(try CommandRunner.run(["import", notetexer.path, "--to", pages.path, "--json"]))
        XCTAssertEqual((again["classes"] as? [[String: Any]])?.map { $0["inserted"] as? Int }.allSatisfy { $0 == 0 }, true)
        XCTAssertEqual((again["relations"] as? [[String: Any]])?.first { $0["relation"] as? String == "NotePage.linksTo" }?["added"] as? Int, 0)
        XCTAssertEqual(dangling(again).first?["count"] as? Int, 20)
        try ExportSourceCheck.assertMirror(pages, matches: notetexer, skipped: ["_Installation"])
    }

    /// `--dangling clear` unsets the pointers and leaves the rows out, counted; `reject` refuses
    /// the records, and nothing is written.
    func testClearAndReject() throws {
        let scratch = try temporaryFolder()
        let words = scratch.appendingPathComponent("cleared.sqlite")
        let cleared = try json(try CommandRunner.run(["import", anglish.path, "--to", words.path, "--json", "--dangling", "clear"]))
        XCTAssertEqual(dangling(cleared).map { $0["policy"] as? String }, ["clear", "clear"])
        XCTAssertEqual(
            try Mirror(words).rows("SELECT parentWord, parentComment, by, data FROM Comment"), [[nil, nil, "TyeUpnrLdw", "Test Comment do not read. "]])
        let text = try CommandRunner.run(["import", anglish.path, "--to", scratch.appendingPathComponent("text.sqlite").path, "--dangling", "clear", "--quiet"])
        XCTAssertTrue(text.stdout.contains(#"dangling Comment.parentComment: 1 pointer to no Comment, left unset (first Comment.json:2, "null")"#), text.stdout)

        let pages = scratch.appendingPathComponent("pages.sqlite")
        let left = try json(try CommandRunner.run(["import", notetexer.path, "--to", pages.path, "--json", "--dangling", "clear"]))
        XCTAssertEqual(dangling(left).first?["count"] as? Int, 20)
        XCTAssertEqual(dangling(left).first?["missingOwners"] as? Int, 20)
        XCTAssertEqual(try Mirror(pages).value(#"SELECT count(*) FROM "_Join:linksTo:NotePage""#), "\(Self.liveRows)")

        let refused = scratch.appendingPathComponent("refused.sqlite")
        for (export, expected) in [
            (anglish, #"Comment.json:2: column "parentComment" (Comment.parentComment): value "null": no Comment has objectId "null""#),
            (notetexer, #"_Join:linksTo:NotePage.json:2: column "owningId" (NotePage.linksTo): value "QjVpqqhwj7": no NotePage has objectId "QjVpqqhwj7""#),
        ] {
            let result = try CommandRunner.run(["import", export.path, "--to", refused.path, "--dangling", "reject", "--quiet"])
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(expected), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: refused.path))
            let validated = try CommandRunner.run(["validate", export.path, "--dangling", "reject", "--format", "json"])
            XCTAssertEqual(validated.status, 1)
            XCTAssertGreaterThan(
                (try JSONSerialization.jsonObject(with: Data(validated.stdout.utf8)) as? [String: Any])?["faultCounts"]
                    .flatMap { ($0 as? [String: Int])?["danglingReference"] } ?? 0, 0, validated.stdout)
        }
    }

    /// Through the REST API of a served mirror taking custom objectIds: the pointers arrive as
    /// they are and the live links too; a join row whose owner is gone cannot be sent (a Parse
    /// Server adds links by updating the owner) and is counted as not written, not refused.
    func testParseServerKeepsWhatItCanHold() throws {
        for export in [anglish, notetexer] {
            let server = try ServedMirror(in: self, allowCustomObjectId: true)
            let result = try server.runImport(export.path, ["--json", "--users-without-passwords"])
            let summary = try json(result)
            XCTAssertEqual(summary["errorCount"] as? Int, 0, result.stdout)
            try ExportSourceCheck.assertMirror(server.file, matches: export, timestamps: false, throughParseServer: true, skipped: ["_Installation"])
            if export == notetexer {
                let counted = try XCTUnwrap(dangling(summary).first)
                XCTAssertEqual(counted["count"] as? Int, 20)
                XCTAssertEqual(counted["notWritten"] as? Int, 20)
                XCTAssertEqual(try Mirror(server.file).value(#"SELECT count(*) FROM "_Join:linksTo:NotePage""#), "\(Self.liveRows)")
                XCTAssertEqual((summary["relations"] as? [[String: Any]])?.first { $0["relation"] as? String == "NotePage.linksTo" }?["rejected"] as? Int, 0)
            } else {
                XCTAssertEqual(try Mirror(server.file).rows("SELECT parentWord, parentComment FROM Comment"), [["9TT2Qfz77z", "null"]])
            }
        }
    }

    /// Into PostgreSQL: pointers and join rows as the export has them, the deleted owners' rows
    /// included; an export of the database gives them back.
    func testPostgresKeepsWhatParseKept() throws {
        let scratch = try temporaryFolder()
        let url = try PostgresCluster.shared().createDatabase()
        for export in [anglish, notetexer] {
            let result = try CommandRunner.run(["import", export.path, "--to", url, "--quiet"])
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let db = try PostgresConnection(url: url)
        defer { db.close() }
        XCTAssertEqual(try db.execute(#"SELECT "parentWord", "parentComment" FROM "Comment""#).map { $0 }, [["9TT2Qfz77z", "null"]])
        XCTAssertEqual(
            try db.execute(#"SELECT count(*) FROM "_Join:linksTo:NotePage" WHERE "owningId" NOT IN (SELECT "objectId" FROM "NotePage")"#).first?.first, "20")
        let out = scratch.appendingPathComponent("out")
        let exported = try CommandRunner.run(["export", "--target", url, "--to", out.path, "--classes", "NotePage", "--quiet"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let rows = try ExportSourceCheck.objects(out.appendingPathComponent("_Join:linksTo:NotePage.json"))
        let source = try ExportSourceCheck.objects(notetexer.appendingPathComponent("_Join:linksTo:NotePage.json"))
        XCTAssertEqual(Set(rows.map { "\($0["owningId"]!)>\($0["relatedId"]!)" }), Set(source.map { "\($0["owningId"]!)>\($0["relatedId"]!)" }))
    }

    /// A Relation whose related objects are all gone: its class from `--relation`, which the
    /// fault asks for, or from the field's name (a note says so); the hint must name a join file.
    func testRelationWhoseTargetsAreAllGone() throws {
        let scratch = try temporaryFolder()
        let copy = try CommandRunner.copyFixture("parse-com-notetexer", to: scratch)
        // The export's first 20 rows, whose pages were all deleted.
        let join = copy.appendingPathComponent("_Join:linksTo:NotePage.json")
        let rows = try ExportSourceCheck.objects(join).prefix(Self.deletedOwnerRows)
        try JSONSerialization.data(withJSONObject: ["results": Array(rows)]).write(to: join)

        let unknown = try CommandRunner.run(["schema", "infer", copy.path])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(
            unknown.stderr.contains("_Join:linksTo:NotePage.json: cannot tell which class NotePage.linksTo relates to: none of its relatedIds ("),
            unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("(--relation NotePage.linksTo=<Class>)"), unknown.stderr)
        XCTAssertFalse(unknown.stdout.contains(#""linksTo""#), "a Relation of no class is left out: \(unknown.stdout)")
        let refused = try CommandRunner.run(["import", copy.path, "--to", scratch.appendingPathComponent("refused.sqlite").path, "--quiet"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("(--relation NotePage.linksTo=<Class>)"), refused.stderr)

        let hinted = try CommandRunner.run(["schema", "infer", copy.path, "--relation", "NotePage.linksTo=NotePage"])
        XCTAssertEqual(hinted.status, 0, hinted.stderr)
        XCTAssertTrue(hinted.stdout.contains(#""linksTo": {"type": "Relation", "targetClass": "NotePage"}"#), hinted.stdout)
        let mirror = scratch.appendingPathComponent("hinted.sqlite")
        let imported = try json(try CommandRunner.run(["import", copy.path, "--to", mirror.path, "--relation", "NotePage.linksTo=NotePage", "--json"]))
        XCTAssertEqual(dangling(imported).first?["count"] as? Int, 20)
        XCTAssertEqual(
            Set(try Mirror(mirror).rows(#"SELECT owningId, relatedId FROM "_Join:linksTo:NotePage""#).map { "\($0[0]!)>\($0[1]!)" }),
            Set(rows.map { "\($0["owningId"]!)>\($0["relatedId"]!)" }))

        // Named for its class, the field needs no hint: a guess, said in a note.
        try FileManager.default.moveItem(at: join, to: copy.appendingPathComponent("_Join:notePages:NotePage.json"))
        let named = try CommandRunner.run(["schema", "infer", copy.path])
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertTrue(named.stdout.contains(#""notePages": {"type": "Relation", "targetClass": "NotePage"}"#), named.stdout)
        XCTAssertTrue(
            named.stderr.contains("_Join:notePages:NotePage.json: NotePage.notePages is taken to relate to NotePage, from the field's name"), named.stderr)
    }

    /// A stray file beside the objects (an app's NSDictionary dump named `user.json`, as a real
    /// export folder holds one) is left out with `--exclude`, and named; in a zip too.
    func testExcludeLeavesAStrayFileOut() throws {
        let scratch = try temporaryFolder()
        let folder = CommandRunner.fixtures.appendingPathComponent("bad/export-stray-file")
        let zip = scratch.appendingPathComponent("export.zip")
        try ZipBuilder.write(["Story.json", "user.json"].map { ($0, try Data(contentsOf: folder.appendingPathComponent($0))) }, to: zip)
        for export in [folder.path, zip.path] {
            let mirror = scratch.appendingPathComponent("\(UUID().uuidString).sqlite")
            let summary = try json(try CommandRunner.run(["import", export, "--to", mirror.path, "--exclude", "user.json", "--json"]))
            XCTAssertTrue((summary["notes"] as? [String] ?? []).contains(#"user.json: not read: left out ("user.json")"#), "\(summary["notes"] ?? "")")
            XCTAssertEqual(try Mirror(mirror).rows("SELECT objectId, title FROM Story"), [["sTory00001", "Hello World!"]])
            XCTAssertNil(try Mirror(mirror).value("SELECT 1 FROM sqlite_master WHERE name = 'user'"))
            let inferred = try CommandRunner.run(["schema", "infer", export, "--exclude", "*.json", "--exclude", "user.json"])
            XCTAssertEqual(inferred.status, 2, "nothing left to infer from: \(inferred.stderr)")
            let validated = try CommandRunner.run(["validate", export, "--exclude", "u*.json", "--quiet"])
            XCTAssertEqual(validated.status, 0, validated.stderr)
        }
        // A schema.json that is no Parse schema (a project's own beside its seed data): left out, the classes are inferred.
        let stray = CommandRunner.fixtures.appendingPathComponent("bad/export-stray-schema")
        let mirror = scratch.appendingPathComponent("inferred.sqlite")
        let summary = try json(try CommandRunner.run(["import", stray.path, "--to", mirror.path, "--exclude", "schema.json", "--json"]))
        XCTAssertTrue((summary["notes"] as? [String] ?? []).contains { $0.hasPrefix("no schema.json: the classes were inferred") }, "\(summary)")
        XCTAssertEqual(try Mirror(mirror).rows("SELECT objectId, status FROM Story"), [["sTory00001", "active"]])
    }
}
