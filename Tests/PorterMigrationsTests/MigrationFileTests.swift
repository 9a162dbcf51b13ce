import Foundation
import ParseModel
import PorterPipeline
import PorterTestSupport
import XCTest

@testable import PorterMigrations

final class MigrationFileTests: XCTestCase {
    static let repository = PackageFolders.root

    /// A new folder holding `files` (name → text), removed after the test.
    private func folder(_ files: [String: String]) throws -> String {
        let folder = try temporaryFolder("migrations")
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder.path
    }

    private func load(_ files: [String: String]) throws -> [MigrationFile] {
        try MigrationDirectory.load(try folder(files))
    }

    private func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    private func object(_ text: String) throws -> JSONObject {
        guard case .object(let object) = try json(text) else { throw PorterError(.invalidRequest, "not an object: \(text)") }
        return object
    }

    // MARK: Versions

    func testVersionsReadFlywaySpellings() throws {
        XCTAssertEqual(MigrationVersion("1")?.description, "1")
        XCTAssertEqual(MigrationVersion("1.1")?.description, "1.1")
        XCTAssertEqual(MigrationVersion("2_1")?.description, "2.1")
        XCTAssertEqual(MigrationVersion("1_2.3")?.description, "1.2.3")
        XCTAssertEqual(MigrationVersion("010")?.description, "10")
        XCTAssertEqual(MigrationVersion("1.0")?.description, "1")
        for text in ["", "1.", ".1", "1..2", "1__2", "a", "1a", "-1", "+1", " 1", "1 ", "1,2", "99999999999999999999"] {
            XCTAssertNil(MigrationVersion(text), text)
        }
    }

    func testVersionsCompareNumericallyPartByPart() throws {
        let versions = ["10", "2", "1.2", "1.10", "1.1", "1", "1.9", "1.1.1", "0.9"].compactMap(MigrationVersion.init)
        XCTAssertEqual(versions.sorted().map(\.description), ["0.9", "1", "1.1", "1.1.1", "1.2", "1.9", "1.10", "2", "10"])
        XCTAssertLessThan(MigrationVersion("2")!, MigrationVersion("10")!)
    }

    func testTrailingZerosMakeTheSameVersion() throws {
        XCTAssertEqual(MigrationVersion("1"), MigrationVersion("1.0"))
        XCTAssertEqual(MigrationVersion("1"), MigrationVersion("1_0_0"))
        XCTAssertEqual(Set(["1", "1.0", "1_0_0", "01"].compactMap(MigrationVersion.init)).count, 1)
        XCTAssertNotEqual(MigrationVersion("1"), MigrationVersion("1.0.1"))
        XCTAssertLessThan(MigrationVersion("1.0")!, MigrationVersion("1.0.1")!)
    }

    // MARK: Folders and file names

    func testFileNamesGiveVersionAndName() throws {
        let files = try load([
            "V10__ten.json": #"{"operations": [{"dropIndex": {"className": "Book", "name": "x"}}]}"#,
            "V2_1__add_book_edition.yml": "operations: [{dropIndex: {className: Book, name: x}}]",
            "V1.1__first.yaml": "operations: [{dropIndex: {className: Book, name: x}}]",
        ])
        XCTAssertEqual(files.map(\.version.description), ["1.1", "2.1", "10"])
        XCTAssertEqual(files.map(\.name), ["first", "add book edition", "ten"])
        XCTAssertEqual(files.map(\.fileName), ["V1.1__first.yaml", "V2_1__add_book_edition.yml", "V10__ten.json"])
        XCTAssertTrue(files.allSatisfy { $0.path.hasSuffix("/\($0.fileName)") })
    }

    func testOtherFilesAreIgnored() throws {
        let path = try folder([
            "V1__only.yml": "operations: [{dropIndex: {className: Book, name: x}}]",
            "README.md": "# Migrations",
            "notes.txt": "not yaml",
            ".V2__hidden.yml": "not: [valid",
            ".DS_Store": "",
            "V3__backup.yml~": "",
        ])
        try FileManager.default.createDirectory(atPath: "\(path)/V4__folder.yml", withIntermediateDirectories: false)
        XCTAssertEqual(try MigrationDirectory.load(path).map(\.fileName), ["V1__only.yml"])
    }

