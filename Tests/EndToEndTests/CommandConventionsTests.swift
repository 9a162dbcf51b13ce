import Foundation
import PorterPipeline
import PorterTestSupport
import XCTest

/// The habits the command shares with other tools: `--version`, and Parse Server's own
/// environment variables.
final class CommandConventionsTests: XCTestCase {
    /// `--version` names the release and the commit the binary was built from, a commit of this
    /// repository. What the work tree holds now may differ from what it held at build time
    /// (an edit or a commit since), so the commit is checked to exist, not to be HEAD; the
    /// generator's cases are the next test's.
    func testVersionNamesTheReleaseAndTheCommit() throws {
        let result = try CommandRunner.run(["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stderr, "")
        let root = CommandRunner.packageRoot
        guard try git(in: root, "rev-parse", "--show-toplevel") != nil else {
            return XCTAssertEqual(result.stdout, "\(PorterRelease.version) (commit unknown: not built from a git checkout)\n")
        }
        let text = result.stdout
        let pattern = try NSRegularExpression(pattern: #"^(\S+) \(commit ([0-9a-f]{12})(, with uncommitted changes)?\)\n$"#)
        let match = try XCTUnwrap(pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), text)
        XCTAssertEqual(Range(match.range(at: 1), in: text).map { String(text[$0]) }, PorterRelease.version)
        let commit = try XCTUnwrap(Range(match.range(at: 2), in: text).map { String(text[$0]) })
        XCTAssertNotNil(try git(in: root, "cat-file", "-e", commit + "^{commit}"), "\(commit) is a commit of this repository")
        XCTAssertTrue(try CommandRunner.run(["--help"]).stdout.contains("--version"), "the root help names --version")
    }

    /// scripts/build-commit writes what `--version` names: the HEAD of the package's work tree and
    /// whether the tree has changes; no commit for a folder inside a work tree but not its top,
    /// nor for one outside any (a source archive).
    func testBuildCommitNamesTheHeadOfTheWorkTree() throws {
        let directory = try temporaryFolder()
        let repository = directory.appendingPathComponent("app"), file = repository.appendingPathComponent("file.txt")
        let inside = repository.appendingPathComponent("Sources"), archive = directory.appendingPathComponent("archive")
        for folder in [inside, archive] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        XCTAssertNotNil(try git(in: repository, "init", "-q"))
        try "one\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertNotNil(try git(in: repository, "add", "file.txt"))
        XCTAssertNotNil(try git(in: repository, "-c", "user.name=Test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "one"))
        let head = try XCTUnwrap(try git(in: repository, "rev-parse", "HEAD"))
        XCTAssertEqual(try buildCommit(of: repository), ["\"\(head)\"", "false"])
        try "two\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try buildCommit(of: repository), ["\"\(head)\"", "true"])
        XCTAssertEqual(try buildCommit(of: inside), ["nil", "false"])
        XCTAssertEqual(try buildCommit(of: archive), ["nil", "false"])
    }

    /// The values scripts/build-commit gives `builtFromCommit` and `builtWithUncommittedChanges`
    /// for a package in `folder`.
    private func buildCommit(of folder: URL) throws -> [String] {
        let output = try temporaryFolder().appendingPathComponent("BuildCommit.swift")
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/bin/sh")
        script.arguments = [CommandRunner.packageRoot.appendingPathComponent("scripts/build-commit").path, folder.path, output.path]
        try script.run()
        script.waitUntilExit()
        XCTAssertEqual(script.terminationStatus, 0)
        return try String(contentsOf: output, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("let ") }
            .map { $0.split(separator: "=", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) }
    }

    /// What `git ARGUMENTS…` prints in `folder`, trimmed; nil when git fails there.
    private func git(in folder: URL, _ arguments: String...) throws -> String? {
        let (status, data) = try standardOutput(of: "git", ["-C", folder.path] + arguments)
        return status == 0 ? String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    /// Parse Server's own variables and none of ours: the empty values hide any of ours this
    /// process has (empty counts as not set).
    private func parseServerEnvironment(_ server: ServedMirror, masterKey: String = ServedMirror.masterKey) -> [String: String] {
        [
            "PARSE_SERVER_URL": server.url, "PARSE_SERVER_APPLICATION_ID": ServedMirror.applicationId, "PARSE_SERVER_MASTER_KEY": masterKey,
            "PARSE_APPLICATION_ID": "", "PARSE_MASTER_KEY": "", "PARSE_REST_API_KEY": "", "PARSE_MAINTENANCE_KEY": "",
        ]
    }

    /// `parse-porter ARGUMENTS…` in `environment`; no key may show in its output.
    private func run(_ arguments: [String], _ environment: [String: String], line: UInt = #line) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(arguments, environment: environment)
        for key in [ServedMirror.masterKey, "wrong-master-key"] {
            XCTAssertFalse(result.stdout.contains(key) || result.stderr.contains(key), "a key was printed", line: line)
        }
        return result
    }

    /// With `PARSE_SERVER_URL`, `PARSE_SERVER_APPLICATION_ID` and `PARSE_SERVER_MASTER_KEY` set,
    /// pull, export, schema and migrate reach the server without a URL argument or key option.
    func testParseServerVariablesNameTheServerAndItsKeys() throws {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["--quiet"]).status, 0)
        let served = try Mirror(server.file)
        let books = try XCTUnwrap(try served.value("SELECT count(*) FROM Book"))
        let directory = try temporaryFolder()
        let environment = parseServerEnvironment(server)

        let copy = directory.appendingPathComponent("pulled.sqlite")
        let pull = try run(["pull", "--to", copy.path, "--quiet"], environment)
        XCTAssertEqual(pull.status, 0, pull.stderr)
        XCTAssertEqual(try Mirror(copy).value("SELECT count(*) FROM Book"), books)
        XCTAssertEqual(
            try Mirror(copy).value("SELECT group_concat(title, '|') FROM (SELECT title FROM Book ORDER BY objectId)"),
            try served.value("SELECT group_concat(title, '|') FROM (SELECT title FROM Book ORDER BY objectId)"))

        let out = directory.appendingPathComponent("out")
        let export = try run(["export", "--to", out.path, "--classes", "Book", "--quiet"], environment)
        XCTAssertEqual(export.status, 0, export.stderr)
        let exported = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("Book.json"))) as? [String: Any])
        XCTAssertEqual((exported["results"] as? [Any])?.count, Int(books))

        let schema = try run(["schema", "pull"], environment)
        XCTAssertEqual(schema.status, 0, schema.stderr)
        XCTAssertTrue(schema.stdout.contains(#""className": "Book""#), schema.stdout)
        XCTAssertEqual(try run(["schema", "pull", "--target", server.url], environment).stdout, schema.stdout)

        let migrations = directory.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: migrations, withIntermediateDirectories: true)
        try "operations:\n  - addField: {className: Book, name: shelf, type: String}\n"
            .write(to: migrations.appendingPathComponent("V1__add_shelf.yml"), atomically: true, encoding: .utf8)
        let up = try run(["migrate", "up", "--dir", migrations.path], environment)
        XCTAssertEqual(up.status, 0, up.stderr)
        XCTAssertTrue(up.stdout.contains("applied 1 migration to \(server.url)"), up.stdout)
        XCTAssertEqual(try served.value("SELECT count(*) FROM pragma_table_info('Book') WHERE name = 'shelf'"), "1")
        XCTAssertEqual(try served.value("SELECT count(*) FROM PorterMigrations WHERE version = '1' AND success = 1"), "1")
        let status = try run(["migrate", "status", "--dir", migrations.path], environment)
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("V1 ") && status.stdout.contains("applied"), status.stdout)
    }

    /// The option wins over our variable, which wins over Parse Server's; a command given its
    /// target still uses it, and import's default target stays the mirror beside the dataset.
    func testOptionsThenOurVariablesThenParseServersWin() throws {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["--quiet"]).status, 0)
        let directory = try temporaryFolder()
        var environment = parseServerEnvironment(server)

        environment["PARSE_MASTER_KEY"] = "wrong-master-key"
        let ours = try run(["schema", "pull"], environment)
        XCTAssertEqual(ours.status, 3, "PARSE_MASTER_KEY comes before PARSE_SERVER_MASTER_KEY: \(ours.stderr)")
        let option = try run(["schema", "pull", "--master-key", ServedMirror.masterKey], environment)
        XCTAssertEqual(option.status, 0, "--master-key comes before both: \(option.stderr)")
        XCTAssertTrue(option.stdout.contains(#""className": "Book""#), option.stdout)

        environment = parseServerEnvironment(server, masterKey: "wrong-master-key")
        environment["PARSE_MASTER_KEY"] = ServedMirror.masterKey
        XCTAssertEqual(try run(["schema", "pull"], environment).status, 0, "PARSE_MASTER_KEY is used when both are set")

        let mirror = directory.appendingPathComponent("given.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("todo").path, "--to", mirror.path, "--quiet"]).status, 0)
        let given = try run(["schema", "pull", "--target", mirror.path], environment)
        XCTAssertEqual(given.status, 0, given.stderr)
        XCTAssertFalse(given.stdout.contains(#""className": "Book""#), "--target comes before PARSE_SERVER_URL: \(given.stdout)")

        let dataset = try CommandRunner.copyFixture("todo", to: directory)
        let imported = try run(["import", dataset.path, "--quiet"], environment)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: dataset.appendingPathComponent("todo.sqlite").path), "import's default is the mirror beside the dataset")
        XCTAssertEqual(
            try Mirror(server.file).value("SELECT count(*) FROM sqlite_master WHERE name = 'TodoListItem'"), "0",
            "import wrote nothing to the server")
    }

    /// `PARSE_SERVER_MAINTENANCE_KEY` is the maintenance key when ours is not set: the import keeps
    /// the export's timestamps, and the key is never printed.
    func testParseServerMaintenanceKeyKeepsTimestamps() throws {
        let maintenanceKey = "maintenance-key-9d2e-never-print-me"
        let server = try ServedMirror(in: self, allowCustomObjectId: true, maintenanceKey: maintenanceKey)
        var environment = ServedMirror.environment
        environment["PARSE_MAINTENANCE_KEY"] = ""
        environment["PARSE_SERVER_MAINTENANCE_KEY"] = maintenanceKey
        let export = CommandRunner.fixtures.appendingPathComponent("parse-com-users").path
        let result = try run(["import", export, "--to", server.url, "--users-without-passwords", "--quiet"], environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains(maintenanceKey))
        XCTAssertEqual(try Mirror(server.file).rows("SELECT createdAt, updatedAt FROM Diary"), [["2014-04-01T09:00:00.000Z", "2014-04-02T10:30:00.500Z"]])
    }

    /// Without a target and without `PARSE_SERVER_URL`, each command is a usage error naming both.
    func testNoTargetAndNoParseServerURLIsAUsageError() throws {
        let environment = ["PARSE_SERVER_URL": ""]
        for arguments in [
            ["pull", "--to", "x.sqlite"], ["export", "--to", "out"], ["schema", "pull"], ["schema", "check", "schema.json"],
            ["migrate", "status"], ["migrate", "up"],
        ] {
            let result = try run(arguments, environment)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("PARSE_SERVER_URL"), "\(arguments): \(result.stderr)")
        }
    }
}
