import Foundation
import MirrorQuery
import ParseModel
import PorterMigrations
import PorterPipeline
import PorterPostgres
import PorterReaders
import PorterTestSupport
import Synchronization
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The library examples of Docs/Library.md run against real files, a real SQLite mirror and a real
/// in-process server on 127.0.0.1, through the public API only (see Package.swift).
final class LibraryClientTests: XCTestCase {
    /// The books of Fixtures/library published in 2000 or later, by title.
    private let recentBooks = ["American Gods", "Half of a Yellow Sun", "Sapiens: A Brief History of Humankind", "海辺のカフカ"]
    private let applicationId = "library-client"
    private let masterKey = "library-client-master-key"

    func testImportedRowsReadBackWithAQuery() async throws {
        let mirror = try temporaryFolder().path.appending("/library.sqlite")
        let report = try await importDataset(folder: fixture("Fixtures/library"), intoMirror: mirror)
        XCTAssertTrue(report.succeeded)
        XCTAssertEqual(report.classes.first { $0.className == "Book" }?.inserted, 43)

        let books = try findObjects(
            "Book", where: JSONObject(["publishingYear": .object(JSONObject(["$gte": .integer(2000)]))]),
            order: "title", inMirror: mirror)
        XCTAssertEqual(books.map { $0["title"]?.stringValue }, recentBooks)
        let americanGods = try XCTUnwrap(books.first)
        XCTAssertEqual(americanGods["publishingYear"], .integer(2001))
        XCTAssertEqual(americanGods["genre"]?["__type"], .string("Pointer"))
        XCTAssertEqual(americanGods["genre"]?["className"], .string("Genre"))
    }

    func testValidatingABadDatasetNamesTheFault() async throws {
        let faults = try await validateDataset(folder: fixture("Fixtures/bad/dangling-pointer"))
        XCTAssertEqual(faults.count, 1)
        let fault = try XCTUnwrap(faults.first)
        XCTAssertEqual(fault.kind, .danglingReference)
        XCTAssertEqual(fault.location.file, "books.csv")
        XCTAssertEqual(fault.location.line, 4)
        XCTAssertEqual(fault.location.column, "genre")
        XCTAssertEqual(fault.location.className, "Book")
        XCTAssertEqual(fault.location.fieldName, "genre")
        XCTAssertEqual(fault.location.value, "Fantasyy")
        XCTAssertTrue(fault.reason.contains("no Genre has key \"Fantasyy\""), fault.reason)
    }

    func testRowsFromMemoryArriveInTheMirror() async throws {
        let mirror = try temporaryFolder().path.appending("/memory.sqlite")
        let authors = [Author(name: "Ursula K. Le Guin", born: 1929), Author(name: "Chimamanda Ngozi Adichie", born: 1977)]
        let books: [[String: JSONValue]] = [
            ["title": .string("The Dispossessed"), "author": .string("Ursula K. Le Guin")],
            ["title": .string("Half of a Yellow Sun"), "author": .string("Chimamanda Ngozi Adichie")],
        ]
        let report = try await importFromMemory(authors: authors, books: books, intoMirror: mirror)
        XCTAssertTrue(report.committed)

        let found = try findObjects("Book", where: JSONObject([:]), order: "title", including: "author", inMirror: mirror)
        XCTAssertEqual(found.map { $0["title"]?.stringValue }, ["Half of a Yellow Sun", "The Dispossessed"])
        XCTAssertEqual(found.map { $0["author"]?["name"]?.stringValue }, ["Chimamanda Ngozi Adichie", "Ursula K. Le Guin"])
        XCTAssertEqual(found.last?["author"]?["born"], .integer(1929))
    }

