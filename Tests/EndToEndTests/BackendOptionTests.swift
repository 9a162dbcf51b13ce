import Foundation
import XCTest

/// `--target` names the backend of every command; the old spellings (`import --to`, `export
/// --from`, `validate --against`, `pull URL`) still reach the same backend, hidden from help.
final class BackendOptionTests: XCTestCase {
    private let library = CommandRunner.fixtures.appendingPathComponent("library").path
    private static let titles = "SELECT group_concat(title, '|') FROM (SELECT title FROM Book ORDER BY objectId)"

    func testImportTargetAndTo() throws {
        let directory = try temporaryFolder()
        let viaTarget = directory.appendingPathComponent("target.sqlite"), viaTo = directory.appendingPathComponent("to.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", library, "--target", viaTarget.path, "--quiet"]).status, 0)
        XCTAssertEqual(try CommandRunner.run(["import", library, "--to", viaTo.path, "--quiet"]).status, 0)
        let titles = try XCTUnwrap(try Mirror(viaTarget).value("SELECT group_concat(title, '|') FROM (SELECT title FROM Book ORDER BY title)"))
        XCTAssertTrue(titles.contains("Dune"), titles)
        XCTAssertEqual(try Mirror(viaTo).value("SELECT group_concat(title, '|') FROM (SELECT title FROM Book ORDER BY title)"), titles)

        let server = try ServedMirror(in: self)
        let served = try CommandRunner.run(["import", library, "--target", server.url, "--quiet"], environment: ServedMirror.environment)
        XCTAssertEqual(served.status, 0, served.stderr)
        XCTAssertEqual(try Mirror(server.file).value("SELECT group_concat(title, '|') FROM (SELECT title FROM Book ORDER BY title)"), titles)

        let both = try CommandRunner.run(["import", library, "--target", viaTarget.path, "--to", viaTo.path])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("--target and --to name the same thing"), both.stderr)
    }

    func testExportTargetAndFrom() throws {
        let directory = try temporaryFolder()
        let mirror = directory.appendingPathComponent("library.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", library, "--target", mirror.path, "--quiet"]).status, 0)
        let viaTarget = directory.appendingPathComponent("out-target"), viaFrom = directory.appendingPathComponent("out-from")
        let exported = try CommandRunner.run(["export", "--target", mirror.path, "--to", viaTarget.path, "--quiet"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual(try CommandRunner.run(["export", "--from", mirror.path, "--to", viaFrom.path, "--quiet"]).status, 0)
        let books = try Data(contentsOf: viaTarget.appendingPathComponent("Book.json"))
        let results = try XCTUnwrap((try JSONSerialization.jsonObject(with: books) as? [String: Any])?["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, Int(try XCTUnwrap(try Mirror(mirror).value("SELECT count(*) FROM Book"))))
        XCTAssertEqual(try Data(contentsOf: viaFrom.appendingPathComponent("Book.json")), books)
    }

    func testPullTargetAndURLArgument() throws {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(library, ["--quiet"]).status, 0)
        let directory = try temporaryFolder()
        let viaTarget = directory.appendingPathComponent("target.sqlite"), viaArgument = directory.appendingPathComponent("argument.sqlite")
        let pulled = try CommandRunner.run(["pull", "--target", server.url, "--to", viaTarget.path, "--quiet"], environment: ServedMirror.environment)
        XCTAssertEqual(pulled.status, 0, pulled.stderr)
        XCTAssertEqual(try CommandRunner.run(["pull", server.url, "--to", viaArgument.path, "--quiet"], environment: ServedMirror.environment).status, 0)
        let served = try Mirror(server.file).value(Self.titles)
        XCTAssertNotNil(served)
        XCTAssertEqual(try Mirror(viaTarget).value(Self.titles), served)
        XCTAssertEqual(try Mirror(viaArgument).value(Self.titles), served)
    }

    /// Against a mirror where `Book.publishingYear` is a Number, a dataset declaring it a String
    /// conflicts: both spellings read that mirror's schema; without a target the dataset is valid.
    func testValidateTargetAndAgainst() throws {
        let directory = try temporaryFolder()
        let mirror = directory.appendingPathComponent("library.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", library, "--target", mirror.path, "--quiet"]).status, 0)
        let dataset = try CommandRunner.copyFixture("library", to: directory)
        let manifest = dataset.appendingPathComponent("dataset.yml")
        try String(contentsOf: manifest, encoding: .utf8).replacingOccurrences(of: "publishingYear: {type: Number", with: "publishingYear: {type: String")
            .write(to: manifest, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CommandRunner.run(["validate", dataset.path, "--quiet"]).status, 0)
        for option in ["--target", "--against"] {
            let result = try CommandRunner.run(["validate", dataset.path, option, mirror.path, "--quiet"])
            XCTAssertEqual(result.status, 1, "\(option): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("Book.publishingYear is Number there"), "\(option): \(result.stderr)")
        }
    }

    /// Help shows `--target` and none of the old spellings of the backend.
    func testHelpNamesOnlyTarget() throws {
        for (command, old) in [("import", "--to "), ("export", "--from"), ("validate", "--against"), ("pull", "<url>")] {
            let help = try CommandRunner.run([command, "--help"], environment: ["COLUMNS": "200"]).stdout
            XCTAssertTrue(help.contains("--target"), "\(command): \(help)")
            XCTAssertFalse(help.contains(old), "\(command) shows \(old): \(help)")
        }
    }
}
