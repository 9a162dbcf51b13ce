import Foundation
import XCTest

/// Every folder under `Fixtures/bad-migrations/` is refused by every migrate command as its
/// `expected-error.txt` says, before the target is opened: a mirror is not created, an existing
/// one keeps its bytes.
final class BadMigrationTests: XCTestCase {
    func testEveryBadMigrationFolderIsRefusedAndTouchesNoTarget() throws {
        let root = CommandRunner.fixtures.appendingPathComponent("bad-migrations")
        let folders = try FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil).filter(\.hasDirectoryPath)
        XCTAssertGreaterThanOrEqual(folders.count, 40)
        let scratch = try temporaryFolder()
        let existing = scratch.appendingPathComponent("existing.sqlite")
        XCTAssertEqual(
            try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("todo").path, "--to", existing.path, "--quiet"]).status, 0)
        let before = try Data(contentsOf: existing)
        for folder in folders.sorted(by: { $0.path < $1.path }) {
            let expected = try BadInputTests.Expectation(folder.appendingPathComponent("expected-error.txt"))
            let fresh = scratch.appendingPathComponent("\(folder.lastPathComponent).sqlite")
            for (command, target) in [("plan", fresh), ("up", existing)] {
                let result = try CommandRunner.run(["migrate", command, "--dir", folder.path, "--target", target.path])
                XCTAssertEqual(result.status, expected.exitCode, "\(folder.lastPathComponent) \(command): \(result.stderr)")
                for fragment in expected.fragments {
                    XCTAssertTrue(result.stderr.contains(fragment), "\(folder.lastPathComponent) \(command): stderr lacks \"\(fragment)\":\n\(result.stderr)")
                }
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), "\(folder.lastPathComponent) created a mirror")
        }
        XCTAssertEqual(try Data(contentsOf: existing), before, "a bad migrations folder changed an existing mirror")
    }

    func testAMissingMigrationsFolderIsAUsageError() throws {
        let scratch = try temporaryFolder()
        let result = try CommandRunner.run([
            "migrate", "status", "--dir", scratch.appendingPathComponent("Nope").path, "--target", scratch.appendingPathComponent("a.sqlite").path,
        ])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("Nope"), result.stderr)
    }

    func testABadVersionOrAMissingMirrorIsRefusedWithoutCreatingIt() throws {
        let scratch = try temporaryFolder()
        let mirror = scratch.appendingPathComponent("app.sqlite")
        let migrations = CommandRunner.packageRoot.appendingPathComponent("Migrations").path
        let badTo = try CommandRunner.run(["migrate", "up", "--dir", migrations, "--target", mirror.path, "--to", "three"])
        XCTAssertEqual(badTo.status, 2)
        XCTAssertTrue(badTo.stderr.contains("three: not a migration version"), badTo.stderr)
        let badBaseline = try CommandRunner.run(["migrate", "baseline", "--dir", migrations, "--target", mirror.path, "--version", "1..2"])
        XCTAssertEqual(badBaseline.status, 2)
        let badTTL = try CommandRunner.run(["migrate", "up", "--dir", migrations, "--target", mirror.path, "--lock-ttl", "0"])
        XCTAssertEqual(badTTL.status, 2)
        XCTAssertTrue(badTTL.stderr.contains("--lock-ttl must be more than 0"), badTTL.stderr)
        let repair = try CommandRunner.run(["migrate", "repair", "--dir", migrations, "--target", mirror.path])
        XCTAssertEqual(repair.status, 3)
        XCTAssertTrue(repair.stderr.contains("no such mirror"), repair.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path))
    }
}