    func testAMissingFolderIsAUsageError() throws {
        let missing = try temporaryFolder().appendingPathComponent("no-such").path
        XCTAssertThrowsError(try MigrationDirectory.load(missing)) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .invalidRequest)
            XCTAssertEqual((error as? PorterError)?.message, "\(missing): no such migrations folder")
        }
    }

    func testAnEmptyFolderHasNoMigrations() throws {
        XCTAssertEqual(try load([:]).count, 0)
    }

    // MARK: Operations

    static let everyOperationYAML = """
        description: every operation
        operations:
          - createClass:
              className: Book
              fields:
                title: {type: String, required: true}
                author: {type: Pointer, targetClass: Author}
                pages: {type: Number, defaultValue: 0}
                released: {type: Date, defaultValue: {__type: Date, iso: "2024-01-31T09:30:00.000Z"}}
                readers: {type: Relation, targetClass: _User}
              classLevelPermissions:
                find: {"*": true}
                update: {"role:Librarian": true, pointerFields: [author]}
                readUserFields: [author]
                protectedFields: {"*": [pages]}
              indexes: {title_1: {title: 1}, title_text: {title: text}}
          - addField: {className: Book, name: isbn, type: String, required: false, defaultValue: null}
          - deleteField: {className: Book, name: isbn}
          - addIndex: {className: Book, name: pages_-1, keys: {pages: -1, author: 1}}
          - dropIndex: {className: Book, name: title_1}
          - setPermissions: {className: Book, classLevelPermissions: {get: {"*": true}, create: {}}}
          - renameField: {className: Book, from: year, to: publishingYear}
          - changeType: {className: Book, field: pages, type: String, allowDataLoss: true}
          - changeType: {className: Book, field: shelf, type: Pointer, targetClass: Shelf}
          - import: {dataset: ../Fixtures/library}
          - updateObjects:
              className: Book
              where: {pages: {"$exists": false}}
              set: {pages: 0, draft: {"__op": "Delete"}, released: {"__type": "Date", "iso": "2024-01-31T09:30:00.000Z"}}
          - deleteObjects: {className: Book, where: {title: Draft}}
        """

    static let everyOperationJSON = """
        {
          "description": "every operation",
          "operations": [
            {"createClass": {
              "className": "Book",
              "fields": {
                "title": {"type": "String", "required": true},
                "author": {"type": "Pointer", "targetClass": "Author"},
                "pages": {"type": "Number", "defaultValue": 0},
                "released": {"type": "Date", "defaultValue": {"__type": "Date", "iso": "2024-01-31T09:30:00.000Z"}},
                "readers": {"type": "Relation", "targetClass": "_User"}
              },
              "classLevelPermissions": {
                "find": {"*": true},
                "update": {"role:Librarian": true, "pointerFields": ["author"]},
                "readUserFields": ["author"],
                "protectedFields": {"*": ["pages"]}
              },
              "indexes": {"title_1": {"title": 1}, "title_text": {"title": "text"}}
            }},
            {"addField": {"className": "Book", "name": "isbn", "type": "String", "required": false, "defaultValue": null}},
            {"deleteField": {"className": "Book", "name": "isbn"}},
            {"addIndex": {"className": "Book", "name": "pages_-1", "keys": {"pages": -1, "author": 1}}},
            {"dropIndex": {"className": "Book", "name": "title_1"}},
            {"setPermissions": {"className": "Book", "classLevelPermissions": {"get": {"*": true}, "create": {}}}},
            {"renameField": {"className": "Book", "from": "year", "to": "publishingYear"}},
            {"changeType": {"className": "Book", "field": "pages", "type": "String", "allowDataLoss": true}},
            {"changeType": {"className": "Book", "field": "shelf", "type": "Pointer", "targetClass": "Shelf"}},
            {"import": {"dataset": "../Fixtures/library"}},
            {"updateObjects": {
              "className": "Book",
              "where": {"pages": {"$exists": false}},
              "set": {"pages": 0, "draft": {"__op": "Delete"}, "released": {"__type": "Date", "iso": "2024-01-31T09:30:00.000Z"}}
            }},
            {"deleteObjects": {"className": "Book", "where": {"title": "Draft"}}}
          ]
        }
        """

    func testEveryOperationIsDecodedFromYAMLAndJSON() throws {
        let released = ParseValue.date(try XCTUnwrap(ParseDate(iso: "2024-01-31T09:30:00.000Z")))
        let expected: [MigrationOperation] = [
            .createClass(
                ClassSchema(
                    className: "Book",
                    fields: [
                        SchemaField(name: "title", type: .string, required: true),
                        SchemaField(name: "author", type: .pointer(targetClass: "Author")),
                        SchemaField(name: "pages", type: .number, defaultValue: .integer(0)),
                        SchemaField(name: "released", type: .date, defaultValue: released),
                        SchemaField(name: "readers", type: .relation(targetClass: "_User")),
                    ],
                    classLevelPermissions: try json(
                        #"""
                        {"find": {"*": true}, "update": {"role:Librarian": true, "pointerFields": ["author"]},
                         "readUserFields": ["author"], "protectedFields": {"*": ["pages"]}}
                        """#),
                    indexes: try json(#"{"title_1": {"title": 1}, "title_text": {"title": "text"}}"#))),
            .addField(className: "Book", field: SchemaField(name: "isbn", type: .string)),
            .deleteField(className: "Book", name: "isbn"),
            .addIndex(className: "Book", name: "pages_-1", keys: try json(#"{"pages": -1, "author": 1}"#)),
            .dropIndex(className: "Book", name: "title_1"),
            .setPermissions(className: "Book", classLevelPermissions: try json(#"{"get": {"*": true}, "create": {}}"#)),
            .renameField(className: "Book", from: "year", to: "publishingYear"),
            .changeType(className: "Book", field: "pages", type: .string, allowDataLoss: true),
            .changeType(className: "Book", field: "shelf", type: .pointer(targetClass: "Shelf"), allowDataLoss: false),
            .importDataset(path: "../Fixtures/library"),
            .updateObjects(
                className: "Book", where: try object(#"{"pages": {"$exists": false}}"#),
                set: try object(
                    #"""
                    {"pages": 0, "draft": {"__op": "Delete"}, "released": {"__type": "Date", "iso": "2024-01-31T09:30:00.000Z"}}
                    """#)),
            .deleteObjects(className: "Book", where: try object(#"{"title": "Draft"}"#)),
        ]
        let files = try load(["V1__every_operation.yml": Self.everyOperationYAML, "V2__every_operation.json": Self.everyOperationJSON])
        XCTAssertEqual(files.count, 2)
        for file in files {
            XCTAssertEqual(file.operations.count, expected.count, file.fileName)
            for (decoded, wanted) in zip(file.operations, expected) { XCTAssertEqual(decoded, wanted, file.fileName) }
        }
    }

    /// Index keys take the kinds a schema file takes, and a whole double counts as its integer,
    /// so the index compares equal to the one Parse reports.
    func testIndexKeysTakeEveryKindAndWholeDoublesAsIntegers() throws {
        let files = try load([
            "V1__indexes.yml": """
            operations:
              - addIndex: {className: Place, name: mixed, keys: {rank: 1.0, age: -1.0, where: 2d, tag: hashed}}
            """
        ])
        XCTAssertEqual(
            files.first?.operations,
            [.addIndex(className: "Place", name: "mixed", keys: try json(#"{"rank": 1, "age": -1, "where": "2d", "tag": "hashed"}"#))])
    }

    // MARK: Checksums

    static let editionYAML = """
        description: edition
        operations:
          - addField: {className: Book, name: edition, type: Number, defaultValue: 1}
        """

    func testChecksumIsSHA256OfTheCanonicalDocument() throws {
        let canonical = #"{"description":"edition","operations":[{"addField":{"className":"Book","defaultValue":1,"name":"edition","type":"Number"}}]}"#
        let file = try XCTUnwrap(try load(["V1__edition.yml": Self.editionYAML]).first)
        XCTAssertEqual(file.checksum, SHA256.hex(Array(canonical.utf8)))
        XCTAssertEqual(file.checksum.count, 64)
        XCTAssertTrue(file.checksum.allSatisfy { "0123456789abcdef".contains($0) })
    }

    func testReformattingKeepsTheChecksum() throws {
        let reformatted = """
            # Comments, indentation, key order, quoting and flow or block style do not count.
            operations:
                -   addField:
                        type: Number      # the field's type
                        name: "edition"
                        className: 'Book'
                        defaultValue: 1.0
            description: >-
              edition
            """
        let duplicateKey =
            #"{"operations": [{"addField": {"className": "Author", "className": "Book", "name": "edition", "type": "Number", "defaultValue": 1}}], "description": "edition"}"#
        let files = try load(["V1__a.yml": Self.editionYAML, "V2__b.yml": reformatted, "V3__c.json": duplicateKey])
        XCTAssertEqual(Set(files.map(\.checksum)).count, 1, files.map(\.checksum).description)
    }

    func testAnyChangeOfContentChangesTheChecksum() throws {
        let original = try XCTUnwrap(try load(["V1__a.yml": Self.editionYAML]).first).checksum
        let changes = [
            Self.editionYAML.replacingOccurrences(of: "defaultValue: 1", with: "defaultValue: 2"),
            Self.editionYAML.replacingOccurrences(of: "description: edition", with: "description: editions"),
            Self.editionYAML.replacingOccurrences(of: "name: edition", with: "name: Edition"),
            Self.editionYAML.replacingOccurrences(of: "defaultValue: 1", with: "defaultValue: \"1\"").replacingOccurrences(of: "Number", with: "String"),
            Self.editionYAML + "\n  - deleteField: {className: Book, name: draft}",
        ]
        var checksums: Set<String> = [original]
        for changed in changes {
            XCTAssertNotEqual(changed, Self.editionYAML)
            checksums.insert(try XCTUnwrap(try load(["V1__a.yml": changed]).first).checksum)
        }
        XCTAssertEqual(checksums.count, changes.count + 1)
    }

    func testAYAMLFileAndItsJSONTranslationHaveTheSameChecksum() throws {
        let files = try load(["V1__every.yml": Self.everyOperationYAML, "V2__every.json": Self.everyOperationJSON])
        XCTAssertEqual(files[0].checksum, files[1].checksum)
    }

    // MARK: The example migrations

    func testTheExampleMigrationsLoadInOrder() throws {
        let folder = Self.repository.appendingPathComponent("Migrations").path
        let files = try MigrationDirectory.load(folder)
        XCTAssertEqual(files.map(\.version.description), ["1", "2", "3", "4", "5", "6"])
        XCTAssertEqual(
            files.map(\.name),
            [
                "library schema", "import library", "add book edition", "index books by year",
                "rename book description", "backfill book edition",
            ])
        XCTAssertEqual(files[1].operations, [.importDataset(path: "../Fixtures/library")])
    }

    /// V1 declares the classes with the fields (types, required flags) that importing
    /// Fixtures/library gives them, so that V2's import finds no conflict; V2's dataset path
    /// leads to that dataset from the migrations folder.
    func testTheExampleSchemaIsTheLibraryDatasetsSchema() throws {
        let folder = Self.repository.appendingPathComponent("Migrations")
        let v1 = try XCTUnwrap(try MigrationDirectory.load(folder.path).first)
        var declared: [String: Set<SchemaField>] = [:]
        for operation in v1.operations {
            switch operation {
            case .createClass(let schema): declared[schema.className] = Set(schema.fields)
            case .addField(let className, let field): declared[className, default: []].insert(field)
            default: XCTFail("V1 has \(operation)")
            }
        }
        let manifest = try ManifestLoader.load(folder.appendingPathComponent("../Fixtures/library").path)
        XCTAssertEqual(declared, Dictionary(uniqueKeysWithValues: manifest.schemas.map { ($0.className, Set($0.fields)) }))
    }

    // MARK: Bad migration folders

    struct Expectation {
        /// The cause the command reports as the file's `exit:` code.
        let cause: PorterError.Cause
        let fragments: [String]

        init(_ url: URL) throws {
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            let exit = try XCTUnwrap(lines.first { $0.hasPrefix("exit: ") }.flatMap { Int32($0.dropFirst("exit: ".count)) })
            let causes: [Int32: PorterError.Cause] = [1: .invalidData, 2: .invalidRequest, 3: .target]
            cause = try XCTUnwrap(causes[exit])
            fragments = lines.filter { $0.hasPrefix("contains: ") }.map { String($0.dropFirst("contains: ".count)) }
        }
    }

    /// Every folder under Fixtures/bad-migrations fails to load as its expected-error.txt says,
    /// with a message that starts with the path of a file in that folder.
    func testEveryBadMigrationFolderIsRefused() throws {
        let root = Self.repository.appendingPathComponent("Fixtures/bad-migrations")
        let cases = try FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)
            .filter(\.hasDirectoryPath).sorted { $0.path < $1.path }
        XCTAssertGreaterThanOrEqual(cases.count, 20)
        for folder in cases {
            let name = folder.lastPathComponent
            let expected = try Expectation(folder.appendingPathComponent("expected-error.txt"))
            XCTAssertFalse(expected.fragments.isEmpty, name)
            do {
                let loaded = try MigrationDirectory.load(folder.path)
                XCTFail("\(name): loaded \(loaded.map(\.fileName)) without an error")
            } catch {
                XCTAssertEqual(error.cause, expected.cause, "\(name): \(error.message)")
                let fileName =
                    error.message.hasPrefix(folder.path + "/")
                    ? String(error.message.dropFirst(folder.path.count + 1).prefix { $0 != ":" }) : ""
                XCTAssertTrue(
                    !fileName.isEmpty && FileManager.default.fileExists(atPath: folder.appendingPathComponent(fileName).path),
                    "\(name): the message does not start with the path of a file in the folder: \(error.message)")
                for fragment in expected.fragments {
                    XCTAssertTrue(error.message.contains(fragment), "\(name): the message lacks \"\(fragment)\":\n\(error.message)")
                }
            }
        }
    }
}
