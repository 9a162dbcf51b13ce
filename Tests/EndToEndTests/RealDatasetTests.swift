import Foundation
import XCTest

/// Excerpts of real public datasets (`Fixtures/real/<name>`, each with its PROVENANCE) taken through
/// the built command as a user would, with no edit: `init DIR > DIR/dataset.yml` (a Parse export is
/// imported as it is), then `import DIR --target`, then `scripts/real-datasets check`, which reads
/// the source files itself and compares the mirror with them under the dataset's ground truth
/// (`scripts/real-datasets-truth/<name>.json`): it must compare values and find no difference.
final class RealDatasetTests: XCTestCase {
    static let real = CommandRunner.fixtures.appendingPathComponent("real")
    static let checker = CommandRunner.packageRoot.appendingPathComponent("scripts/real-datasets")

    static func datasets() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: real.path).filter { name in
            FileManager.default.fileExists(atPath: real.appendingPathComponent("\(name)/PROVENANCE").path)
        }.sorted()
    }

    /// init (unless a Parse export), import into a new mirror, then the checker: its report, and whether every step succeeded with no difference.
    func takeThrough(_ name: String, in scratch: URL) throws -> (passed: Bool, report: String) {
        let folder = scratch.appendingPathComponent(name)
        try FileManager.default.copyItem(at: Self.real.appendingPathComponent(name), to: folder)
        let truth =
            try JSONSerialization.jsonObject(
                with: Data(
                    contentsOf: CommandRunner.packageRoot
                        .appendingPathComponent("scripts/real-datasets-truth/\(name).json"))) as? [String: Any]
        if truth?["kind"] as? String != "parse-export" {
            let initRun = try CommandRunner.run(["init", folder.path])
            guard initRun.status == 0 else { return (false, "init exit \(initRun.status): \(initRun.stderr.prefix(600))") }
            try initRun.stdout.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        }
        let mirror = scratch.appendingPathComponent("\(name).sqlite")
        let importRun = try CommandRunner.run(["import", folder.path, "--target", mirror.path, "--quiet"])
        guard importRun.status == 0 else { return (false, "import exit \(importRun.status): \(importRun.stderr.prefix(600))") }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", Self.checker.path, "check", name, folder.path, mirror.path]
        let out = Pipe()
        check.standardOutput = out
        check.standardError = out
        try check.run()
        let report = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        let summary = report.split(separator: "\n").last.map(String.init) ?? ""
        let compared =
            summary.hasPrefix("\(name): ") && summary.hasSuffix(" values compared, 0 differences")
            ? Int(summary.dropFirst(name.count + 2).prefix { $0.isNumber }) ?? 0 : 0
        return (check.terminationStatus == 0 && compared > 0, report)
    }

    func testEveryExcerptMatchesItsSourceAfterInitAndImport() throws {
        let names = try Self.datasets()
        XCTAssertGreaterThanOrEqual(names.count, 16, "Fixtures/real holds \(names)")
        let scratch = try temporaryFolder()
        for name in names {
            let (passed, report) = try takeThrough(name, in: scratch)
            XCTAssertTrue(passed, "\(name):\n\(report)")
        }
    }

    /// The checker itself finds a changed value, a missing object and an invented one.
    func testTheCheckerFindsWhatDiffers() throws {
        let scratch = try temporaryFolder()
        let (passed, report) = try takeThrough("parse-trips", in: scratch)
        XCTAssertTrue(passed, report)
        let mirror = scratch.appendingPathComponent("parse-trips.sqlite").path
        let sql = """
            UPDATE Trip SET TripRating = 3 WHERE objectId = 'wPsOWbrd7H';
            DELETE FROM Country WHERE objectId = 'dwTDNFsc3Z';
            INSERT INTO Country (objectId, Name) VALUES ('zzzzzzzzzz', 'Atlantis');
            """
        let edit = Process()
        edit.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        edit.arguments = ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()", mirror, sql]
        try edit.run()
        edit.waitUntilExit()
        XCTAssertEqual(edit.terminationStatus, 0)
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", Self.checker.path, "check", "parse-trips", scratch.appendingPathComponent("parse-trips").path, mirror]
        let out = Pipe()
        check.standardOutput = out
        try check.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        XCTAssertEqual(check.terminationStatus, 1)
        XCTAssertTrue(text.contains("Trip.json: objectId wPsOWbrd7H: Trip.TripRating: expected 5, mirror has 3"), text)
        XCTAssertTrue(text.contains("Country.json: objectId dwTDNFsc3Z: not in the mirror's Country"), text)
        XCTAssertTrue(text.contains("the mirror's Country has 1 objects the export does not have"), text)
        XCTAssertTrue(text.hasSuffix(" values compared, 3 differences\n"), text)
    }
}
