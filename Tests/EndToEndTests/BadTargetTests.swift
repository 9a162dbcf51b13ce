import Foundation
import XCTest

/// Files under `Fixtures/bad-targets/` given as a mirror: refused with exit 3, left untouched.
final class BadTargetTests: XCTestCase {
    /// The bad targets as files in a fresh folder, with the fragment each error must carry.
    private func badTargets() throws -> [(file: URL, fragment: String)] {
        let directory = try temporaryFolder()
        let folder = CommandRunner.fixtures.appendingPathComponent("bad-targets")
        let notADatabase = directory.appendingPathComponent("not-a-database.db")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("not-a-database.db"), to: notADatabase)
        let brokenSchema = try CommandRunner.loadSQLFixture("bad-targets/broken-schema.sql", into: directory)
        return [(notADatabase, "file is not a database"), (brokenSchema, "_SCHEMA row for Book is not a valid /schemas JSON")]
    }

    func testImportAndValidateRefuseAndLeaveTheFile() throws {
        let todo = CommandRunner.fixtures.appendingPathComponent("todo").path
        for (file, fragment) in try badTargets() {
            let before = try Data(contentsOf: file)
            for arguments in [["import", todo, "--to", file.path], ["validate", todo, "--against", file.path]] {
                let result = try CommandRunner.run(arguments)
                XCTAssertEqual(result.status, 3, "\(arguments): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(file.path) && result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
                XCTAssertEqual(try Data(contentsOf: file), before, "\(arguments) changed \(file.lastPathComponent)")
            }
        }
    }

    func testPullRefusesAndLeavesTheFile() throws {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("todo").path, ["-q"]).status, 0)
        for (file, fragment) in try badTargets() {
            let before = try Data(contentsOf: file)
            let result = try CommandRunner.run(["pull", server.url, "--to", file.path], environment: ServedMirror.environment)
            XCTAssertEqual(result.status, 3, result.stderr)
            XCTAssertTrue(result.stderr.contains(file.path) && result.stderr.contains(fragment), result.stderr)
            XCTAssertEqual(try Data(contentsOf: file), before, "pull changed \(file.lastPathComponent)")
        }
    }

    func testServeRefusesAFileThatIsNotADatabase() throws {
        let (file, fragment) = try badTargets()[0]
        let before = try Data(contentsOf: file)
        let result = try CommandRunner.run(["serve", file.path, "--port", "0"], environment: ServedMirror.environment)
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains(fragment), result.stderr)
        XCTAssertEqual(try Data(contentsOf: file), before)
    }
}
