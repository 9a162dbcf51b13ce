import Foundation
import XCTest

/// `export --format mongo` writes Parse Server's MongoDB layout, and `import` of that folder
/// gives the mirror again: every fixture's objects, ids, typed values, pointers, relations,
/// ACLs, dates and `_User` password hashes arrive unchanged (a File without its url, a Polygon
/// closed, as Parse Server stores them).
final class MongoLayoutRoundTripTests: XCTestCase {
    static let fixtures = ExportRoundTripTests.fixtures + ["parse-com-users"]
    /// Polygon fields of the fixtures: Parse Server stores a ring closed (`PolygonCoder.JSONToDatabase`
    /// adds the first vertex at the end) and reads it back so (`PolygonCoder.databaseToJSON`).
    static let polygonFields = ["Kitchen": "deliveryArea", "Shop": "area"]

    /// Imports `fixture` into a new mirror and exports it as the MongoDB layout.
    private func exported(_ fixture: String, in directory: URL) throws -> (mirror: URL, folder: URL, stdout: String) {
        let mirror = directory.appendingPathComponent("\(fixture).sqlite")
        let imported = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent(fixture).path, "--to", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let folder = directory.appendingPathComponent("\(fixture)-mongo")
        let export = try CommandRunner.run(["export", "--from", mirror.path, "--to", folder.path, "--format", "mongo", "--quiet"])
        XCTAssertEqual(export.status, 0, "\(fixture): \(export.stderr)")
        return (mirror, folder, export.stdout)
    }

    func testEveryFixtureRoundTrips() throws {
        let directory = try temporaryFolder()
        for fixture in Self.fixtures {
            let (original, folder, _) = try exported(fixture, in: directory)
            let copy = directory.appendingPathComponent("\(fixture)-copy.sqlite")
            let reimport = try CommandRunner.run(["import", folder.path, "--to", copy.path, "--quiet"])
            XCTAssertEqual(reimport.status, 0, "\(fixture): \(reimport.stderr)")
            let polygons = Set(Self.polygonFields.values)
            // A File keeps its name and loses its url: Parse Server stores the name (`FileCoder.JSONToDatabase`).
            MirrorSnapshot.assertEqual(
                try MirrorSnapshot(copy, leavingOut: polygons, droppingFileURLs: true),
                try MirrorSnapshot(original, leavingOut: polygons, droppingFileURLs: true), "\(fixture) via the MongoDB layout")
            try Self.assertRingsClosed(from: original, in: copy, fixture)
        }
    }

