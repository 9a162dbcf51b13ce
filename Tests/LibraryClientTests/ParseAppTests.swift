import Foundation
import ParsePorter
import ParsePorterPostgres
import PorterTestSupport
import XCTest

/// Every job through one `ParseApp` handle (the examples `app-*` of Docs/Library.md), on a real mirror
/// file, a real in-process Parse Server on 127.0.0.1 and a real PostgreSQL server.
final class ParseAppTests: XCTestCase {
    private let applicationId = "library-client"
    private let masterKey = "library-client-master-key"
    private let recentBooks = ["American Gods", "Half of a Yellow Sun", "Sapiens: A Brief History of Humankind", "海辺のカフカ"]
    /// A date with milliseconds, which Parse keeps.
    private let inventory = Date(timeIntervalSince1970: 1_700_000_000.123)

    private var shelves: [Shelf] {
        [Shelf(name: "Fiction", capacity: 120, lastInventory: inventory), Shelf(name: "History", capacity: 40, lastInventory: inventory)]
    }

    func testImportSaveFindAndExportThroughOneHandle() async throws {
        let folder = try temporaryFolder().path
        let app = try await openAndImport(folder: fixture("Fixtures/library"), shelves: shelves, mirrorPath: folder + "/library.sqlite")

        let found = try await books(since: 2000, in: app)
        XCTAssertEqual(found.map(\.title), recentBooks)
        XCTAssertEqual(found.first?.publishingYear, 2001)
        XCTAssertEqual(found.first?.objectId.count, 10)

        let exported = try await exportLibrary(app, to: folder + "/export")
        XCTAssertEqual(exported.map(\.name).sorted(), ["Fiction", "History"])
        XCTAssertEqual(exported.map(\.lastInventory), [inventory, inventory], "a Date keeps its milliseconds")
        XCTAssertEqual(exported.map(\.capacity).sorted(), [40, 120])
        let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/export")
        XCTAssertTrue(files.contains("Book.json") && files.contains("Shelf.json"), "\(files)")

        let schemas = try await app.schemas()
        let schema = try XCTUnwrap(schemas.first { $0.className == "Shelf" })
        XCTAssertEqual(schema.fields.first { $0.name == "capacity" }?.type, .number)
        XCTAssertEqual(schema.fields.first { $0.name == "lastInventory" }?.type, .date)

        let again = try await app.save([Shelf(name: "Fiction", capacity: 150, lastInventory: inventory)], to: "Shelf", key: ["name"])
        XCTAssertEqual(again.classes.first?.updated, 1, "a stored key updates its object")
        let raw = try await app.objects(of: "Shelf", where: ["name": "Fiction"])
        XCTAssertEqual(raw.map { $0["capacity"] }, [.integer(150)])
        XCTAssertEqual(raw.first?["lastInventory"]?["iso"], .string("2023-11-14T22:13:20.123Z"))
    }

