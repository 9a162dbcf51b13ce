import Foundation
import XCTest

/// Every dataset under `Fixtures/bad/` fails as its `expected-error.txt` says, from both
/// `validate` and `import`, and never changes the target.
final class BadInputTests: XCTestCase {
    struct Expectation {
        let exitCode: Int32
        let fragments: [String]
        /// Texts that must not appear in stderr (`lacks: TEXT`): the cascade a fault must not cause.
        let absent: [String]
        /// The file in the folder the commands are given (`path: export.zip`), else the folder;
        /// `path: -` gives `-` (stdin).
        let path: String?
        /// Arguments after the path (`args: --class Order --key sku`).
        let arguments: [String]
        /// Whether `validate` takes the dataset too (not with `commands: import`).
        let validates: Bool

        init(_ url: URL) throws {
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            path = lines.first { $0.hasPrefix("path: ") }.map { String($0.dropFirst("path: ".count)) }
            arguments = lines.first { $0.hasPrefix("args: ") }.map { $0.dropFirst("args: ".count).split(separator: " ").map(String.init) } ?? []
            validates = !lines.contains("commands: import")
            exitCode = Int32(lines.first { $0.hasPrefix("exit:") }!.dropFirst(5).trimmingCharacters(in: .whitespaces))!
            fragments = lines.filter { $0.hasPrefix("contains: ") }.map { String($0.dropFirst("contains: ".count)) }
            absent = lines.filter { $0.hasPrefix("lacks: ") }.map { String($0.dropFirst("lacks: ".count)) }
        }

        /// What the commands are given for the dataset in `folder`.
        func given(_ folder: URL) -> String {
            path == "-" ? "-" : path.map { folder.appendingPathComponent($0).path } ?? folder.path
        }
    }

    func badDatasets() throws -> [URL] {
        let folder = CommandRunner.fixtures.appendingPathComponent("bad")
        return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.hasDirectoryPath }.sorted { $0.path < $1.path }
    }

    func testThereAreEnoughBadDatasets() throws {
        XCTAssertGreaterThanOrEqual(try badDatasets().count, 25)
    }

    func testValidateReportsEachFault() throws {
        for dataset in try badDatasets() {
            let expected = try Expectation(dataset.appendingPathComponent("expected-error.txt"))
            guard expected.validates else { continue }
            let result = try CommandRunner.run(["validate", expected.given(dataset), "--quiet"] + expected.arguments)
            XCTAssertEqual(result.status, expected.exitCode, "\(dataset.lastPathComponent): \(result.stderr)")
            for fragment in expected.fragments {
                XCTAssertTrue(result.stderr.contains(fragment), "\(dataset.lastPathComponent): stderr lacks \"\(fragment)\":\n\(result.stderr)")
            }
            for fragment in expected.absent {
                XCTAssertFalse(result.stderr.contains(fragment), "\(dataset.lastPathComponent): stderr has \"\(fragment)\":\n\(result.stderr)")
            }
        }
    }

    /// Importing a bad dataset into a new target creates nothing; into an existing mirror
    /// leaves its bytes as they were.
    func testImportWritesNothing() throws {
        let scratch = try temporaryFolder()
        let existing = scratch.appendingPathComponent("existing.sqlite")
        let seeded = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("todo").path, "--to", existing.path, "--quiet"])
        XCTAssertEqual(seeded.status, 0, seeded.stderr)
        let before = try Data(contentsOf: existing)
        for dataset in try badDatasets() {
            let expected = try Expectation(dataset.appendingPathComponent("expected-error.txt"))
            let copy = try CommandRunner.copyFixture("bad/\(dataset.lastPathComponent)", to: scratch)
            let fresh = scratch.appendingPathComponent("\(dataset.lastPathComponent).sqlite")
            let given = expected.given(copy)
            let result = try CommandRunner.run(["import", given, "--to", fresh.path, "--quiet"] + expected.arguments)
            XCTAssertEqual(result.status, expected.exitCode, "\(dataset.lastPathComponent): \(result.stderr)")
            for fragment in expected.fragments {
                XCTAssertTrue(result.stderr.contains(fragment), "\(dataset.lastPathComponent): stderr lacks \"\(fragment)\"")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), "\(dataset.lastPathComponent) created \(fresh.lastPathComponent)")
            let hidden = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasPrefix(".\(fresh.lastPathComponent)") }
            XCTAssertEqual(hidden, [], "\(dataset.lastPathComponent) left a hidden file")
            let intoExisting = try CommandRunner.run(["import", given, "--to", existing.path, "--quiet"] + expected.arguments)
            XCTAssertEqual(intoExisting.status, expected.exitCode, dataset.lastPathComponent)
            XCTAssertEqual(try Data(contentsOf: existing), before, "\(dataset.lastPathComponent) changed an existing mirror")
            XCTAssertFalse(FileManager.default.fileExists(atPath: copy.appendingPathComponent("rejects").path))
        }
    }

    /// Importing a bad dataset into a Parse Server sends no write at all: the server holds
    /// exactly what it held before.
    func testImportIntoAServerSendsNothing() throws {
        let scratch = try temporaryFolder()
        let server = try ServedMirror(in: self)
        let served = server.file
        let seeded = try server.runImport(CommandRunner.fixtures.appendingPathComponent("todo").path, ["--quiet"])
        XCTAssertEqual(seeded.status, 0, seeded.stderr)
        let writes = server.injector.writes
        let before = try MirrorContent(served, keys: ["TodoListItem": ["title"]])
        for dataset in try badDatasets() {
            let expected = try Expectation(dataset.appendingPathComponent("expected-error.txt"))
            let copy = try CommandRunner.copyFixture("bad/\(dataset.lastPathComponent)", to: scratch)
            let result = try server.runImport(expected.given(copy), ["--quiet"] + expected.arguments)
            XCTAssertEqual(result.status, expected.exitCode, "\(dataset.lastPathComponent): \(result.stderr)")
            for fragment in expected.fragments {
                XCTAssertTrue(result.stderr.contains(fragment), "\(dataset.lastPathComponent): stderr lacks \"\(fragment)\"")
            }
            XCTAssertEqual(server.injector.writes, writes, "\(dataset.lastPathComponent) sent a write")
        }
        XCTAssertEqual(try MirrorContent(served, keys: ["TodoListItem": ["title"]]), before)
    }
}
