import Foundation
import XCTest

/// The round-trip guarantee: import → export → import into a new mirror gives the same
/// objects, ids, typed values, pointers and relations, for every fixture, every format, and
/// both kinds of source (a mirror, and a Parse Server: `serve` over a mirror).
final class ExportRoundTripTests: XCTestCase {
    static let fixtures = ["library", "todo", "recipes", "contacts", "org", "parse-export", "parse-app", "shop-dates", "spreadsheet-eu"]

    /// Exports `source` in `format` into a new folder and imports that folder into a new mirror.
    private func roundTrip(
        from source: String, format: String, extra: [String] = [], in directory: URL, name: String,
        environment: [String: String] = [:]
    ) throws -> URL {
        let folder = directory.appendingPathComponent("\(name)-\(format)")
        let export = try CommandRunner.run(
            ["export", "--from", source, "--to", folder.path, "--format", format, "--quiet"] + extra,
            environment: environment)
        XCTAssertEqual(export.status, 0, "\(name) \(format): \(export.stderr)")
        let copy = directory.appendingPathComponent("\(name)-\(format).sqlite")
        let reimport = try CommandRunner.run(["import", folder.path, "--to", copy.path, "--quiet"])
        XCTAssertEqual(reimport.status, 0, "\(name) \(format): \(reimport.stderr)")
        return copy
    }

    func testEveryFixtureAndFormatFromAMirror() throws {
        let directory = try temporaryFolder()
        for fixture in Self.fixtures {
            let original = directory.appendingPathComponent("\(fixture).sqlite")
            let imported = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent(fixture).path, "--to", original.path, "--quiet"])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            let expected = try MirrorSnapshot(original)
            let variants: [(format: String, extra: [String])] = [
                ("parse", []), ("json", ["--emit-manifest"]), ("ndjson", ["--emit-manifest"]), ("csv", ["--emit-manifest"]),
                ("csv", ["--emit-manifest", "--manifest", CommandRunner.fixtures.appendingPathComponent(fixture).path]),
            ]
            for (index, variant) in variants.enumerated() {
                let copy = try roundTrip(from: original.path, format: variant.format, extra: variant.extra, in: directory, name: "\(fixture)\(index)")
                MirrorSnapshot.assertEqual(try MirrorSnapshot(copy), expected, "\(fixture) via \(variant.format) \(variant.extra)")
            }
        }
    }

    /// From a Parse Server (custom objectIds on, so the served mirror holds the fixture's ids),
    /// in the Parse layout and as CSV: the copy equals the mirror behind the server.
    func testEveryFixtureFromAParseServer() throws {
        let directory = try temporaryFolder()
        for fixture in Self.fixtures {
            let server = try ServedMirror(path: directory.appendingPathComponent("\(fixture)-served.sqlite").path, allowCustomObjectId: true)
            let imported = try server.runImport(CommandRunner.fixtures.appendingPathComponent(fixture).path, ["--quiet"])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            let expected = try MirrorSnapshot(server.file)
            for (format, extra) in [("parse", [String]()), ("csv", ["--emit-manifest"])] {
                let copy = try roundTrip(from: server.url, format: format, extra: extra, in: directory, name: fixture, environment: ServedMirror.environment)
                MirrorSnapshot.assertEqual(try MirrorSnapshot(copy, fileURLsServedBy: server.url), expected, "\(fixture) from a Parse Server via \(format)")
            }
        }
    }

    /// Without custom objectIds the server assigns the ids; the export keeps those.
    func testServerAssignedIdsSurvive() throws {
        let server = try ServedMirror(in: self, allowCustomObjectId: false)
        let imported = try server.runImport(CommandRunner.fixtures.appendingPathComponent("org").path, ["--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let copy = try roundTrip(
            from: server.url, format: "parse", in: try temporaryFolder(), name: "org",
            environment: ServedMirror.environment)
        MirrorSnapshot.assertEqual(try MirrorSnapshot(copy), try MirrorSnapshot(server.file), "org with server-assigned ids")
    }
}
