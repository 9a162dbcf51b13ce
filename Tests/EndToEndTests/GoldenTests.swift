import Foundation
import XCTest

/// The texts people and CI read, compared with golden files (see ``Golden``): every command's
/// `--help`, found by walking the command tree the parser dumps, and the machine-readable
/// reports of import, validate, plan and `schema check`.
final class GoldenTests: XCTestCase {
    /// Help is wrapped at the width the parser reads from `COLUMNS`.
    private static let environment = ["COLUMNS": "80"]

    /// One command of the tree: its path below the root, abstract and discussion.
    private struct Command {
        let path: [String]
        let abstract: String
        let discussion: String

        /// `parse-porter`, `parse-porter-migrate-up`, …
        var goldenName: String { (["parse-porter"] + path).joined(separator: "-") }
    }

    /// Every command of `parse-porter --experimental-dump-help` but swift-argument-parser's own `help`.
    private func commands() throws -> [Command] {
        let dump = try CommandRunner.run(["--experimental-dump-help"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let root = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])?["command"] as? [String: Any])
        var found: [Command] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            found.append(Command(path: path, abstract: command["abstract"] as? String ?? "", discussion: command["discussion"] as? String ?? ""))
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, !(path.isEmpty && name == "help") else { continue }
                walk(sub, path + [name])
            }
        }
        walk(root, [])
        return found
    }

    func testEveryHelpText() throws {
        let commands = try commands()
        XCTAssertGreaterThanOrEqual(commands.count, 20, "the walk found the subcommands: \(commands.map(\.goldenName))")
        for command in commands {
            let help = try CommandRunner.run(command.path + ["--help"], environment: Self.environment)
            XCTAssertEqual(help.status, 0, help.stderr)
            XCTAssertEqual(help.stderr, "")
            try Golden.assert(help.stdout, matches: "help/\(command.goldenName).txt")
        }
        // A command removed or renamed leaves no golden file behind.
        let recorded = try FileManager.default.contentsOfDirectory(atPath: Golden.folder.appendingPathComponent("help").path)
        XCTAssertEqual(Set(recorded).subtracting(commands.map { "\($0.goldenName).txt" }).sorted(), [], "golden files of commands that no longer exist")
    }

    /// Every command says what it does and how: an abstract and a discussion.
    func testEveryCommandHasAnAbstractAndADiscussion() throws {
        for command in try commands() {
            XCTAssertFalse(command.abstract.isEmpty, "\(command.goldenName) has no abstract")
            XCTAssertFalse(command.discussion.isEmpty, "\(command.goldenName) has no discussion")
        }
    }

    /// No example line in any help text is wrapped by the parser at 80 columns: each fits.
    func testExampleLinesFitEightyColumns() throws {
        for command in try commands() {
            for line in command.discussion.split(separator: "\n") where line.hasPrefix("  ") {
                XCTAssertLessThanOrEqual(line.count, 80, "\(command.goldenName): \(line)")
            }
        }
    }

    /// A bad dataset (a pointer to a Genre that does not exist) as import `--json`, validate
    /// `--format json` and plan `--format json` report it.
    func testJSONReportsOfABadDataset() throws {
        let directory = try temporaryFolder()
        let dataset = try CommandRunner.copyFixture("bad/dangling-pointer", to: directory)
        let mirror = directory.appendingPathComponent("target.sqlite")
        let folders = [(directory.path, "<tmp>"), (directory.resolvingSymlinksInPath().path, "<tmp>")]

        let imported = try CommandRunner.run(["import", dataset.path, "--target", mirror.path, "--json"])
        XCTAssertEqual(imported.status, 1, imported.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path))
        try Golden.assert(Golden.normalized(imported.stdout, folders: folders), matches: "reports/import-dangling-pointer.json")

        let validated = try CommandRunner.run(["validate", dataset.path, "--format", "json"])
        XCTAssertEqual(validated.status, 1, validated.stderr)
        try Golden.assert(Golden.normalized(validated.stdout, folders: folders), matches: "reports/validate-dangling-pointer.json")

        let planned = try CommandRunner.run(["plan", dataset.path, "--format", "json"])
        XCTAssertEqual(planned.status, 0, planned.stderr)
        try Golden.assert(Golden.normalized(planned.stdout, folders: folders), matches: "reports/plan-dangling-pointer.json")
    }

    /// `schema check --format junit`: a mirror that differs from the schema file, and a bad schema file.
    func testSchemaCheckJUnitReports() throws {
        let directory = try temporaryFolder()
        let mirror = directory.appendingPathComponent("library.sqlite")
        XCTAssertEqual(
            try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--target", mirror.path, "-q"]).status, 0)
        let folders = [(directory.path, "<tmp>"), (CommandRunner.fixtures.path, "<Fixtures>")]

        let differing = try CommandRunner.run([
            "schema", "check", "--target", mirror.path,
            CommandRunner.fixtures.appendingPathComponent("parse-app/schema.json").path, "--format", "junit",
        ])
        XCTAssertEqual(differing.status, 1, differing.stderr)
        try Golden.assert(Golden.normalized(differing.stdout, folders: folders), matches: "reports/schema-check-differs.xml")

        let bad = try CommandRunner.run([
            "schema", "check", "--target", mirror.path,
            CommandRunner.fixtures.appendingPathComponent("bad-schemas/unknown-field-type.json").path, "--format", "junit",
        ])
        XCTAssertEqual(bad.status, 2, bad.stderr)
        try Golden.assert(Golden.normalized(bad.stdout, folders: folders), matches: "reports/schema-check-bad-file.xml")
    }
}
