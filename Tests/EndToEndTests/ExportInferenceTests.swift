import Foundation
import XCTest

/// Parse exports as Parse.com, Back4App and Parse Dashboard wrote them, with no `schema.json`:
/// the classes are inferred from the objects, exactly as `schema infer` prints them, and every
/// object and link arrives in a mirror and in a served mirror as the export has it; the same
/// from a `.zip` as macOS makes one; export → import gives the same mirror back.
final class ExportInferenceTests: XCTestCase {
    static let exports = ["parse-com-export", "back4app-export", "dashboard-export"]
    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    func fixture(_ name: String) -> URL { CommandRunner.fixtures.appendingPathComponent(name) }

    /// `schema infer` prints each export's classes in `/schemas` format, byte for byte as reviewed.
    func testSchemaInferPrintsTheReviewedSchema() throws {
        for name in Self.exports {
            let result = try CommandRunner.run(["schema", "infer", fixture(name).path])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            let expected = try String(contentsOf: Self.snapshots.appendingPathComponent("\(name).schema.json"), encoding: .utf8)
            XCTAssertEqual(result.stdout, expected, name)
        }
    }

    func testImportIntoAMirrorKeepsEveryObjectAndLink() throws {
        let scratch = try temporaryFolder()
        let expected = ["parse-com-export": (8, 5), "back4app-export": (6, 4), "dashboard-export": (4, 0)]
        for name in Self.exports {
            let target = scratch.appendingPathComponent("\(name).sqlite")
            let result = try CommandRunner.run(["import", fixture(name).path, "--to", target.path, "--json"])
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            XCTAssertEqual((json["skippedKeys"] as? [Any])?.count, 0, "\(name): \(result.stdout)")
            let notes = try XCTUnwrap(json["notes"] as? [String])
            XCTAssertTrue(notes.contains { $0.contains("classes created get all-public class-level permissions") }, "\(notes)")
            XCTAssertTrue(notes.contains { $0.hasPrefix("no schema.json: the classes were inferred from the objects") }, "\(notes)")
            let compared = try ExportSourceCheck.assertMirror(target, matches: fixture(name))
            XCTAssertEqual(compared.objects, expected[name]!.0, name)
            XCTAssertEqual(compared.links, expected[name]!.1, name)
        }
        // The inferred types are in `_SCHEMA`, with all-public class-level permissions.
        let mirror = try Mirror(scratch.appendingPathComponent("back4app-export.sqlite"))
        let store = try XCTUnwrap(try mirror.value("SELECT schema FROM _SCHEMA WHERE className = 'Store'"))
        for spec in [
            #""products":{"type":"Relation","targetClass":"Product"}"#, #""staff":{"type":"Relation","targetClass":"Employee"}"#,
            #""area":{"type":"Polygon"}"#, #""logo":{"type":"Bytes"}"#, #""manager":{"type":"Pointer","targetClass":"Employee"}"#,
            #""find":{"*":true}"#,
        ] {
            XCTAssertTrue(store.contains(spec), "\(spec) not in \(store)")
        }
        // A Dashboard export's `className` key is no column; its Relation placeholder is a declared Relation without links.
        let dashboard = try Mirror(scratch.appendingPathComponent("dashboard-export.sqlite"))
        XCTAssertEqual(try dashboard.rows("SELECT name FROM pragma_table_info('Player') WHERE name = 'className'"), [])
        XCTAssertTrue(
            try XCTUnwrap(try dashboard.value("SELECT schema FROM _SCHEMA WHERE className = 'Team'")).contains(
                #""players":{"type":"Relation","targetClass":"Player"}"#))
    }

    /// Through the REST API of a served mirror (custom objectIds on, with a maintenance key), the
    /// same objects, timestamps and links arrive. Parse.com's users have no password a Parse
    /// Server can take (one has `authData`): without `--users-without-passwords` nothing is written.
    func testImportIntoAServedMirrorKeepsEveryObjectAndLink() throws {
        var environment = ServedMirror.environment
        environment["PARSE_MAINTENANCE_KEY"] = "maintenance-key-for-tests"
        for name in Self.exports {
            let server = try ServedMirror(in: self, allowCustomObjectId: true, maintenanceKey: environment["PARSE_MAINTENANCE_KEY"])
            var arguments = ["--quiet"]
            if name == "parse-com-export" {
                let refused = try server.runImport(fixture(name).path, arguments, environment: environment)
                XCTAssertEqual(refused.status, 1, refused.stderr)
                XCTAssertTrue(refused.stderr.contains("2 _User objects have no password at all"), refused.stderr)
                XCTAssertTrue(refused.stderr.contains("nothing was written"), refused.stderr)
                XCTAssertEqual(server.injector.writes, 0)
                XCTAssertEqual(try Mirror(server.file).value("SELECT count(*) FROM _SCHEMA"), "0")
                arguments.append("--users-without-passwords")
            }
            let result = try server.runImport(fixture(name).path, arguments, environment: environment)
            XCTAssertEqual(result.status, 0, "\(name): \(result.stderr)")
            try ExportSourceCheck.assertMirror(server.file, matches: fixture(name), throughParseServer: true)
        }
    }

    /// A zip as macOS's "Compress" makes it: one top folder, `__MACOSX/` resource forks and a
    /// `.DS_Store`; read in place by infer, validate, plan and import.
    func testZipWithMacOSNoise() throws {
        let scratch = try temporaryFolder()
        let zip = scratch.appendingPathComponent("b4a-export.zip")
        try ZipBuilder.macOSArchive(of: fixture("back4app-export"), top: "back4app-export", to: zip)
        let inferred = try CommandRunner.run(["schema", "infer", zip.path])
        XCTAssertEqual(inferred.status, 0, inferred.stderr)
        XCTAssertEqual(inferred.stdout, try String(contentsOf: Self.snapshots.appendingPathComponent("back4app-export.schema.json"), encoding: .utf8))
        let validated = try CommandRunner.run(["validate", zip.path, "--quiet"])
        XCTAssertEqual(validated.status, 0, validated.stderr)
        XCTAssertTrue(validated.stdout.contains("valid: 6 records in 3 classes"), validated.stdout)
        let plan = try CommandRunner.run(["plan", zip.path])
        XCTAssertEqual(plan.status, 0, plan.stderr)
        XCTAssertTrue(plan.stdout.contains("relations Store.products, Store.staff"), plan.stdout)
        // The default mirror is named after the archive, beside it.
        let imported = try CommandRunner.run(["import", zip.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        try ExportSourceCheck.assertMirror(scratch.appendingPathComponent("b4a-export.sqlite"), matches: fixture("back4app-export"))
        let server = try ServedMirror(in: self, allowCustomObjectId: true)
        let served = try server.runImport(zip.path, ["--quiet"])
        XCTAssertEqual(served.status, 0, served.stderr)
        try ExportSourceCheck.assertMirror(server.file, matches: fixture("back4app-export"), timestamps: false, throughParseServer: true)
    }

    /// A file below the export's folder in the archive is named, not silently left out.
    func testZipNamesFilesItDoesNotRead() throws {
        let scratch = try temporaryFolder()
        let zip = scratch.appendingPathComponent("export.zip")
        let post = Data(#"[{"objectId": "pOne000001", "title": "One"}]"#.utf8)
        try ZipBuilder.write([("Post.json", post), ("old/Post.json", post)], to: zip)
        let result = try CommandRunner.run(["import", zip.path, "--to", scratch.appendingPathComponent("app.sqlite").path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // Import shows its notes once, in the summary.
        XCTAssertTrue(result.stdout.contains("note: export.zip: old/Post.json is not read: it is below the export's folder"), result.stdout)
    }

    /// export → import, with the exported schema.json and without it (inferred again), gives
    /// the same tables, row for row.
    func testRoundTripGivesTheSameMirror() throws {
        let scratch = try temporaryFolder()
        for name in Self.exports {
            let first = scratch.appendingPathComponent("\(name)-1.sqlite")
            XCTAssertEqual(try CommandRunner.run(["import", fixture(name).path, "--to", first.path, "--quiet"]).status, 0)
            let out = scratch.appendingPathComponent("\(name)-out")
            let exported = try CommandRunner.run(["export", "--from", first.path, "--to", out.path, "--format", "parse", "--quiet"])
            XCTAssertEqual(exported.status, 0, exported.stderr)
            let second = scratch.appendingPathComponent("\(name)-2.sqlite")
            let again = try CommandRunner.run(["import", out.path, "--to", second.path, "--quiet"])
            XCTAssertEqual(again.status, 0, again.stderr)
            try FileManager.default.removeItem(at: out.appendingPathComponent("schema.json"))
            let third = scratch.appendingPathComponent("\(name)-3.sqlite")
            let inferred = try CommandRunner.run(["import", out.path, "--to", third.path, "--quiet"])
            XCTAssertEqual(inferred.status, 0, inferred.stderr)
            let original = try Self.tables(first)
            XCTAssertFalse(original.isEmpty)
            XCTAssertEqual(try Self.tables(second), original, name)
            // The objects carry Relation placeholders, so even a relation without links
            // (Team.players) is inferred again with its class.
            XCTAssertEqual(try Self.tables(third), original, name)
            try ExportSourceCheck.assertMirror(third, matches: fixture(name))
        }
    }

    /// Every class and join table of a mirror, rows sorted, `_SCHEMA` and ParsePorter's own tables left out.
    static func tables(_ url: URL) throws -> [String: [[String?]]] {
        let mirror = try Mirror(url)
        var tables: [String: [[String?]]] = [:]
        for row in try mirror.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('_SCHEMA') AND name NOT LIKE '_Porter%' AND name NOT LIKE 'sqlite_%'")
        {
            let name = row[0]!
            tables[name] = try mirror.rows("SELECT * FROM \"\(name)\" ORDER BY 1, 2")
        }
        return tables
    }

    /// Keys the schema does not declare: a warning with the class, key and count (not a line per
    /// object) in the summary and `--json`; with `--strict`, faults, and nothing is written.
    func testUndeclaredKeysAreCountedOrFaultsWhenStrict() throws {
        let copy = try CommandRunner.copyFixture("back4app-export", to: try temporaryFolder())
        // A schema.json that leaves out Product.stock and Product.available.
        let inferred = try CommandRunner.run(["schema", "infer", copy.path])
        let schema = inferred.stdout.replacingOccurrences(of: "\"stock\": {\"type\": \"Number\"},", with: "")
            .replacingOccurrences(of: "\"available\": {\"type\": \"Boolean\"},", with: "")
        XCTAssertNotEqual(schema, inferred.stdout)
        try schema.write(to: copy.appendingPathComponent("schema.json"), atomically: true, encoding: .utf8)
        let target = copy.appendingPathComponent("app.sqlite")
        let result = try CommandRunner.run(["import", copy.path, "--to", target.path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let skipped = try XCTUnwrap(json["skippedKeys"] as? [[String: Any]])
        XCTAssertEqual(
            skipped.map { "\($0["className"]!).\($0["key"]!) \($0["objects"]!) \($0["file"]!):\($0["firstLine"]!)" },
            ["Product.stock 2 Product.json:1", "Product.available 2 Product.json:2"])
        let table = try CommandRunner.run(["import", copy.path, "--to", target.path])
        XCTAssertTrue(table.stdout.contains("skipped key Product.stock: not a field, in 2 objects (first Product.json:1)"), table.stdout)
        XCTAssertEqual(try Mirror(target).rows("SELECT name FROM pragma_table_info('Product') WHERE name IN ('stock', 'available')"), [])

        let strictTarget = copy.appendingPathComponent("strict.sqlite")
        let strict = try CommandRunner.run(["import", copy.path, "--to", strictTarget.path, "--strict", "--quiet"])
        XCTAssertEqual(strict.status, 1, strict.stderr)
        XCTAssertTrue(strict.stderr.contains(#"Product.json:1: column "stock": unknown column (Product is strict)"#), strict.stderr)
        XCTAssertTrue(strict.stderr.contains(#"Product.json:2: column "available": unknown column (Product is strict)"#), strict.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: strictTarget.path))
    }

    /// Values that disagree: `schema infer` still prints a schema to edit (the type first seen)
    /// and names both objects of each conflict; exit 1.
    func testSchemaInferWithDisagreeingValues() throws {
        let result = try CommandRunner.run(["schema", "infer", fixture("bad/infer-type-conflict").path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains(#""score": {"type": "Number"}"#), result.stdout)
        XCTAssertTrue(result.stdout.contains(#""publishedAt": {"type": "Date"}"#), result.stdout)
        XCTAssertTrue(
            result.stderr.contains(#"Post.json:4 (objectId "pThree0003"): Post.score is a String here but a Number at Post.json:2 (objectId "pOne000001")"#),
            result.stderr)
    }
}