    func testAFaultInARowFromMemoryNamesTheSourceAndRow() async throws {
        let mirror = try temporaryFolder().path.appending("/memory.sqlite")
        let books: [[String: JSONValue]] = [
            ["title": .string("The Dispossessed"), "author": .string("Ursula K. Le Guin")],
            ["title": .string("Nobody's Book"), "author": .string("Nobody")],
        ]
        let refused = try await importFromMemory(authors: [Author(name: "Ursula K. Le Guin", born: 1929)], books: books, intoMirror: mirror)
        XCTAssertFalse(refused.committed)
        XCTAssertEqual(refused.errors.map(\.kind), [.danglingReference])
        XCTAssertEqual(refused.errors.first?.location.file, "books (in memory)")
        XCTAssertEqual(refused.errors.first?.location.line, 2)
        XCTAssertEqual(refused.errors.first?.location.value, "Nobody")
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror), "nothing is written when a row is at fault")

        var faults: [Diagnostic] = []
        var options = ImportOptions()
        let seen = Seen()
        options.faultHandler = { seen.add($0) }
        let manifest = DatasetManifest(classes: [
            ClassMapping(
                className: "Book",
                records: MemorySource(
                    name: "books (in memory)",
                    rows: [
                        ["title": .string("The Dispossessed"), "year": .integer(1974)],
                        ["title": .string("Nobody's Book"), "year": .string("many")],
                    ]), key: ["title"], fields: [FieldMapping(name: "title", type: .string), FieldMapping(name: "year", type: .number)])
        ])
        faults = try await Importer(manifest: manifest, options: options).validate().errors
        XCTAssertEqual(faults.map(\.kind), [.notANumber], "\(faults)")
        XCTAssertEqual(faults.first?.location.file, "books (in memory)")
        XCTAssertEqual(faults.first?.location.line, 2)
        XCTAssertEqual(faults.first?.location.fieldName, "year")
        XCTAssertEqual(faults.first?.location.value, "many")
        XCTAssertEqual(seen.faults.map(\.kind), [.notANumber], "the handler sees each fault")
    }

    func testAManifestBuiltInCodeIsCheckedAsAYAMLOneIs() throws {
        let manifest = DatasetManifest(classes: [
            ClassMapping(
                className: "Bo ok", records: MemorySource(name: "rows", rows: []), key: ["isbn"],
                fields: [FieldMapping(name: "title", type: .string)])
        ])
        let faults = manifest.faults()
        XCTAssertFalse(faults.isEmpty)
        XCTAssertNil(faults.first?.file, "a manifest built in code has no file")
        XCTAssertEqual(faults.first?.keyPath.first, "classes")
        XCTAssertThrowsError(try manifest.check())
    }

    func testExportWritesTheClassToAFolder() async throws {
        let folder = try temporaryFolder().path
        let mirror = folder.appending("/library.sqlite")
        _ = try await importDataset(folder: fixture("Fixtures/library"), intoMirror: mirror)
        let report = try await exportClass("Book", fromMirror: mirror, to: folder.appending("/export"))
        XCTAssertEqual(report.classes.map(\.className), ["Book"])
        XCTAssertEqual(report.classes.first?.objects, 43)

        let exported = try JSONParser.parse(bytes: Array(Data(contentsOf: URL(fileURLWithPath: folder.appending("/export/Book.json")))))
        guard case .array(let objects) = exported else { return XCTFail("Book.json is not an array: \(exported)") }
        XCTAssertEqual(objects.count, 43)
        let dune = try XCTUnwrap(objects.first { $0["title"] == .string("Dune") })
        XCTAssertEqual(dune["publishingYear"], .integer(1965))
        XCTAssertEqual(dune["objectId"]?.stringValue?.count, 10)
    }

    func testServedMirrorAnswersURLSession() async throws {
        let mirror = try temporaryFolder().path.appending("/library.sqlite")
        _ = try await importDataset(folder: fixture("Fixtures/library"), intoMirror: mirror)
        let server = try await serveMirror(at: mirror, applicationId: applicationId, masterKey: masterKey)
        addTeardownBlock { await server.stop() }
        let url = server.url.absoluteString

        let answer = try await get(url + "/classes/Book?order=title&where=" + percentEncoded(#"{"publishingYear":{"$gte":2000}}"#))
        guard case .array(let results)? = answer["results"] else { return XCTFail("no results: \(answer)") }
        XCTAssertEqual(results.map { $0["title"]?.stringValue }, recentBooks)
    }

    func testMigrationsFromAFolder() async throws {
        let mirror = try temporaryFolder().path.appending("/library.sqlite")
        let applied = try await migrate(mirrorPath: mirror, folder: fixture("Migrations"))
        XCTAssertEqual(applied.map(\.version), ["1", "2", "3", "4", "5", "6"])
        XCTAssertTrue(applied.allSatisfy(\.success))

        let books = try findObjects("Book", where: JSONObject(["edition": .integer(1)]), order: "title", inMirror: mirror)
        XCTAssertEqual(books.count, 43, "V2 imported the books and V6 gave each the first edition")
        let second = try await migrate(mirrorPath: mirror, folder: fixture("Migrations"))
        XCTAssertEqual(second.count, 0, "nothing is pending the second time")
    }

    func testRESTImportIntoTheInProcessServer() async throws {
        let mirror = try temporaryFolder().path.appending("/served.sqlite")
        let server = try await serveMirror(at: mirror, applicationId: applicationId, masterKey: masterKey)
        addTeardownBlock { await server.stop() }
        let url = server.url.absoluteString

        let report = try await importDataset(folder: fixture("Fixtures/library"), toServer: url, applicationId: applicationId, masterKey: masterKey)
        XCTAssertTrue(report.succeeded)
        XCTAssertEqual(report.classes.first { $0.className == "Book" }?.inserted, 43)
        let books = try findObjects(
            "Book", where: JSONObject(["publishingYear": .object(JSONObject(["$gte": .integer(2000)]))]),
            order: "title", inMirror: mirror)
        XCTAssertEqual(books.map { $0["title"]?.stringValue }, recentBooks)
    }

    func testPullFromTheInProcessServer() async throws {
        let folder = try temporaryFolder().path
        _ = try await importDataset(folder: fixture("Fixtures/library"), intoMirror: folder.appending("/source.sqlite"))
        let server = try await serveMirror(at: folder.appending("/source.sqlite"), applicationId: applicationId, masterKey: masterKey)
        addTeardownBlock { await server.stop() }
        let url = server.url.absoluteString

        let copy = folder.appending("/copy.sqlite")
        let report = try await pull(fromServer: url, applicationId: applicationId, masterKey: masterKey, intoMirror: copy)
        XCTAssertEqual(report.classes.first { $0.className == "Book" }?.added, 43)
        let books = try findObjects(
            "Book", where: JSONObject(["publishingYear": .object(JSONObject(["$gte": .integer(2000)]))]),
            order: "title", inMirror: copy)
        XCTAssertEqual(books.map { $0["title"]?.stringValue }, recentBooks)
    }

    func testPullFromAPostgresDatabase() async throws {
        let url = try PostgresCluster.shared().createDatabase()
        let manifest = try ManifestLoader.load(fixture("Fixtures/parse-com-users"))
        let loaded = try await Importer(manifest: manifest, options: ImportOptions(batchSize: PostgresTarget.objectsPerWrite)).run(
            into: PostgresTarget(url: url))
        XCTAssertTrue(loaded.succeeded)

        let copy = try temporaryFolder().path.appending("/copy.sqlite")
        let report = try await pull(fromDatabase: url, intoMirror: copy)
        let users = try XCTUnwrap(report.classes.first { $0.className == "_User" })
        XCTAssertEqual(users.added, 3)
        var ids: [String] = []
        try MirrorObjectSource(path: copy).readObjectIds(of: "_User") { ids += $0 }
        XCTAssertEqual(try MirrorObjectSource(path: copy).passwordHashes(ofUsers: ids).count, 3)
        XCTAssertEqual(try MirrorObjectSource(path: copy).passwordHashes(ofUsers: ids), try PostgresSource(url: url).passwordHashes(ofUsers: ids))
    }

    func testSchemaCheckNamesTheDifferingField() async throws {
        let folder = try temporaryFolder().path
        let mirror = folder.appending("/library.sqlite")
        _ = try await importDataset(folder: fixture("Fixtures/library"), intoMirror: mirror)
        let schemaFile = folder.appending("/schema.json")
        try Data(
            #"[{"className": "Genre", "fields": {"name": {"type": "String", "required": true}, "books": {"type": "Relation", "targetClass": "Book"}, "rank": {"type": "Number"}}}]"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: schemaFile))

        let diff = try await checkSchema(schemaFile, againstMirror: mirror)
        let genre = try XCTUnwrap(diff.classes.first { $0.className == "Genre" })
        XCTAssertEqual(genre.fields.map(\.name), ["rank"])
        XCTAssertEqual(genre.fields.first?.change, .added)
    }

    // MARK: - Helpers

    /// The faults a fault handler was given (it is called on the import's thread).
    private final class Seen: Sendable {
        private let list = Mutex<[Diagnostic]>([])
        func add(_ fault: Diagnostic) { list.withLock { $0.append(fault) } }
        var faults: [Diagnostic] { list.withLock { $0 } }
    }

    /// A GET with the master key, answered as JSON.
    private func get(_ url: String) async throws -> JSONValue {
        var request = URLRequest(url: try XCTUnwrap(URL(string: url)))
        request.setValue(applicationId, forHTTPHeaderField: "X-Parse-Application-Id")
        request.setValue(masterKey, forHTTPHeaderField: "X-Parse-Master-Key")
        let (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        return try JSONParser.parse(bytes: Array(data))
    }

    private func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}
