import Foundation
import XCTest

/// `parse-porter export`: what each format writes, selection, and the faults it refuses
/// without leaving anything behind.
final class ExportTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryFolder()
    }

    /// The library fixture imported into a new mirror.
    private func libraryMirror() throws -> URL {
        let mirror = directory.appendingPathComponent("library.sqlite")
        let result = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", mirror.path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return mirror
    }

    private func export(_ arguments: [String]) throws -> CommandRunner.Result {
        try CommandRunner.run(["export", "--quiet"] + arguments)
    }

    private func jsonRecords(_ url: URL) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        if let wrapped = json as? [String: Any] { return wrapped["results"] as? [[String: Any]] ?? [] }
        return json as? [[String: Any]] ?? []
    }

    func testEachFormatFramesItsRecords() throws {
        let mirror = try libraryMirror()
        let books = Int(try Mirror(mirror).value(#"SELECT count(*) FROM "Book""#) ?? "") ?? -1
        let links = Int(try Mirror(mirror).value(#"SELECT count(*) FROM "_Join:authors:Book""#) ?? "") ?? -1
        for format in ["parse", "json", "ndjson", "csv"] {
            let out = directory.appendingPathComponent(format)
            let result = try export(["--from", mirror.path, "--to", out.path, "--format", format])
            XCTAssertEqual(result.status, 0, result.stderr)
            let ext = format == "parse" ? "json" : format
            let bookFile = out.appendingPathComponent("Book.\(ext)"), joinFile = out.appendingPathComponent("_Join:authors:Book.\(ext)")
            switch format {
            case "parse", "json":
                let text = try String(contentsOf: bookFile, encoding: .utf8)
                XCTAssertTrue(format == "parse" ? text.hasPrefix(#"{"results":["#) : text.hasPrefix("["), format)
                let records = try jsonRecords(bookFile)
                XCTAssertEqual(records.count, books)
                let dune = try XCTUnwrap(records.first { $0["title"] as? String == "Dune" })
                XCTAssertEqual((dune["genre"] as? [String: Any])?["__type"] as? String, "Pointer")
                XCTAssertEqual(dune["publishingYear"] as? Int, 1965)
                // The links live in join files; the Parse layout's objects carry the placeholder, as Parse Server's do.
                if format == "parse" {
                    XCTAssertEqual(dune["authors"] as? [String: String], ["__type": "Relation", "className": "Author"])
                } else {
                    XCTAssertNil(dune["authors"], "relations live in join files, not in objects")
                }
                XCTAssertNil(dune["className"])
                XCTAssertTrue((dune["createdAt"] as? String)?.hasSuffix("Z") == true)
                let joins = try jsonRecords(joinFile)
                XCTAssertEqual(joins.count, links)
                XCTAssertEqual(Set(joins.first?.keys.map { $0 } ?? []), ["owningId", "relatedId"])
            case "ndjson":
                let lines = try String(contentsOf: bookFile, encoding: .utf8).split(separator: "\n")
                XCTAssertEqual(lines.count, books)
                for line in lines { XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) }
                XCTAssertEqual(try String(contentsOf: joinFile, encoding: .utf8).split(separator: "\n").count, links)
            default:
                let text = try String(contentsOf: bookFile, encoding: .utf8)
                XCTAssertTrue(text.hasPrefix("objectId,createdAt,updatedAt,ACL,title,publishingYear,genre,isbn,description\n"), text)
                XCTAssertTrue(try String(contentsOf: joinFile, encoding: .utf8).hasPrefix("owningId,relatedId\n"))
            }
            XCTAssertEqual(FileManager.default.fileExists(atPath: out.appendingPathComponent("schema.json").path), format == "parse")
        }
    }

    /// CSV cells: ISO dates in UTC, JSON for ACLs, arrays, objects and geo values, base64 for
    /// Bytes, and pointers as objectIds, or as natural keys (composite ones as JSON arrays) with --manifest.
    func testCSVCells() throws {
        let mirror = try libraryMirror()
        let keyed = directory.appendingPathComponent("keyed"), plain = directory.appendingPathComponent("plain")
        XCTAssertEqual(
            try export([
                "--from", mirror.path, "--to", keyed.path, "--format", "csv", "--manifest", CommandRunner.fixtures.appendingPathComponent("library").path,
            ]).status, 0)
        XCTAssertEqual(try export(["--from", mirror.path, "--to", plain.path, "--format", "csv"]).status, 0)
        let dune = try XCTUnwrap(try Mirror(mirror).rows(#"SELECT objectId, createdAt, genre FROM "Book" WHERE title = 'Dune'"#).first)
        let keyedBooks = try String(contentsOf: keyed.appendingPathComponent("Book.csv"), encoding: .utf8)
        XCTAssertTrue(
            keyedBooks.contains(
                #"\#(dune[0]!),\#(dune[1]!),\#(dune[1]!),"{""*"":{""read"":true},""role:Librarian"":{""read"":true,""write"":true}}",Dune,1965,Science Fiction,978-0-441-17271-9,"#
            ), keyedBooks)
        XCTAssertTrue(try String(contentsOf: plain.appendingPathComponent("Book.csv"), encoding: .utf8).contains(",Dune,1965,\(dune[2]!),"))
        XCTAssertTrue(try String(contentsOf: keyed.appendingPathComponent("_Join:books:Genre.csv"), encoding: .utf8).hasPrefix("owner,related\n"))

        let recipes = directory.appendingPathComponent("recipes.sqlite")
        XCTAssertEqual(
            try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("recipes").path, "--to", recipes.path, "--quiet"]).status, 0)
        let out = directory.appendingPathComponent("recipes")
        XCTAssertEqual(try export(["--from", recipes.path, "--to", out.path, "--format", "csv"]).status, 0)
        let kitchens = try String(contentsOf: out.appendingPathComponent("Kitchen.csv"), encoding: .utf8)
        XCTAssertTrue(kitchens.contains(#""{""__type"":""GeoPoint"",""latitude"":"#), kitchens)
        XCTAssertTrue(kitchens.contains(#""{""__type"":""Polygon"",""coordinates"":[["#), kitchens)
        XCTAssertTrue(kitchens.contains(",iVBORw0KGgo"), "Bytes as base64 text: \(kitchens)")
        let recipeRows = try String(contentsOf: out.appendingPathComponent("Recipe.csv"), encoding: .utf8)
        XCTAssertTrue(recipeRows.contains(#""[{""description"":"#), recipeRows)
        XCTAssertTrue(recipeRows.contains("2020-02-29T00:00:00.000Z"), recipeRows)
        XCTAssertTrue(recipeRows.contains(",true,") && recipeRows.contains(",false,"), recipeRows)

        let org = directory.appendingPathComponent("org.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("org").path, "--to", org.path, "--quiet"]).status, 0)
        let orgOut = directory.appendingPathComponent("org")
        XCTAssertEqual(
            try export(["--from", org.path, "--to", orgOut.path, "--format", "csv", "--manifest", CommandRunner.fixtures.appendingPathComponent("org").path])
                .status, 0)
        XCTAssertTrue(
            try String(contentsOf: orgOut.appendingPathComponent("Team.csv"), encoding: .utf8).contains(#",Platform,Lukas Schmidt,"[""Berlin"",""DE""]""#))
    }

    func testWhereSelectsObjectsAndTheirLinks() throws {
        let mirror = try libraryMirror()
        let out = directory.appendingPathComponent("recent")
        let result = try export(["--from", mirror.path, "--to", out.path, "--classes", "Book", "--where", #"{"publishingYear":{"$gte":1950}}"#])
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try Mirror(mirror).rows(#"SELECT objectId FROM "Book" WHERE publishingYear >= 1950"#).compactMap { $0[0] }
        let exported = try jsonRecords(out.appendingPathComponent("Book.json"))
        XCTAssertEqual(Set(exported.compactMap { $0["objectId"] as? String }), Set(expected))
        XCTAssertGreaterThan(expected.count, 0)
        XCTAssertLessThan(expected.count, 43)
        let links = try jsonRecords(out.appendingPathComponent("_Join:authors:Book.json"))
        let expectedLinks = try Mirror(mirror).value(
            #"SELECT count(*) FROM "_Join:authors:Book" WHERE owningId IN (SELECT objectId FROM "Book" WHERE publishingYear >= 1950)"#)
        XCTAssertEqual(String(links.count), expectedLinks)
        XCTAssertTrue(links.allSatisfy { expected.contains($0["owningId"] as? String ?? "") })
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("schema.json"))) as? [String: Any]
        XCTAssertEqual((schema?["results"] as? [[String: Any]])?.compactMap { $0["className"] as? String }, ["Book"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("Genre.json").path))
    }

    func testNonEmptyFolderIsRefusedUnlessForced() throws {
        let mirror = try libraryMirror()
        let out = directory.appendingPathComponent("existing")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("keep me\n".utf8).write(to: out.appendingPathComponent("notes.txt"))
        try Data("stale\n".utf8).write(to: out.appendingPathComponent("Genre.json"))
        let refused = try export(["--from", mirror.path, "--to", out.path])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("not empty") && refused.stderr.contains("--force"), refused.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["Genre.json", "notes.txt"])
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Genre.json"), encoding: .utf8), "stale\n")

        let forced = try export(["--from", mirror.path, "--to", out.path, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("notes.txt"), encoding: .utf8), "keep me\n")
        XCTAssertEqual(try jsonRecords(out.appendingPathComponent("Genre.json")).count, 12)
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: out.path).contains { $0.hasPrefix(".parse-porter") })
    }

    /// Every file below `url`, as paths relative to it.
    private func files(below url: URL) -> Set<String> {
        let paths = FileManager.default.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? []
        return Set(paths)
    }

    /// Bad mirrors (`Fixtures/bad-targets/`): refused with the exit code and a message naming
    /// the fault; no export folder is created, no file is written anywhere, the mirror is untouched.
    func testBadSourcesLeaveNothingBehind() throws {
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        let cases: [(fixture: String, arguments: [String], status: Int32, fragment: String)] = [
            ("hostile-class-name", [], 3, #"class "../escaped""#),
            ("hostile-relation-name", [], 3, #"relation Book."../../x""#),
            ("stored-date-not-a-date", [], 3, #"Book b2: the stored published "yesterday" is not a Date"#),
            (
                "dangling-pointer", ["--format", "csv", "--manifest", library], 1,
                "Book b2 genre points at Genre gone, which does not exist or has no complete key; export without natural keys"
            ),
        ]
        for (name, arguments, status, fragment) in cases {
            let source = try CommandRunner.loadSQLFixture("bad-targets/\(name).sql", into: directory)
            let before = try Data(contentsOf: source), filesBefore = files(below: directory)
            let result = try export(["--from", source.path, "--to", directory.appendingPathComponent("out-\(name)").path] + arguments)
            XCTAssertEqual(result.status, status, "\(name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(fragment), "\(name): \(result.stderr)")
            if status == 3 { XCTAssertTrue(result.stderr.contains(source.path), "\(name) does not name the mirror: \(result.stderr)") }
            XCTAssertEqual(files(below: directory), filesBefore, "\(name) left files behind")
            XCTAssertEqual(try Data(contentsOf: source), before, name)
        }
    }

    func testUsageErrors() throws {
        let mirror = try libraryMirror()
        let out = directory.appendingPathComponent("never").path
        let cases: [([String], Int32, String)] = [
            (["--classes", "Nope"], 2, "--classes: the source has no class Nope"),
            (["--where", #"{"title":"Dune"}"#], 2, "--where: constraints apply to one class"),
            (["--classes", "Book", "--where", "{title"], 2, "--where: not a JSON object"),
            (["--classes", "Book", "--where", #"{"title":{"$bogus":1}}"#], 2, "--where: constraints on Book"),
            (["--manifest", CommandRunner.fixtures.appendingPathComponent("library").path], 2, "use it with --format csv"),
            (["--format", "xml"], 2, "xml"),
        ]
        for (arguments, status, fragment) in cases {
            let result = try export(["--from", mirror.path, "--to", out] + arguments)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
        }
        let missing = try export(["--from", directory.appendingPathComponent("nope.sqlite").path, "--to", out])
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("no such mirror"), missing.stderr)
        let notADatabase = directory.appendingPathComponent("not-a-database.db")
        try FileManager.default.copyItem(at: CommandRunner.fixtures.appendingPathComponent("bad-targets/not-a-database.db"), to: notADatabase)
        let refused = try export(["--from", notADatabase.path, "--to", out])
        XCTAssertEqual(refused.status, 3, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("file is not a database"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// From a Parse Server: a `where` is sent as a query, the master key never shows, and a
    /// server that cannot be reached or refuses the key is exit 3 with nothing written.
    func testFromAParseServer() throws {
        let server = try ServedMirror(in: self, allowCustomObjectId: true)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["--quiet"]).status, 0)
        let out = directory.appendingPathComponent("served")
        let result = try CommandRunner.run(
            ["export", "--from", server.url, "--to", out.path, "--classes", "Book,Genre", "--format", "ndjson"],
            environment: ServedMirror.environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains(ServedMirror.masterKey))
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Book.ndjson"), encoding: .utf8).split(separator: "\n").count, 43)
        let genreLinks = try String(contentsOf: out.appendingPathComponent("_Join:books:Genre.ndjson"), encoding: .utf8).split(separator: "\n").count
        XCTAssertEqual(String(genreLinks), try Mirror(server.file).value(#"SELECT count(*) FROM "_Join:books:Genre""#))

        let selected = directory.appendingPathComponent("selected")
        let filtered = try CommandRunner.run(
            ["export", "--from", server.url, "--to", selected.path, "--classes", "Book", "--where", #"{"publishingYear":{"$lt":1900}}"#, "--quiet"],
            environment: ServedMirror.environment)
        XCTAssertEqual(filtered.status, 0, filtered.stderr)
        let expected = try Mirror(server.file).rows(#"SELECT objectId FROM "Book" WHERE publishingYear < 1900"#).compactMap { $0[0] }
        XCTAssertEqual(Set(try jsonRecords(selected.appendingPathComponent("Book.json")).compactMap { $0["objectId"] as? String }), Set(expected))

        let wrongKey = try CommandRunner.run(
            ["export", "--from", server.url, "--to", directory.appendingPathComponent("refused").path, "--quiet"],
            environment: ["PARSE_APPLICATION_ID": ServedMirror.applicationId, "PARSE_MASTER_KEY": "not-the-key"])
        XCTAssertEqual(wrongKey.status, 3, wrongKey.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("refused").path))
        XCTAssertFalse((wrongKey.stdout + wrongKey.stderr).contains("not-the-key"))

        let unreachable = try CommandRunner.run(
            ["export", "--from", "http://127.0.0.1:1/parse", "--to", directory.appendingPathComponent("nowhere").path, "--quiet", "--timeout", "2"],
            environment: ServedMirror.environment)
        XCTAssertEqual(unreachable.status, 3, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("127.0.0.1:1"), unreachable.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("nowhere").path))
    }

    /// Ctrl-C mid-export: exit 130, and the folder as it was (the staged files removed).
    func testInterruptLeavesTheFolderAsItWas() throws {
        let items = directory.appendingPathComponent("items")
        try CommandRunner.writeItemsDataset(30_000, to: items)
        let served = directory.appendingPathComponent("served.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", items.path, "--to", served.path, "-q"]).status, 0)
        let server = try ServedMirror(path: served.path, allowCustomObjectId: false)
        let out = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("keep me\n".utf8).write(to: out.appendingPathComponent("notes.txt"))
        let process = try CommandRunner.start(["export", "--from", server.url, "--to", out.path, "--force", "-q"], environment: ServedMirror.environment)
        // The objects are being read once the staged Item.json exists.
        let deadline = Date().addingTimeInterval(30)
        func staged() -> Bool {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
            return entries.contains { FileManager.default.fileExists(atPath: out.appendingPathComponent($0).appendingPathComponent("Item.json").path) }
        }
        while !staged() && process.isRunning && Date() < deadline { usleep(200) }
        XCTAssertTrue(process.isRunning, "the export finished before it could be interrupted")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["notes.txt"])
    }
}
