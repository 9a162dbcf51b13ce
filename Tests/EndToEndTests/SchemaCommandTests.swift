import Foundation
import XCTest

#if canImport(FoundationXML)
import FoundationXML
#endif

/// `parse-porter schema pull|push|diff|check` on the library fixture, in a mirror and behind a
/// served mirror: what is written, what is reported, exit codes, and bad schema files.
final class SchemaCommandTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryFolder()
    }

    /// `parse-porter schema ARGUMENTS…` with the served mirror's keys; they must never be printed.
    private func schema(_ arguments: [String], currentDirectory: URL? = nil, line: UInt = #line) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(["schema"] + arguments, currentDirectory: currentDirectory, environment: ServedMirror.environment)
        XCTAssertFalse(
            result.stdout.contains(ServedMirror.masterKey) || result.stderr.contains(ServedMirror.masterKey), "the master key was printed", line: line)
        return result
    }

    /// The library fixture imported into a new mirror.
    private func libraryMirror() throws -> URL {
        let mirror = directory.appendingPathComponent("library.sqlite")
        let result = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", mirror.path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return mirror
    }

    /// The library fixture imported through REST into a served mirror.
    private func libraryServer() throws -> ServedMirror {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["--quiet"]).status, 0)
        return server
    }

    /// `schema pull --target TARGET --out FILE`, checked to succeed.
    private func pull(_ target: String, to name: String) throws -> URL {
        let file = directory.appendingPathComponent(name)
        let result = try schema(["pull", "--target", target, "--out", file.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return file
    }

    /// A copy of the schema file `file` with each class passed through `edit` (nil drops it) and
    /// `added` appended.
    private func edited(_ file: URL, name: String, added: [[String: Any]] = [], _ edit: (inout [String: Any]) -> Bool = { _ in true }) throws -> URL {
        var document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var classes: [[String: Any]] = []
        for var entry in try XCTUnwrap(document["results"] as? [[String: Any]]) where edit(&entry) { classes.append(entry) }
        document["results"] = classes + added
        let copy = directory.appendingPathComponent(name)
        try JSONSerialization.data(withJSONObject: document).write(to: copy)
        return copy
    }

    /// The library schema with one of each kind of difference: Book's `publishingYear` becomes a
    /// String, `pages` is added, `description` dropped, an index added, permissions narrowed;
    /// ISBN is dropped; Loan is added.
    private func drifted(_ file: URL) throws -> URL {
        try edited(file, name: "drifted.json", added: [["className": "Loan", "fields": ["book": ["type": "Pointer", "targetClass": "Book"]]]]) { entry in
            guard entry["className"] as? String != "ISBN" else { return false }
            guard entry["className"] as? String == "Book", var fields = entry["fields"] as? [String: Any] else { return true }
            fields["publishingYear"] = ["type": "String"]
            fields["pages"] = ["type": "Number", "defaultValue": 0]
            fields["description"] = nil
            entry["fields"] = fields
            entry["indexes"] = ["title_1": ["title": 1]]
            entry["classLevelPermissions"] = ["find": ["*": true], "get": ["*": true], "count": ["*": true]]
            return true
        }
    }

    private static let driftLines = """
        Book
          - field description: String
          + field pages: Number, default 0
          ~ field publishingYear: Number → String
          + index title_1: {"title": 1}
          ~ classLevelPermissions.create: {"*": true} → {}
          ~ classLevelPermissions.update: {"*": true} → {}
          ~ classLevelPermissions.delete: {"*": true} → {}
          ~ classLevelPermissions.addField: {"*": true} → {}
        ISBN
          - class: 1 field, 0 indexes
        Loan
          + class: 1 field, 0 indexes
        """

    func testAPulledSchemaMatchesItsTargetAndPullsTheSameBytesAgain() throws {
        let mirror = try libraryMirror()
        let file = try pull(mirror.path, to: "schema.json")
        let text = try String(contentsOf: file, encoding: .utf8)
        let classes = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])?["results"] as? [[String: Any]])
        XCTAssertEqual(classes.map { $0["className"] as? String }, ["Author", "Book", "Genre", "ISBN", "Publisher"])
        let book = try XCTUnwrap(classes[1]["fields"] as? [String: [String: Any]])
        XCTAssertEqual(book["genre"]?["targetClass"] as? String, "Genre")
        XCTAssertEqual(book["title"]?["required"] as? Bool, true)
        XCTAssertTrue(text.contains(#"        "authors": {"type": "Relation", "targetClass": "Author"},"#), text)

        XCTAssertEqual(try String(contentsOf: try pull(mirror.path, to: "again.json"), encoding: .utf8), text, "a re-pull is byte-identical")
        let stdout = try schema(["pull", "--target", mirror.path])
        XCTAssertEqual(stdout.status, 0, stdout.stderr)
        XCTAssertEqual(stdout.stdout, text)

        let check = try schema(["check", "--target", mirror.path, file.path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertEqual(check.stdout, "\(mirror.path) matches \(file.path): 5 classes, no differences\n")
        let json = try schema(["check", "--target", mirror.path, file.path, "--format", "json"])
        XCTAssertEqual(json.stdout, #"{"matches":true,"differences":0,"classes":[]}"# + "\n")
        let junit = try JUnitDocument(try schema(["check", "--target", mirror.path, file.path, "--format", "junit"]).stdout)
        XCTAssertEqual(junit.suite, ["name": "schema check", "tests": "5", "failures": "0"])
        XCTAssertEqual(junit.cases.map(\.name), ["Author", "Book", "Genre", "ISBN", "Publisher"])
        XCTAssertEqual(junit.cases.compactMap(\.failure), [])
    }

    func testAnEditedFileIsDriftInEveryFormat() throws {
        let mirror = try libraryMirror()
        let file = try drifted(try pull(mirror.path, to: "schema.json"))

        let text = try schema(["check", "--target", mirror.path, file.path])
        XCTAssertEqual(text.status, 1, text.stderr)
        XCTAssertEqual(text.stdout, Self.driftLines + "\n10 differences in 3 classes between \(file.path) and \(mirror.path)\n")
        let diff = try schema(["diff", "--target", mirror.path, file.path])
        XCTAssertEqual(diff.status, 0, "diff exits 0 whatever the differences")
        XCTAssertEqual(diff.stdout, text.stdout)

        let json = try schema(["check", "--target", mirror.path, file.path, "--format", "json"])
        XCTAssertEqual(json.status, 1)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["matches"] as? Bool, false)
        XCTAssertEqual(report["differences"] as? Int, 10)
        let classes = try XCTUnwrap(report["classes"] as? [[String: Any]])
        XCTAssertEqual(classes.map { "\($0["className"] ?? "") \($0["change"] ?? "")" }, ["Book changed", "ISBN removed", "Loan added"])
        let fields = try XCTUnwrap(classes[0]["fields"] as? [[String: Any]])
        let year = try XCTUnwrap(fields.first { $0["name"] as? String == "publishingYear" })
        XCTAssertEqual(year["change"] as? String, "changed")
        XCTAssertEqual((year["declared"] as? [String: Any])?["type"] as? String, "String")
        XCTAssertEqual((year["live"] as? [String: Any])?["type"] as? String, "Number")
        XCTAssertEqual((classes[0]["indexes"] as? [[String: Any]])?.first?["name"] as? String, "title_1")
        XCTAssertEqual((classes[0]["classLevelPermissions"] as? [[String: Any]])?.map { $0["name"] as? String }, ["create", "update", "delete", "addField"])
        XCTAssertEqual((classes[1]["live"] as? [String: Any])?["className"] as? String, "ISBN")
        XCTAssertEqual((classes[2]["declared"] as? [String: Any])?["className"] as? String, "Loan")

        let junit = try schema(["check", "--target", mirror.path, file.path, "--format", "junit"])
        XCTAssertEqual(junit.status, 1)
        let document = try JUnitDocument(junit.stdout)
        XCTAssertEqual(document.suites, ["tests": "6", "failures": "3"])
        XCTAssertEqual(document.suite, ["name": "schema check", "tests": "6", "failures": "3"])
        XCTAssertEqual(document.cases.map(\.className), Array(repeating: "parse-porter.schema", count: 6))
        XCTAssertEqual(document.cases.map(\.name), ["Author", "Book", "Genre", "ISBN", "Loan", "Publisher"])
        let failures = Dictionary(uniqueKeysWithValues: document.cases.compactMap { testCase in testCase.failure.map { (testCase.name, $0) } })
        XCTAssertEqual(failures.keys.sorted(), ["Book", "ISBN", "Loan"])
        XCTAssertEqual(failures["Book"]?.message, "8 differences")
        XCTAssertEqual(failures["Book"]?.text.split(separator: "\n").first, "- field description: String")
        XCTAssertTrue(failures["Book"]?.text.contains(#"+ index title_1: {"title": 1}"#) == true, failures["Book"]?.text ?? "")
        XCTAssertEqual(failures["ISBN"]?.text, "- class: 1 field, 0 indexes")
        XCTAssertEqual(failures["Loan"], JUnitDocument.Failure(message: "1 difference", text: "+ class: 1 field, 0 indexes"))
    }

    func testPushMakesTheMirrorMatchAndCheckPasses() throws {
        let mirror = try libraryMirror()
        let file = try drifted(try pull(mirror.path, to: "schema.json"))
        let refused = try schema(["push", "--target", mirror.path, file.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("Book.publishingYear: Number → String"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--recreate-modified-fields"), refused.stderr)
        XCTAssertEqual(try Mirror(mirror).value(#"SELECT count(publishingYear) FROM "Book""#), "43", "nothing changed")

        let dryRun = try schema(["push", "--target", mirror.path, file.path, "--recreate-modified-fields", "--delete-extra-fields", "--dry-run"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertTrue(dryRun.stdout.hasSuffix("dry run: would push 9 changes in 2 classes (3 requests) to \(mirror.path); nothing was sent\n"), dryRun.stdout)
        XCTAssertEqual(try Mirror(mirror).value(#"SELECT count(publishingYear) FROM "Book""#), "43")

        let pushed = try schema(["push", "--target", mirror.path, file.path, "--recreate-modified-fields", "--delete-extra-fields"])
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertEqual(
            pushed.stdout,
            """
            Book
              - field description: String (deleted with its values)
              + field pages: Number, default 0
              ~ field publishingYear: Number → String (deleted and added again: its values are lost)
              + index title_1: {"title": 1}
              ~ classLevelPermissions.create: {"*": true} → {}
              ~ classLevelPermissions.update: {"*": true} → {}
              ~ classLevelPermissions.delete: {"*": true} → {}
              ~ classLevelPermissions.addField: {"*": true} → {}
            ISBN
              kept: - class: 1 field, 0 indexes (only on the target: push leaves it alone)
            Loan
              + class: 1 field, 0 indexes
            pushed 9 changes in 2 classes (3 requests) to \(mirror.path)

            """)
        let schemas = Dictionary(uniqueKeysWithValues: try Mirror(mirror).rows(#"SELECT className, schema FROM "_SCHEMA""#).map { ($0[0] ?? "", $0[1] ?? "") })
        let book = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(schemas["Book"]).utf8)) as? [String: Any])
        XCTAssertEqual((book["fields"] as? [String: [String: Any]])?["publishingYear"]?["type"] as? String, "String")
        XCTAssertNil((book["fields"] as? [String: Any])?["description"])
        XCTAssertEqual((book["indexes"] as? [String: [String: Int]])?["title_1"], ["title": 1])
        XCTAssertNotNil(schemas["Loan"])
        XCTAssertNotNil(schemas["ISBN"], "a class only on the target is left alone")
        XCTAssertEqual(try Mirror(mirror).value(#"SELECT count(publishingYear) FROM "Book""#), "0", "the recreated field lost its values")
        XCTAssertEqual(try Mirror(mirror).value(#"SELECT count(*) FROM "Book""#), "43")

        let withISBN = try edited(try pull(mirror.path, to: "after.json"), name: "expected.json")
        XCTAssertEqual(try schema(["check", "--target", mirror.path, withISBN.path]).status, 0)
        let check = try schema(["check", "--target", mirror.path, file.path])
        XCTAssertEqual(check.status, 1, "ISBN is still only on the target")
        XCTAssertEqual(check.stdout, "ISBN\n  - class: 1 field, 0 indexes\n1 difference in 1 class between \(file.path) and \(mirror.path)\n")
        let again = try schema(["push", "--target", mirror.path, file.path])
        XCTAssertTrue(again.stdout.hasSuffix("pushed 0 changes in 0 classes (0 requests) to \(mirror.path)\n"), again.stdout)
    }

    func testAgainstAParseServer() throws {
        let server = try libraryServer()
        let file = try pull(server.url, to: "schema.json")
        let check = try schema(["check", "--target", server.url, file.path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertEqual(check.stdout, "\(server.url) matches \(file.path): 5 classes, no differences\n")

        let drift = try drifted(file)
        let junit = try schema(["check", "--target", server.url, drift.path, "--format", "junit"])
        XCTAssertEqual(junit.status, 1)
        let document = try JUnitDocument(junit.stdout)
        XCTAssertEqual(document.suite, ["name": "schema check", "tests": "6", "failures": "3"])
        XCTAssertEqual(document.cases.filter { $0.failure != nil }.map(\.name), ["Book", "ISBN", "Loan"])
        XCTAssertEqual(
            try schema(["diff", "--target", server.url, drift.path]).stdout,
            Self.driftLines + "\n10 differences in 3 classes between \(drift.path) and \(server.url)\n")

        let pushed = try schema(["push", "--target", server.url, drift.path, "--recreate-modified-fields", "--delete-extra-fields"])
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertTrue(pushed.stdout.hasSuffix("pushed 9 changes in 2 classes (3 requests) to \(server.url)\n"), pushed.stdout)
        let after = try schema(["check", "--target", server.url, drift.path, "--format", "json"])
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((report["classes"] as? [[String: Any]])?.map { $0["className"] as? String }, ["ISBN"], "only the class push leaves alone")
        let served = try XCTUnwrap(try Mirror(server.file).value(#"SELECT schema FROM "_SCHEMA" WHERE className = 'Loan'"#))
        XCTAssertTrue(served.contains(#""book":{"type":"Pointer","targetClass":"Book"}"#), served)

        let wrongKey = try CommandRunner.run(
            ["schema", "check", "--target", server.url, file.path],
            environment: ["PARSE_APPLICATION_ID": ServedMirror.applicationId, "PARSE_MASTER_KEY": "not-the-key"])
        XCTAssertEqual(wrongKey.status, 3, wrongKey.stderr)
        XCTAssertFalse(wrongKey.stderr.contains("not-the-key"), wrongKey.stderr)
    }

    func testMissingAndUnreachableTargets() throws {
        let file = try pull(try libraryMirror().path, to: "schema.json")
        let missing = directory.appendingPathComponent("missing.sqlite")
        for arguments in [["pull", "--target", missing.path], ["diff", "--target", missing.path, file.path], ["check", "--target", missing.path, file.path]] {
            let result = try schema(arguments)
            XCTAssertEqual(result.status, 3, arguments.joined(separator: " "))
            XCTAssertTrue(result.stderr.contains("\(missing.path): no such mirror"), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path))
        }
        let unreachable = try schema(["check", "--target", "http://127.0.0.1:1/parse", file.path, "--timeout", "2"])
        XCTAssertEqual(unreachable.status, 3, unreachable.stderr)
        let unreachableJUnit = try schema(["check", "--target", "http://127.0.0.1:1/parse", file.path, "--timeout", "2", "--format", "junit"])
        XCTAssertEqual(unreachableJUnit.status, 3, unreachableJUnit.stderr)
        let report = try JUnitDocument(unreachableJUnit.stdout)
        XCTAssertEqual(report.suite, ["name": "schema check", "tests": "1", "failures": "1"])
        XCTAssertEqual(report.cases.map(\.name), ["target"])
        XCTAssertEqual(report.cases.first?.failure?.text, String(unreachableJUnit.stderr.dropLast()))

        let dryRun = try schema(["push", "--target", missing.path, file.path, "--dry-run"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertTrue(dryRun.stdout.contains("Book\n  + class: 7 fields, 0 indexes\n"), dryRun.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing.path), "a dry run creates no mirror")

        let refused = directory.appendingPathComponent("refused.sqlite")
        let badIndex = try edited(file, name: "bad-index.json") { entry in
            if entry["className"] as? String == "Genre" { entry["indexes"] = ["nope_1": ["nope": 1]] }
            return true
        }
        let failed = try schema(["push", "--target", refused.path, badIndex.path])
        XCTAssertEqual(failed.status, 3)
        XCTAssertTrue(failed.stderr.contains("Genre: POST /schemas/Genre: Parse error 102: Field nope does not exist, cannot add index."), failed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: refused.path), "a push that failed leaves no new mirror")

        let created = try schema(["push", "--target", missing.path, file.path])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertTrue(created.stdout.hasSuffix("pushed 5 changes in 5 classes (5 requests) to \(missing.path)\n"), created.stdout)
        XCTAssertEqual(try schema(["check", "--target", missing.path, file.path]).status, 0)
        XCTAssertEqual(try Mirror(missing).value(#"SELECT count(*) FROM "_SCHEMA""#), "5")
    }

    /// The expected message of each file in `Fixtures/bad-schemas` (Fixtures/README.md), after
    /// `FILE:`; every file is listed and every listed file exists.
    static let badSchemas: [String: String] = [
        "empty.json": #"1: expected a JSON array of objects or an object with a "results" array"#,
        "invalid-json.json": "3: invalid JSON: expected ',' or '}' after object member at column 24",
        "no-results.json": #"1: the top-level JSON object has no "results" array"#,
        "results-not-a-list.json": #"1: "results" is not an array"#,
        "entry-not-a-class.json": "3: record is not a JSON object",
        "class-name-missing.json": "3: results[1].className: is required",
        "class-name-invalid.json": #"2: [0].className: "../Book": invalid class name"#,
        "class-listed-twice.json": "4: results[2].className: Book is listed twice (first at line 2)",
        "unknown-class-key.json": "2: results[0].classLevelPermission: unknown key (a class has className, fields, classLevelPermissions, indexes)",
        "fields-not-an-object.json": #"2: [0].fields: must map field names to field specs like {"title": {"type": "String"}}, not array"#,
        "unknown-field-type.json": #"5: results[3].fields.pages.type: unknown type "Integer""#,
        "pointer-without-target.json": "2: results[0].fields.genre: Pointer needs a targetClass",
        "relation-required.json": "2: results[0].fields.authors.required: a Relation cannot be required",
        "default-wrong-type.json": #"2: results[0].fields.copies.defaultValue: "many" is not a Number"#,
        "field-name-invalid.json": #"2: results[0].fields: "first title": invalid field name"#,
        "clp-false.json": "2: results[0].classLevelPermissions.delete.*: must be true, not false",
        "clp-unknown-operation.json": "2: results[0].classLevelPermissions.list: unknown operation",
        "protected-fields-not-a-list.json": #"2: results[0].classLevelPermissions.protectedFields.*: must be a list of field names, not "title""#,
        "index-unknown-kind.json": #"2: results[0].indexes.title_1.title: must be 1, -1, "text", "2d", "2dsphere" or "hashed", not "asc""#,
        "index-without-keys.json": "2: results[0].indexes.title_1: must map fields to 1, -1",
    ]

    func testBadSchemaFilesAreExitTwoWithFileLineAndKeyPath() throws {
        let folder = CommandRunner.fixtures.appendingPathComponent("bad-schemas")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(files, Self.badSchemas.keys.sorted())
        let mirror = try libraryMirror()
        let fresh = directory.appendingPathComponent("fresh.sqlite")
        for file in files {
            let expected = "\(file):\(Self.badSchemas[file] ?? "")"
            for command in ["check", "diff", "push"] {
                let target = command == "push" ? fresh.path : mirror.path
                let result = try schema([command, "--target", target, file], currentDirectory: folder)
                XCTAssertEqual(result.status, 2, "\(command) \(file): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix(expected), "\(command) \(file): \(result.stderr)")
                XCTAssertEqual(result.stdout, "", "\(command) \(file)")
            }
            // CI reads a report even when the file is bad: one failed test case naming the fault.
            let junit = try schema(["check", "--target", mirror.path, file, "--format", "junit"], currentDirectory: folder)
            XCTAssertEqual(junit.status, 2, "check --format junit \(file): \(junit.stderr)")
            XCTAssertTrue(junit.stderr.hasPrefix(expected), junit.stderr)
            let report = try JUnitDocument(junit.stdout)
            XCTAssertEqual(report.suite, ["name": "schema check", "tests": "1", "failures": "1"], file)
            XCTAssertEqual(report.cases.map(\.name), [file])
            XCTAssertEqual(report.cases.first?.failure?.text, String(junit.stderr.dropLast()), file)
            XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), "push \(file) created a mirror")
        }
        let none = try schema(["check", "--target", mirror.path, "none.json"], currentDirectory: directory)
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.hasPrefix("none.json: cannot open file: "), none.stderr)
        XCTAssertEqual(try schema(["check", "--target", mirror.path]).status, 2, "no schema file")
        _ = try pull(mirror.path, to: "schema.json")
        XCTAssertEqual(
            try schema(["diff", "--target", mirror.path, "schema.json", "--format", "junit"], currentDirectory: directory).status, 2,
            "diff has no junit format")
    }
}

/// A JUnit report read with Foundation's XML parser: the attributes of `<testsuites>` and
/// `<testsuite>`, and each test case with its failure.
private final class JUnitDocument: NSObject, XMLParserDelegate {
    struct Failure: Equatable {
        var message: String
        var text: String
    }

    struct TestCase {
        var className: String
        var name: String
        var failure: Failure?
    }

    private(set) var suites: [String: String] = [:]
    private(set) var suite: [String: String] = [:]
    private(set) var cases: [TestCase] = []
    private var text: String?

    init(_ xml: String) throws {
        super.init()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? NSError(domain: "JUnitDocument", code: 1) }
    }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        switch element {
        case "testsuites": suites = attributes
        case "testsuite": suite = attributes
        case "testcase": cases.append(TestCase(className: attributes["classname"] ?? "", name: attributes["name"] ?? ""))
        case "failure":
            cases[cases.count - 1].failure = Failure(message: attributes["message"] ?? "", text: "")
            text = ""
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text? += string
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "failure", let text {
            cases[cases.count - 1].failure?.text = text
            self.text = nil
        }
    }
}
