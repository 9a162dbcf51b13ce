import Foundation
import XCTest

/// `parse-porter.yml`: named targets chosen with `--target NAME`, keys read from the variables
/// the file names, never from the file; precedence option > environment > project file.
final class ProjectFileTests: XCTestCase {
    static let variable = "STAGING_MASTER_KEY"

    /// None of the generic key and URL variables, so only the project file names the server.
    static let cleanEnvironment = [
        "PARSE_SERVER_URL": "", "PARSE_SERVER_APPLICATION_ID": "", "PARSE_SERVER_MASTER_KEY": "", "PARSE_SERVER_REST_API_KEY": "",
        "PARSE_APPLICATION_ID": "", "PARSE_MASTER_KEY": "", "PARSE_REST_API_KEY": "", "PARSE_MAINTENANCE_KEY": "", variable: "",
    ]

    /// A folder holding a `parse-porter.yml` whose `staging` target is `server` (its key in
    /// `$STAGING_MASTER_KEY`) and whose `production` target is a server nobody runs.
    private func project(for server: ServedMirror) throws -> URL {
        let folder = try temporaryFolder()
        try """
        # Targets of this project; keys live in the variables named here.
        targets:
          staging:
            url: \(server.url)
            applicationId: \(ServedMirror.applicationId)
            masterKey: \(Self.variable)
          production:
            url: https://parse.example.com/parse
            applicationId: \(ServedMirror.applicationId)
            masterKey: PRODUCTION_MASTER_KEY

        """.write(to: folder.appendingPathComponent("parse-porter.yml"), atomically: true, encoding: .utf8)
        return folder
    }

    /// `parse-porter ARGUMENTS…` in `folder` with `environment` over a clean one; no key shows in its output.
    private func run(_ arguments: [String], in folder: URL, _ environment: [String: String] = [:], line: UInt = #line) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(arguments, currentDirectory: folder, environment: Self.cleanEnvironment.merging(environment) { $1 })
        for key in [ServedMirror.masterKey, "wrong-master-key"] {
            XCTAssertFalse(result.stdout.contains(key) || result.stderr.contains(key), "a key was printed: \(result.stdout)\(result.stderr)", line: line)
        }
        return result
    }

    private static let titles = "SELECT group_concat(title, '|') FROM (SELECT title FROM Book ORDER BY title)"

    /// The titles of `Fixtures/library` imported into a mirror of its own, as ``titles`` gives them.
    private func libraryTitles() throws -> String? {
        let mirror = try temporaryFolder().appendingPathComponent("reference.sqlite")
        let imported = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--target", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        return try Mirror(mirror).value(Self.titles)
    }

    /// `import --target staging` and `pull --target staging` reach the server the project file
    /// names, with the master key from the variable it names.
    func testImportAndPullThroughANamedTarget() throws {
        let server = try ServedMirror(in: self)
        let folder = try project(for: server)
        let library = CommandRunner.fixtures.appendingPathComponent("library")
        let environment = [Self.variable: ServedMirror.masterKey]

        let imported = try run(["import", library.path, "--target", "staging", "--quiet"], in: folder, environment)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stdout.contains("imported into \(server.url)"), imported.stdout)
        let books = try XCTUnwrap(libraryTitles())
        XCTAssertTrue(books.contains("Dune|"), books)
        XCTAssertEqual(try Mirror(server.file).value(Self.titles), books, "the library's books arrived on the server")

        let copy = folder.appendingPathComponent("pulled.sqlite")
        let pulled = try run(["pull", "--target", "staging", "--to", copy.path, "--quiet"], in: folder, environment)
        XCTAssertEqual(pulled.status, 0, pulled.stderr)
        XCTAssertEqual(try Mirror(copy).value(Self.titles), books)
        XCTAssertEqual(try Mirror(copy).value("SELECT count(*) FROM Author"), try Mirror(server.file).value("SELECT count(*) FROM Author"))

        // From another folder, --project names the file.
        let elsewhere = try temporaryFolder()
        let project = folder.appendingPathComponent("parse-porter.yml").path
        let schema = try run(["schema", "pull", "--target", "staging", "--project", project], in: elsewhere, environment)
        XCTAssertEqual(schema.status, 0, schema.stderr)
        XCTAssertTrue(schema.stdout.contains(#""className": "Book""#), schema.stdout)
        XCTAssertEqual(try run(["schema", "pull", "--target", "staging"], in: elsewhere, environment).status, 2, "no parse-porter.yml there")
    }

    /// The key option beats the environment, which beats the variable the project file names.
    func testOptionThenEnvironmentThenProjectFile() throws {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("todo").path, ["--quiet"]).status, 0)
        let folder = try project(for: server)

