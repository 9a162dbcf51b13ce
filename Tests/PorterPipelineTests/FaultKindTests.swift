import Foundation
import Synchronization
import XCTest

@testable import ParseModel
@testable import PorterPipeline

/// Each ``FaultKind`` comes from its case, with class, field, line, column and value as separate
/// values, and the fault handler sees every fault, not only the shown ones.
final class FaultKindTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/bad").path

    /// Collects what the fault handler is handed, across threads.
    final class Collected: Sendable {
        let faults = Mutex<[Diagnostic]>([])
        var all: [Diagnostic] { faults.withLock { $0 } }
        var handler: @Sendable (Diagnostic) -> Void { { fault in self.faults.withLock { $0.append(fault) } } }
    }

    /// The faults validating `manifest` gives, as the handler sees them; the report's faults must be the same.
    private func faults(
        _ manifest: DatasetManifest, against schemas: [ClassSchema] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> [Diagnostic] {
        let collected = Collected()
        var options = ImportOptions()
        options.faultHandler = collected.handler
        let report = try Importer(manifest: manifest, options: options).validate(against: schemas)
        XCTAssertEqual(collected.all, report.errors, "the handler sees the faults the report lists", file: file, line: line)
        XCTAssertEqual(report.faultCounts.values.reduce(0, +), report.errorCount, file: file, line: line)
        return collected.all
    }

    private struct Expected {
        let kind: FaultKind
        var className: String?
        var fieldName: String?
        let line: Int
        var column: String?
        var value: String?
    }

    private func assertFirstFault(_ fixture: String, _ expected: Expected, file: StaticString = #filePath, line: UInt = #line) throws {
        let manifest = try ManifestLoader.load((Self.fixtures as NSString).appendingPathComponent(fixture))
        let fault = try XCTUnwrap(try faults(manifest, file: file, line: line).first, "\(fixture) has a fault", file: file, line: line)
        XCTAssertEqual(fault.kind, expected.kind, "\(fixture): \(fault)", file: file, line: line)
        XCTAssertEqual(fault.location.className, expected.className, "\(fixture): \(fault)", file: file, line: line)
        XCTAssertEqual(fault.location.fieldName, expected.fieldName, "\(fixture): \(fault)", file: file, line: line)
        XCTAssertEqual(fault.location.line, expected.line, "\(fixture): \(fault)", file: file, line: line)
        XCTAssertEqual(fault.location.column, expected.column, "\(fixture): \(fault)", file: file, line: line)
        XCTAssertEqual(fault.location.value, expected.value, "\(fixture): \(fault)", file: file, line: line)
    }

    // MARK: Values

    func testValueFaults() throws {
        try assertFirstFault(
            "number-garbage",
            Expected(
                kind: .notANumber, className: "Book", fieldName: "publishingYear", line: 3,
                column: "publishing_year", value: "12abc"))
        try assertFirstFault(
            "date-invalid-iso",
            Expected(
                kind: .notADate, className: "Book", fieldName: "released", line: 3,
                column: "released", value: "2024-13-45"))
        try assertFirstFault("created-at-not-a-date", Expected(kind: .notADate, className: "Book", line: 3, column: "createdAt", value: "yesterday"))
        try assertFirstFault(
            "boolean-invalid",
            Expected(
                kind: .notABoolean, className: "Book", fieldName: "inPrint", line: 3,
                column: "in_print", value: "maybe"))
        try assertFirstFault(
            "enum-unknown-value",
            Expected(
                kind: .notAnAllowedValue, className: "Recipe", fieldName: "category", line: 3,
                column: "category", value: "brunch"))
        try assertFirstFault(
            "array-cell-not-array",
            Expected(
                kind: .wrongType, className: "Book", fieldName: "tags", line: 3,
                column: "tags", value: #"{"a": 1}"#))
        try assertFirstFault(
            "object-invalid-json",
            Expected(
                kind: .badJSON, className: "Recipe", fieldName: "nutritionalInfo", line: 3,
                column: "nutritional_info", value: "{calories: 220}"))
        try assertFirstFault(
            "bytes-not-base64",
            Expected(
                kind: .invalidValue, className: "Kitchen", fieldName: "logo", line: 3,
                column: "logo", value: "not base64!"))
        try assertFirstFault(
            "geopoint-latitude-out-of-range",
            Expected(
                kind: .invalidValue, className: "Kitchen", fieldName: "location", line: 3,
                column: "lat", value: "95"))
        try assertFirstFault(
            "required-missing",
            Expected(
                kind: .requiredValueMissing, className: "Book", fieldName: "genre", line: 3,
                column: "genre", value: ""))
        try assertFirstFault(
            "key-field-empty",
            Expected(
                kind: .keyValueMissing, className: "Book", fieldName: "title", line: 4,
                column: "title", value: ""))
        try assertFirstFault("no-key-no-objectid", Expected(kind: .objectIdMissing, className: "Author", line: 3, column: "objectId"))
        try assertFirstFault(
            "layout-password-hash-not-text",
            Expected(
                kind: .wrongType, className: "_User", fieldName: "_hashed_password", line: 2,
                column: "_hashed_password", value: "object"))
    }

    func testUploadOfAMissingFile() throws {
        let data = try TemporaryDataset([
            "dataset.yml": "classes:\n  Photo: {source: photos.csv, key: [name], fields: {name: String!, image: {type: File, upload: true}}}\n",
            "photos.csv": "name,image\nsea,sea.jpg\n",
        ])
        let fault = try XCTUnwrap(try faults(try data.load()).first)
        XCTAssertEqual(fault.kind, .badUploadFile)
        XCTAssertEqual([fault.location.className, fault.location.fieldName, fault.location.value], ["Photo", "image", "sea.jpg"])
        XCTAssertEqual(fault.location.line, 2)
    }

    // MARK: Identity and references

    func testIdentityAndReferenceFaults() throws {
        try assertFirstFault("duplicate-key", Expected(kind: .duplicateKey, className: "Book", fieldName: "title", line: 5, column: "title", value: "Dune"))
        try assertFirstFault("duplicate-objectid", Expected(kind: .duplicateObjectId, className: "Author", line: 4, column: "objectId", value: "a1"))
        try assertFirstFault(
            "dangling-pointer",
            Expected(
                kind: .danglingReference, className: "Book", fieldName: "genre", line: 4,
                column: "genre", value: "Fantasyy"))
        try assertFirstFault(
            "dangling-join-target",
            Expected(
                kind: .danglingReference, className: "Genre", fieldName: "books", line: 3,
                column: "book", value: "Dunee"))
        try assertFirstFault(
            "by-value-not-unique",
            Expected(
                kind: .ambiguousReference, className: "Rating", fieldName: "book", line: 2,
                column: "book_id", value: "2"))
        try assertFirstFault(
            "composite-key-reference-not-array",
            Expected(
                kind: .malformedReference, className: "Team", fieldName: "office", line: 3,
                column: "office", value: "Lisbon"))
        try assertFirstFault(
            "join-empty-reference",
            Expected(
                kind: .requiredValueMissing, className: "Genre", fieldName: "books", line: 3,
                column: "genre", value: ""))
    }

    func testAReferenceToARejectedRow() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Genre: {source: genres.csv, key: [name], fields: {name: String!, rank: Number}}
              Book: {source: books.csv, key: [title], fields: {title: String!, genre: Pointer<Genre>}}
            """,
            "genres.csv": "name,rank\nFantasy,first\n",
            "books.csv": "title,genre\nThe Hobbit,Fantasy\n",
        ])
        let found = try faults(try data.load())
        XCTAssertEqual(found.map(\.kind), [.notANumber, .rejectedReference])
        XCTAssertEqual(
            [found[1].location.file, found[1].location.className, found[1].location.fieldName, found[1].location.value],
            ["books.csv", "Book", "genre", "Fantasy"])
        XCTAssertEqual(found[1].location.line, 2)
    }

    // MARK: Files

    func testFileFaults() throws {
        try assertFirstFault("join-missing-column", Expected(kind: .missingColumn, className: "Genre", line: 1, column: "book"))
        try assertFirstFault("csv-ragged-row-long", Expected(kind: .raggedRow, className: "Book", line: 3))
        try assertFirstFault("csv-unterminated-quote", Expected(kind: .malformedFile, line: 3))
        try assertFirstFault("csv-duplicate-header", Expected(kind: .malformedFile, line: 1, column: "name"))
        try assertFirstFault("json-syntax-error", Expected(kind: .badJSON, line: 3))
        try assertFirstFault("csv-invalid-utf8", Expected(kind: .undecodableText, line: 3, column: "name"))
    }

    func testAStrictClassWithAnUnknownColumn() throws {
        let data = try TemporaryDataset([
            "dataset.yml": "classes:\n  Genre: {source: genres.csv, key: [name], strict: true, fields: {name: String!}}\n",
            "genres.csv": "name,colour\nFantasy,green\n",
        ])
        let fault = try XCTUnwrap(try faults(try data.load()).first)
        XCTAssertEqual(fault.kind, .unknownColumn)
        XCTAssertEqual([fault.location.className, fault.location.column], ["Genre", "colour"])
        XCTAssertNil(fault.location.fieldName)
        XCTAssertEqual(fault.description, #"genres.csv:1: column "colour": unknown column (Genre is strict)"#)
    }

    func testAnUnreadableSourceAndTheReferencesItLeavesUnchecked() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Genre: {source: genres.csv, key: [name], fields: {name: String!}}
              Book: {source: books.csv, key: [title], fields: {title: String!, genre: Pointer<Genre>}}
            """,
            "genres.csv": "name\nFantasy\n\"Horror\n",
            "books.csv": "title,genre\nThe Hobbit,Fantasy\nCarrie,Horror\n",
        ])
        let found = try faults(try data.load())
        XCTAssertEqual(found.map(\.kind), [.malformedFile, .uncheckedReferences])
        XCTAssertEqual([found[1].location.file, found[1].location.className], ["genres.csv", "Genre"])
        XCTAssertEqual(found[1].location.line, 0)
    }

    func testAMissingFileIsUnreadable() throws {
        let data = try TemporaryDataset([
            "dataset.yml": "classes:\n  Genre: {source: genres.csv, key: [name], fields: {name: String!}}\n",
            "genres.csv": "name\nFantasy\n",
        ])
        let manifest = try data.load()
        try FileManager.default.removeItem(atPath: data.path("genres.csv"))
        let fault = try XCTUnwrap(try faults(manifest).first)
        XCTAssertEqual(fault.kind, .unreadableFile)
        XCTAssertEqual(fault.location.file, "genres.csv")
    }

    // MARK: The target

    func testAFieldOfAnotherTypeInTheTarget() throws {
        let manifest = try ManifestLoader.load((Self.fixtures as NSString).appendingPathComponent("dangling-pointer"))
        let book = try XCTUnwrap(manifest.mapping(for: "Book"))
        let field = try XCTUnwrap(book.fields.first { $0.type == .string })
        let target = ClassSchema(className: "Book", fields: [SchemaField(name: field.name, type: .number)])
        let fault = try XCTUnwrap(try faults(manifest, against: [target]).first)
        XCTAssertEqual(fault.kind, .schemaConflict)
        XCTAssertEqual(
            [fault.location.className, fault.location.fieldName, fault.location.keyPath],
            ["Book", field.name, "classes.Book.fields.\(field.name)"])
        XCTAssertTrue(fault.description.hasPrefix("dataset.yml: classes.Book.fields.\(field.name): conflicts with the target"), fault.description)
    }

    // MARK: Every fault reaches the handler

    func testTheHandlerSeesEveryFaultAndTheReportCountsThemByKind() throws {
        var books = "title,year\n"
        for index in 1...120 { books += "Book \(index),year \(index)\n" }
        books += "Book 7,1999\n"
        let data = try TemporaryDataset([
            "dataset.yml": "classes:\n  Book: {source: books.csv, key: [title], fields: {title: String!, year: Number}}\n",
            "books.csv": books,
        ])
        let collected = Collected()
        var options = ImportOptions()
        options.faultHandler = collected.handler
        let report = try Importer(manifest: try data.load(), options: options).validate()
        XCTAssertEqual(report.errors.count, 50, "the report lists the first 50")
        XCTAssertEqual(report.errorCount, 121)
        XCTAssertEqual(report.faultCounts, [.notANumber: 120, .duplicateKey: 1])
        let all = collected.all
        XCTAssertEqual(all.count, 121)
        XCTAssertEqual(all.filter { $0.kind == .notANumber }.map(\.location.line), Array(2...121))
        XCTAssertEqual(all.filter { $0.kind == .notANumber }.map(\.location.value), (1...120).map { "year \($0)" })
        XCTAssertTrue(all.allSatisfy { $0.location.className == "Book" })
        XCTAssertEqual(all.last?.kind, .duplicateKey)
        XCTAssertEqual(all.last?.location.line, 122)
        XCTAssertEqual(Array(all.prefix(50)), report.errors)
    }
}

/// Library errors name the job's setting, not a command's flag.
final class LibraryErrorWordingTests: XCTestCase {
    func testAnExportIntoAFolderThatIsNotEmptyNamesTheForceSetting() throws {
        let data = try TemporaryDataset(["notes.txt": "keep me\n"])
        XCTAssertThrowsError(try ExportFolder(path: data.directory, force: false)) { error in
            let error = error as! PorterError
            XCTAssertEqual(error.cause, .invalidRequest)
            XCTAssertEqual(error.setting, .force)
            XCTAssertEqual(
                error.message,
                "\(data.directory): the folder is not empty (1 entries); an export writes into it only when forced, replacing files of the same names")
        }
        XCTAssertEqual(data.read("notes.txt"), "keep me\n")
    }
}