    /// Each Polygon of `copy` is the one of `original`, its ring closed as Parse Server stores it.
    static func assertRingsClosed(from original: URL, in copy: URL, _ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for (className, field) in polygonFields {
            let sql = "SELECT objectId, \"\(field)\" FROM \"\(className)\" ORDER BY objectId"
            guard let before = try? Mirror(original).rows(sql) else { continue }
            let after = try Mirror(copy).rows(sql)
            XCTAssertEqual(after.map { $0[0] }, before.map { $0[0] }, file: file, line: line)
            for (old, new) in zip(before, after) {
                guard let text = old[1], let ring = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[Double]] else { continue }
                let closed = ring.first == ring.last ? ring : ring + [ring[0]]
                XCTAssertEqual(
                    try JSONSerialization.jsonObject(with: Data((new[1] ?? "").utf8)) as? [[Double]], closed,
                    "\(context) \(className) \(old[0] ?? "")", file: file, line: line)
            }
        }
    }

    /// A `.zip` of the folder (as macOS's "Compress" makes it: one top folder and its noise) is
    /// read in place, like a zip of a Parse export, and gives the same mirror.
    func testAZipOfTheLayoutImports() throws {
        let directory = try temporaryFolder()
        let (original, folder, _) = try exported("parse-com-users", in: directory)
        let zip = directory.appendingPathComponent("mongo-dump.zip")
        try ZipBuilder.macOSArchive(of: folder, top: "mongo-dump", to: zip)
        let copy = directory.appendingPathComponent("from-zip.sqlite")
        let imported = try CommandRunner.run(["import", zip.path, "--to", copy.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        MirrorSnapshot.assertEqual(
            try MirrorSnapshot(copy, droppingFileURLs: true), try MirrorSnapshot(original, droppingFileURLs: true), "via a zip of the MongoDB layout")
        XCTAssertEqual(try Mirror(copy).rows("SELECT count(*) FROM _User WHERE _hashed_password LIKE '$2%'"), [["3"]])
    }

    /// Keys Parse Server keeps for itself on a user (a session token, the failed log-in count) are
    /// not imported, and the summary names and counts them rather than dropping them unsaid.
    func testServerKeptUserKeysAreNamedInTheSummary() throws {
        let directory = try temporaryFolder()
        let (_, folder, _) = try exported("parse-com-users", in: directory)
        let users = folder.appendingPathComponent("_User.json")
        var lines = try String(contentsOf: users, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[0] = String(lines[0].dropLast()) + #","_session_token":"r:abc","_failed_login_count":2}"#
        try (lines.joined(separator: "\n") + "\n").write(to: users, atomically: true, encoding: .utf8)
        let copy = directory.appendingPathComponent("copy.sqlite")
        let imported = try CommandRunner.run(["import", folder.path, "--target", copy.path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("skipped key _User._session_token: not a field, in 1 object (first _User.json:1)"), imported.stdout)
        XCTAssertTrue(imported.stdout.contains("skipped key _User._failed_login_count: not a field, in 1 object"), imported.stdout)
        XCTAssertEqual(try Mirror(copy).rows("SELECT count(*) FROM _User"), [["3"]])
    }

    /// The files hold Parse Server's own documents (`MongoTransform.js`): `_id`, `_p_<field>`
    /// as `Class$objectId`, `$date` timestamps, `_rperm`/`_wperm`/`_acl`, `_hashed_password`;
    /// `_SCHEMA.json` one document per class; the script one `mongoimport` per file.
    func testFilesHoldParseServersDocuments() throws {
        let directory = try temporaryFolder()
        let (mirror, folder, stdout) = try exported("parse-com-users", in: directory)
        let script = folder.appendingPathComponent("mongoimport.sh")
        XCTAssertTrue(stdout.contains("sh \(script.path)"), stdout)
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: script.path))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        let text = try String(contentsOf: script, encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: "\nmongoimport ").count - 1, files.count, text)
        for file in files { XCTAssertTrue(text.contains("--file '\(file)'"), file) }

        func documents(_ file: String) throws -> [[String: Any]] {
            try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8).split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
            }
        }
        let hashes = try Mirror(mirror).rows("SELECT objectId, _hashed_password FROM _User WHERE _hashed_password IS NOT NULL")
        XCTAssertFalse(hashes.isEmpty)
        let users = try documents("_User.json")
        for row in hashes {
            let user = users.first { $0["_id"] as? String == row[0] }
            XCTAssertEqual(user?["_hashed_password"] as? String, row[1])
            XCTAssertNotNil((user?["_created_at"] as? [String: Any])?["$date"] as? String)
            XCTAssertNil(user?["createdAt"])
        }
        let diaries = try documents("Diary.json")
        XCTAssertEqual(diaries.first?["_p_author"] as? String, "_User$UsAda18150")
        XCTAssertNil(diaries.first?["author"])
        let notes = try documents("Note.json")
        let withACL = try XCTUnwrap(notes.first { $0["_rperm"] != nil })
        XCTAssertNotNil(withACL["_wperm"] as? [String])
        XCTAssertNotNil(withACL["_acl"] as? [String: Any])
        XCTAssertNil(withACL["ACL"])
        let schemas = try documents("_SCHEMA.json")
        XCTAssertEqual(
            Set(schemas.compactMap { $0["_id"] as? String }),
            Set(files.filter { !$0.hasPrefix("_Join:") && $0 != "_SCHEMA.json" }.map { String($0.dropLast(5)) }))
        let role = try XCTUnwrap(schemas.first { $0["_id"] as? String == "_Role" })
        XCTAssertEqual(role["users"] as? String, "relation<_User>")
        let links = try documents("_Join:users:_Role.json")
        XCTAssertFalse(links.isEmpty)
        XCTAssertEqual(Set(links[0].keys), ["owningId", "relatedId"])
    }

    /// `mongoimport.sh` runs the tools as documented: stand-ins for `mongoimport` and `mongosh`
    /// on the PATH record what they are given (no MongoDB server exists here).
    func testScriptRunsTheTools() throws {
        let directory = try temporaryFolder()
        let (_, folder, _) = try exported("parse-com-users", in: directory)
        let bin = directory.appendingPathComponent("bin"), log = directory.appendingPathComponent("tools.log")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for (tool, body) in [
            ("mongoimport", #"printf '%s|' mongoimport "$@" >> "$TOOLS_LOG"; echo >> "$TOOLS_LOG""#),
            ("mongosh", #"printf '%s|' mongosh "$@" >> "$TOOLS_LOG"; echo >> "$TOOLS_LOG"; cat >> "$TOOLS_LOG""#),
        ] {
            let url = bin.appendingPathComponent(tool)
            try "#!/bin/sh\n\(body)\n".write(to: url, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [folder.appendingPathComponent("mongoimport.sh").path]
        process.environment = [
            "PATH": bin.path + ":/usr/bin:/bin", "MONGODB_URI": "mongodb://db.example:27017/parse",
            "PARSE_COLLECTION_PREFIX": "app_", "TOOLS_LOG": log.path,
        ]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "mongoimport|--uri|mongodb://db.example:27017/parse|--collection|app__SCHEMA|--file|_SCHEMA.json|--mode|upsert|")
        XCTAssertTrue(
            lines.contains(
                "mongoimport|--uri|mongodb://db.example:27017/parse|--collection|app__Join:users:_Role|--file|_Join:users:_Role.json|--mode|upsert|--upsertFields|owningId,relatedId|"
            ), "\(lines)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        XCTAssertEqual(lines.filter { $0.hasPrefix("mongoimport|") }.count, files.count)
        XCTAssertTrue(lines.contains("mongosh|mongodb://db.example:27017/parse|--quiet|"), "\(lines)")
        XCTAssertTrue(lines.contains("const prefix = process.env.PARSE_COLLECTION_PREFIX || '';"), "\(lines)")
        XCTAssertTrue(
            lines.contains(#"db.getCollection(prefix + "_Role").createIndex({"name":1}, {"unique":true,"background":true,"sparse":true});"#), "\(lines)")
        XCTAssertTrue(lines.contains(#"db.getCollection(prefix + "Diary").createIndex({"title":1}, {"name":"title_1","background":true});"#), "\(lines)")
    }

    /// What `mongoexport` writes reads as well: a JSON array (`--jsonArray`), canonical dates
    /// (`{"$date":{"$numberLong":…}}`), and links with the `_id` MongoDB gave them.
    func testMongoexportOutputImports() throws {
        let directory = try temporaryFolder()
        let (original, folder, _) = try exported("parse-app", in: directory)
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func rewrite(_ file: String, _ change: (inout [String: Any]) -> Void) throws {
            let url = folder.appendingPathComponent(file)
            var documents = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
            }
            for index in documents.indices { change(&documents[index]) }
            try JSONSerialization.data(withJSONObject: documents, options: [.prettyPrinted]).write(to: url)
        }
        try rewrite("Book.json") { document in
            for key in ["_created_at", "_updated_at"] {
                let iso = (document[key] as! [String: Any])["$date"] as! String
                let ms = Int64((parser.date(from: iso)!.timeIntervalSince1970 * 1000).rounded())
                document[key] = ["$date": ["$numberLong": String(ms)]]
            }
        }
        try rewrite("_Join:authors:Book.json") { $0["_id"] = ["$oid": String(repeating: "0", count: 24)] }
        let copy = directory.appendingPathComponent("mongoexport.sqlite")
        let reimport = try CommandRunner.run(["import", folder.path, "--to", copy.path, "--quiet"])
        XCTAssertEqual(reimport.status, 0, reimport.stderr)
        MirrorSnapshot.assertEqual(
            try MirrorSnapshot(copy, leavingOut: ["area"], droppingFileURLs: true),
            try MirrorSnapshot(original, leavingOut: ["area"], droppingFileURLs: true), "parse-app via mongoexport's forms")
    }

    /// A manifest cannot describe the layout, and standard output holds no collections.
    func testRefusedCombinations() throws {
        let directory = try temporaryFolder()
        let (mirror, _, _) = try exported("todo", in: directory)
        let manifest = try CommandRunner.run([
            "export", "--from", mirror.path, "--to", directory.appendingPathComponent("m").path, "--format", "mongo", "--emit-manifest",
        ])
        XCTAssertEqual(manifest.status, 2)
        XCTAssertTrue(manifest.stderr.contains("without dataset.yml"), manifest.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("m").path))
        let stdout = try CommandRunner.run(["export", "--from", mirror.path, "--to", "-", "--format", "mongo", "--classes", "TodoList"])
        XCTAssertEqual(stdout.status, 2)
    }
}