        let fromProject = try run(["schema", "pull", "--target", "staging"], in: folder, [Self.variable: ServedMirror.masterKey])
        XCTAssertEqual(fromProject.status, 0, fromProject.stderr)
        XCTAssertTrue(fromProject.stdout.contains(#""className": "TodoListItem""#), fromProject.stdout)

        let environmentWins = try run(
            ["schema", "pull", "--target", "staging"], in: folder,
            [Self.variable: ServedMirror.masterKey, "PARSE_MASTER_KEY": "wrong-master-key"])
        XCTAssertEqual(environmentWins.status, 3, "PARSE_MASTER_KEY comes before the project file's variable: \(environmentWins.stderr)")

        let optionWins = try run(
            ["schema", "pull", "--target", "staging", "--master-key", ServedMirror.masterKey], in: folder,
            [Self.variable: "wrong-master-key", "PARSE_MASTER_KEY": "wrong-master-key"])
        XCTAssertEqual(optionWins.status, 0, "--master-key comes before both: \(optionWins.stderr)")
        XCTAssertEqual(optionWins.stdout, fromProject.stdout)
    }

    /// An unknown name lists the known ones; a named variable that is not set is said by name;
    /// a path with a dot or a slash is still a mirror file. Nothing reaches the server.
    func testUnknownNameAndUnsetVariable() throws {
        let server = try ServedMirror(in: self)
        let folder = try project(for: server)
        let library = CommandRunner.fixtures.appendingPathComponent("library").path

        let unknown = try run(["import", library, "--target", "stagign"], in: folder, [Self.variable: ServedMirror.masterKey])
        XCTAssertEqual(unknown.status, 2, unknown.stderr)
        XCTAssertTrue(
            unknown.stderr.contains("--target stagign: ") && unknown.stderr.contains("names no such target; its targets: staging, production"),
            unknown.stderr)

        let unset = try run(["import", library, "--target", "staging"], in: folder)
        XCTAssertEqual(unset.status, 2, unset.stderr)
        XCTAssertTrue(unset.stderr.contains("targets.staging.masterKey names the variable STAGING_MASTER_KEY, which is not set"), unset.stderr)
        XCTAssertEqual(server.injector.writes, 0)
        XCTAssertEqual(try Mirror(server.file).value("SELECT count(*) FROM sqlite_master WHERE name = 'Book'"), "0")

        let mirror = try run(["import", library, "--target", "./staging", "--quiet"], in: folder)
        XCTAssertEqual(mirror.status, 0, mirror.stderr)
        XCTAssertEqual(try Mirror(folder.appendingPathComponent("staging")).value(Self.titles), try libraryTitles())
    }

    /// Each file under `Fixtures/bad-projects/` is refused with exit 2 and a message naming the
    /// file and the key path, before anything is sent; a key in the file is never printed.
    func testBadProjectFilesAreRefused() throws {
        let server = try ServedMirror(in: self)
        let folder = try temporaryFolder()
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        let cases = [
            ("key-value.yml", "targets.staging.masterKey: holds a value, not the name of an environment variable"),
            ("url-with-user-info.yml", "targets.staging.url: holds user info"),
            ("unknown-key.yml", "targets.staging.restApiKey: unknown key; known here: url, applicationId, masterKey, restAPIKey, maintenanceKey"),
            ("no-targets.yml", "staging: unknown key; known here: targets"),
        ]
        for (name, fragment) in cases {
            let file = CommandRunner.fixtures.appendingPathComponent("bad-projects/\(name)").path
            for arguments in [
                ["import", library, "--target", "staging"], ["pull", "--target", "staging", "--to", "x.sqlite"],
                ["schema", "pull", "--target", "staging"],
            ] {
                let result = try run(arguments + ["--project", file], in: folder, [Self.variable: ServedMirror.masterKey, "PARSE_SERVER_URL": server.url])
                XCTAssertEqual(result.status, 2, "\(name) \(arguments): \(result.stderr)")
                XCTAssertTrue(result.stderr.contains("\(file): \(fragment)"), "\(name) \(arguments): \(result.stderr)")
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing was written")
        XCTAssertEqual(server.injector.writes, 0)
    }
}