    /// Each Swift type a property may have becomes its Parse type, and its value arrives as given.
    func testSavedPropertiesTakeTheirParseTypes() async throws {
        struct Place: Encodable {
            let city: String
            let floors: [Int]
        }
        struct Branch: Encodable {
            let code: String
            let open: Bool
            let rating: Double
            let visitors: UInt8
            let opened: Date
            let logo: Data
            let site: URL
            let address: Place
            let tags: [String]
            let closedOn: Date?
        }
        let opened = Date(timeIntervalSince1970: 1_600_000_000.5)
        let branch = Branch(
            code: "N1", open: true, rating: 4.5, visitors: 200, opened: opened, logo: Data([0, 1, 254]),
            site: URL(string: "https://example.com/n1")!, address: Place(city: "Oslo", floors: [1, 2]), tags: ["quiet"], closedOn: nil)
        let app = try await ParseApp(target: .mirror(path: try temporaryFolder().path + "/branches.sqlite"))
        let report = try await app.save([branch], to: "Branch", key: ["code"])
        XCTAssertTrue(report.committed, "\(report.errors)")

        let schemas = try await app.schemas()
        let fields = try XCTUnwrap(schemas.first { $0.className == "Branch" }).fields
        let types = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.type) })
        XCTAssertEqual(types["code"], .string)
        XCTAssertEqual(types["open"], .boolean)
        XCTAssertEqual(types["rating"], .number)
        XCTAssertEqual(types["visitors"], .number)
        XCTAssertEqual(types["opened"], .date)
        XCTAssertEqual(types["logo"], .bytes)
        XCTAssertEqual(types["site"], .string)
        XCTAssertEqual(types["address"], .object)
        XCTAssertEqual(types["tags"], .array)
        XCTAssertNil(types["closedOn"], "a property that is always nil sets no field")

        let branches = try await app.objects(of: "Branch")
        let stored = try XCTUnwrap(branches.first)
        XCTAssertEqual(stored["open"], true)
        XCTAssertEqual(stored["rating"], 4.5)
        XCTAssertEqual(stored["visitors"], 200)
        XCTAssertEqual(stored["opened"], ["__type": "Date", "iso": "2020-09-13T12:26:40.500Z"])
        XCTAssertEqual(stored["logo"], ["__type": "Bytes", "base64": .string(Data([0, 1, 254]).base64EncodedString())])
        XCTAssertEqual(stored["site"], "https://example.com/n1")
        XCTAssertEqual(stored["address"], ["city": "Oslo", "floors": [1, 2]])
        XCTAssertEqual(stored["tags"], ["quiet"])
        XCTAssertNil(stored["closedOn"])
    }

    func testAValueThatDoesNotDecodeNamesTheObjectAndField() async throws {
        let app = try await openAndImport(folder: fixture("Fixtures/library"), shelves: shelves, mirrorPath: try temporaryFolder().path + "/library.sqlite")
        struct Wrong: Decodable { let title: Int }
        do {
            _ = try await app.find(Wrong.self, in: "Book", limit: 1)
            XCTFail("a title is no Int")
        } catch {
            XCTAssertEqual(error.cause, .invalidData)
            XCTAssertTrue(error.message.hasPrefix("Book "), error.message)
            XCTAssertTrue(error.message.contains("title: expected Int"), error.message)
        }
    }

    func testAClassNameThatIsNoClassNameIsRefusedBeforeAnyRequest() async throws {
        let app = try await openAndImport(folder: fixture("Fixtures/library"), shelves: shelves, mirrorPath: try temporaryFolder().path + "/library.sqlite")
        struct Anything: Decodable {}
        for name in ["Book/dune", "../schemas", "Book?limit=1", "Book%2Fdune", "", "1Book"] {
            do {
                let found = try await app.find(Anything.self, in: name)
                XCTFail("\(name.debugDescription) found \(found.count) objects")
            } catch {
                XCTAssertEqual(error.cause, .invalidRequest, "\(name.debugDescription): \(error.message)")
                XCTAssertTrue(error.message.contains("invalid class name"), error.message)
            }
        }
        let books = try await app.find(Anything.self, in: "Book", limit: 1)
        XCTAssertEqual(books.count, 1, "a class name still finds")
    }

    func testAMissingMirrorIsNotCreatedWhenNotAsked() async throws {
        let path = try temporaryFolder().path + "/none.sqlite"
        do {
            _ = try await ParseApp(target: .mirror(path: path, create: false))
            XCTFail("opened a mirror that does not exist")
        } catch {
            XCTAssertEqual(error.cause, .target)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testPullAndSchemaPushFromAServer() async throws {
        let folder = try temporaryFolder().path
        let source = try await openAndImport(folder: fixture("Fixtures/library"), shelves: shelves, mirrorPath: folder + "/source.sqlite")
        _ = source
        let server = try await serveMirror(at: folder + "/source.sqlite", applicationId: applicationId, masterKey: masterKey)
        addTeardownBlock { await server.stop() }

        let report = try await pullServer(url: server.url.absoluteString, applicationId: applicationId, masterKey: masterKey, into: folder + "/copy.sqlite")
        XCTAssertEqual(report.classes.first { $0.className == "Book" }?.added, 43)
        let copy = try await ParseApp(target: .mirror(path: folder + "/copy.sqlite", create: false))
        let copied = try await books(since: 2000, in: copy)
        XCTAssertEqual(copied.map(\.title), recentBooks)

        do {
            _ = try await ParseApp(target: .server(url: server.url.absoluteString, applicationId: applicationId, masterKey: "not-the-key"))
            XCTFail("opened a server with a wrong master key")
        } catch {
            XCTAssertEqual(error.cause, .target)
            XCTAssertFalse(error.message.contains("not-the-key"), "a key is never shown: \(error.message)")
        }

        let schemaFile = folder + "/schema.json"
        try Data(
            #"[{"className": "Genre", "fields": {"name": {"type": "String", "required": true}, "books": {"type": "Relation", "targetClass": "Book"}, "rank": {"type": "Number"}}}]"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: schemaFile))
        let app = try await ParseApp(target: .server(url: server.url.absoluteString, applicationId: applicationId, masterKey: masterKey))
        var dumped = ""
        dump(app.target, to: &dumped)
        for shown in ["\(app.target)", String(reflecting: app.target), dumped, app.location] {
            XCTAssertFalse(shown.contains(masterKey), "the master key is never shown: \(shown)")
        }
        let diff = try await checkAndPushSchema(schemaFile, to: app)
        XCTAssertEqual(diff.classes.first { $0.className == "Genre" }?.fields.map(\.name), ["rank"])
        let pushed = try await app.schemas()
        let genre = try XCTUnwrap(pushed.first { $0.className == "Genre" })
        XCTAssertEqual(genre.fields.first { $0.name == "rank" }?.type, .number, "the push added the field on the server")
        let after = try await app.schemaDiff(declared: SchemaDocument.read(schemaFile).classes)
        XCTAssertEqual(after.classes.first { $0.className == "Genre" }?.fields.map(\.name) ?? [], [], "Genre passes the check after the push: \(after.text)")
    }

    func testMigrateImportAndFindOnAPostgresDatabase() async throws {
        let url = try PostgresCluster.shared().createDatabase()
        let applied = try await migrateDatabase(url: url, folder: fixture("Migrations"))
        XCTAssertEqual(applied.map(\.version), ["1", "2", "3", "4", "5", "6"])
        let app = try await ParseApp(target: .database(url: url))
        let editions = try await app.find(Edition.self, in: "Book", where: ["edition": 1], limit: 1000)
        XCTAssertEqual(editions.count, 43, "V2 imported the books and V6 gave each the first edition")

        let saved = try await app.save(shelves, to: "Shelf", key: ["name"])
        XCTAssertTrue(saved.committed)
        let stored = try await app.objects(of: "Shelf", as: Shelf.self)
        XCTAssertEqual(stored.map(\.lastInventory), [inventory, inventory])
        let second = try await migrateDatabase(url: url, folder: fixture("Migrations"))
        XCTAssertEqual(second.count, 0, "nothing is pending the second time")
        let status = try await app.migrations(fixture("Migrations")).status()
        XCTAssertEqual(status.migrations.map(\.state), Array(repeating: .applied, count: 6))
        XCTAssertNil(status.lock)
    }

    /// Two imports creating one new mirror at once: one creates it, the other imports into it
    /// or is refused with a target error that says to run it again, never SQLite's own words.
    func testTwoImportsCreatingOneMirrorAtOnce() async throws {
        for round in 0..<3 {
            let path = try temporaryFolder().path + "/new.sqlite"
            let apps = try await (ParseApp(target: .mirror(path: path)), ParseApp(target: .mirror(path: path)))
            let dataset = fixture("Fixtures/library")
            async let first = Self.importDataset(dataset, into: apps.0)
            async let second = Self.importDataset(dataset, into: apps.1)
            let outcomes = await [first, second]
            let committed = outcomes.compactMap { try? $0.get() }.filter(\.committed)
            XCTAssertGreaterThanOrEqual(committed.count, 1, "round \(round): one import created the mirror")
            for case .failure(let error) in outcomes {
                XCTAssertEqual(error.cause, .target, "round \(round): \(error.message)")
                XCTAssertNil(error.underlyingError, "round \(round): \(error.message)")
            }
            let app = try await ParseApp(target: .mirror(path: path, create: false))
            let stored = try await app.objects(of: "Book")
            XCTAssertEqual(stored.count, 43, "round \(round)")
        }
    }

    private static func importDataset(_ folder: String, into app: ParseApp) async -> Result<ImportReport, PorterError> {
        do throws(PorterError) {
            return .success(try await app.importDataset(folder))
        } catch {
            return .failure(error)
        }
    }

    /// What a migrated book holds.
    private struct Edition: Decodable {
        let title: String
        let edition: Int
    }
}
