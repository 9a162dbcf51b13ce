import Foundation
import ParseModel
import PorterPipeline
import PorterReaders
import PorterSQLite
import XCTest

/// Datasets whose records come from memory, imported into a real mirror file: rows of JSON
/// values, `Encodable` values, a caller's reader, pointers and join relations between them,
/// and faults that name the caller's provenance.
final class MemorySourceImportTests: MirrorTestCase {
    struct Book: Encodable {
        let title: String
        let pages: Int
        let published: Date
        let author: String
    }

    let authors = MemorySource(
        name: "authors (in memory)",
        rows: [
            ["name": .string("Ursula K. Le Guin"), "born": .integer(1929)],
            ["name": .string("Stanisław Lem"), "born": .integer(1921)],
        ])

    let authorClass = { (records: MemorySource) in
        ClassMapping(
            className: "Author", records: records, key: ["name"],
            fields: [
                FieldMapping(name: "name", type: .string, required: true), FieldMapping(name: "born", type: .number),
            ])
    }

    let bookFields = [
        FieldMapping(name: "title", type: .string, required: true), FieldMapping(name: "pages", type: .number),
        FieldMapping(name: "published", type: .date), FieldMapping(name: "author", type: .pointer(targetClass: "Author")),
    ]

    func date(_ iso: String) -> Date { ISO8601DateFormatter().date(from: iso)! }

    /// Rows of JSON values and `Encodable` structs, a pointer from one in-memory class to the
    /// other, and a relation from in-memory join rows, all in the mirror file afterwards.
    func testRowsEncodablesPointersAndAJoinRelationIntoAMirror() throws {
        let books = MemorySource(
            name: "books (in memory)",
            encoding: [
                Book(title: "The Dispossessed", pages: 387, published: date("1974-05-01T00:00:00Z"), author: "Ursula K. Le Guin"),
                Book(title: "Solaris", pages: 204, published: date("1961-06-15T12:30:00Z"), author: "Stanisław Lem"),
            ])
        let shelves = MemorySource(name: "shelves (in memory)", rows: [["name": .string("Classics")], ["name": .string("Unread")]])
        let shelved = MemorySource(
            name: "shelved (in memory)",
            rows: [
                ["shelf": .string("Classics"), "book": .string("Solaris")], ["shelf": .string("Classics"), "book": .string("The Dispossessed")],
                ["shelf": .string("Unread"), "book": .string("Solaris")],
            ])
        let manifest = DatasetManifest(
            classes: [
                authorClass(authors),
                ClassMapping(className: "Book", records: books, key: ["title"], fields: bookFields),
                ClassMapping(className: "Shelf", records: shelves, key: ["name"], fields: [FieldMapping(name: "name", type: .string)]),
            ],
            relations: [
                JoinRelationMapping(owner: "Shelf", field: "books", targetClass: "Book", records: shelved, ownerColumn: "shelf", targetColumn: "book")
            ])
        XCTAssertEqual(manifest.faults(), [])

        let report = try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))
        XCTAssertTrue(report.committed, report.errors.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(try rows("SELECT name, born FROM Author ORDER BY name"), [["Stanisław Lem", "1921"], ["Ursula K. Le Guin", "1929"]])
        XCTAssertEqual(
            try rows(
                """
                SELECT Book.title, Book.pages, Book.published, Author.name FROM Book JOIN Author ON Author.objectId = Book.author ORDER BY Book.title
                """),
            [
                ["Solaris", "204", "1961-06-15T12:30:00.000Z", "Stanisław Lem"],
                ["The Dispossessed", "387", "1974-05-01T00:00:00.000Z", "Ursula K. Le Guin"],
            ])
        XCTAssertEqual(
            try rows(
                """
                SELECT Shelf.name, Book.title FROM "_Join:books:Shelf" AS link
                JOIN Shelf ON Shelf.objectId = link.owningId JOIN Book ON Book.objectId = link.relatedId ORDER BY Shelf.name, Book.title
                """), [["Classics", "Solaris"], ["Classics", "The Dispossessed"], ["Unread", "Solaris"]])
    }

    /// A `Date` with milliseconds keeps them: Parse stores dates to the millisecond, and the
    /// default encoder writes them (`.iso8601` alone would drop them).
    func testADateKeepsItsMilliseconds() throws {
        let published = Date(timeIntervalSince1970: 1_700_000_000.123)
        let books = MemorySource(
            name: "books (in memory)",
            encoding: [
                Book(title: "Solaris", pages: 204, published: published, author: "Stanisław Lem")
            ])
        let manifest = DatasetManifest(classes: [
            authorClass(authors), ClassMapping(className: "Book", records: books, key: ["title"], fields: bookFields),
        ])
        XCTAssertTrue(try Importer(manifest: manifest).run(into: SQLiteMirror(path: path)).committed)
        XCTAssertEqual(try rows("SELECT published FROM Book"), [["2023-11-14T22:13:20.123Z"]])
        let stored = try XCTUnwrap(ParseDate(iso: try XCTUnwrap(rows("SELECT published FROM Book").first?.first ?? nil)))
        XCTAssertEqual(stored.date, published, "read back, the date is the one given")
    }

    /// A class read from a file and one from memory in one manifest, the memory class pointing
    /// at the file class; the file is named relative to the manifest's directory.
    func testAFileClassAndAMemoryClassInOneManifest() throws {
        try "name,born\nUrsula K. Le Guin,1929\nStanisław Lem,1921\n".write(
            to: directory.appendingPathComponent("authors.csv"), atomically: true, encoding: .utf8)
        var fromFile = ClassMapping(className: "Author", source: "authors.csv", key: ["name"], fields: authorClass(authors).fields)
        fromFile.strict = true
        let books = MemorySource(
            name: "books (in memory)",
            rows: [["title": .string("Solaris"), "pages": .integer(204), "published": .string("1961-06-15"), "author": .string("Stanisław Lem")]])
        let manifest = DatasetManifest(
            classes: [ClassMapping(className: "Book", records: books, key: ["title"], fields: bookFields), fromFile],
            directory: directory.path)

        let report = try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))
        XCTAssertTrue(report.committed, report.errors.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(
            try rows("SELECT Book.title, Book.pages, Author.name, Author.born FROM Book JOIN Author ON Author.objectId = Book.author"),
            [["Solaris", "204", "Stanisław Lem", "1921"]])
        XCTAssertEqual(try rows("SELECT count(*) FROM Author"), [["2"]])
    }

    /// A value no field type takes, in the second row: the fault names the caller's source and
    /// row, field and value, and nothing is written.
    func testAFaultNamesTheSourceAndRow() throws {
        let books = MemorySource(
            name: "books (in memory)",
            rows: [
                ["title": .string("Solaris"), "pages": .integer(204)],
                ["title": .string("Fiasco"), "pages": .string("many")],
            ])
        let manifest = DatasetManifest(classes: [
            ClassMapping(
                className: "Book", records: books, key: ["title"],
                fields: [FieldMapping(name: "title", type: .string), FieldMapping(name: "pages", type: .number)])
        ])
        let report = try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))
        XCTAssertFalse(report.committed)
        XCTAssertEqual(report.errorCount, 1)
        let fault = try XCTUnwrap(report.errors.first)
        XCTAssertEqual(fault.location.file, "books (in memory)")
        XCTAssertEqual(fault.location.line, 2)
        XCTAssertEqual(fault.location.value, "many")
        XCTAssertTrue(fault.description.hasPrefix("books (in memory):2: column \"pages\" (Book.pages): value \"many\""), fault.description)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "a failed import created the mirror")
    }

    /// A value that does not encode as a JSON object ends its source at its row, named as the caller named it.
    func testAnEncodableThatIsNoObjectIsAFaultAtItsRow() throws {
        let titles = MemorySource(name: "titles (in memory)", encoding: [["title": "Solaris"], ["title": "Fiasco"]] as [[String: String]])
        let numbers = MemorySource(name: "numbers (in memory)", encoding: [1, 2])
        let manifest = DatasetManifest(classes: [
            ClassMapping(className: "Title", records: titles, key: ["title"], fields: [FieldMapping(name: "title", type: .string)]),
            ClassMapping(className: "Count", records: numbers, key: ["n"], fields: [FieldMapping(name: "n", type: .number, required: true)]),
        ])
        let report = try Importer(manifest: manifest).validate()
        XCTAssertFalse(report.succeeded)
        XCTAssertEqual(report.errors.map(\.description), ["numbers (in memory):1: record is not a JSON object"])
        XCTAssertEqual(report.classes.first { $0.className == "Title" }?.read, 2)
    }

    /// Rows that lack a column a field reads are refused as a JSON file's records are: the
    /// manifest fault names the field's key path and the caller's source.
    func testTheColumnCheckAppliesToRowsFromMemory() throws {
        let books = MemorySource(
            name: "books (in memory)", rows: [["title": .string("Solaris"), "page": .integer(204)], ["title": .string("Fiasco"), "page": .integer(300)]])
        let manifest = DatasetManifest(classes: [
            ClassMapping(
                className: "Book", records: books, key: ["title"],
                fields: [FieldMapping(name: "title", type: .string), FieldMapping(name: "pages", type: .number)])
        ])
        XCTAssertThrowsError(try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))) { error in
            let fault = (error as? PorterError)?.manifestFaults.first
            XCTAssertEqual(fault?.file, nil)
            XCTAssertEqual(fault?.keyPath, ["classes", "Book", "fields", "pages"])
            XCTAssertEqual(
                fault?.message, "none of the 2 records of books (in memory) has \"pages\"; their keys are \"page\", \"title\"; did you mean \"page\"?")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// A caller's reader (here the CSV reader over a file it opened itself) feeds a class; its
    /// faults are named by the source's name, not the reader's.
    func testACallersReaderIsASource() throws {
        let file = directory.appendingPathComponent("people.csv").path
        try "name,born\nAda,1815\n\"Grace,1906\n".write(toFile: file, atomically: true, encoding: .utf8)
        let people = MemorySource(name: "people (from my reader)") { try CSVReader(path: file, displayName: "whatever.csv") }
        let manifest = DatasetManifest(classes: [
            ClassMapping(
                className: "Person", records: people, key: ["name"],
                fields: [FieldMapping(name: "name", type: .string), FieldMapping(name: "born", type: .number)])
        ])
        let report = try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))
        XCTAssertFalse(report.committed)
        XCTAssertEqual(report.errors.map(\.location.file), ["people (from my reader)"])
        XCTAssertEqual(report.errors.first?.location.line, 3)

        try "name,born\nAda,1815\nGrace,1906\n".write(toFile: file, atomically: true, encoding: .utf8)
        let again = try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))
        XCTAssertTrue(again.committed, again.errors.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(try rows("SELECT name, born FROM Person ORDER BY name"), [["Ada", "1815"], ["Grace", "1906"]])
    }

    /// The column check applies to the CSV records of a caller's reader too, at its first record.
    func testTheColumnCheckAppliesToACallersCSVReader() throws {
        let file = directory.appendingPathComponent("people.csv").path
        try "name,year\nAda,1815\n".write(toFile: file, atomically: true, encoding: .utf8)
        let people = MemorySource(name: "people (from my reader)") { try CSVReader(path: file, displayName: "people.csv") }
        let manifest = DatasetManifest(classes: [
            ClassMapping(
                className: "Person", records: people, key: ["name"],
                fields: [FieldMapping(name: "name", type: .string), FieldMapping(name: "born", type: .number)])
        ])
        XCTAssertThrowsError(try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))) { error in
            XCTAssertEqual(
                (error as? PorterError)?.manifestFaults,
                [
                    ManifestFault(
                        file: nil, keyPath: ["classes", "Person", "fields", "born"],
                        message:
                            "people (from my reader) has no column \"born\"; its header is \"name\", \"year\"; give the field optional: true if the source may lack it"
                    )
                ])
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// A class extracted from the distinct values of a column of in-memory rows, read in the
    /// same pass as the class that points at it.
    func testAClassExtractedFromRowsInMemory() throws {
        let books = MemorySource(
            name: "books (in memory)",
            rows: [
                ["title": .string("Solaris"), "publisher": .string("MON")],
                ["title": .string("Fiasco"), "publisher": .string("Wydawnictwo Literackie")],
                ["title": .string("Eden"), "publisher": .string("MON")],
            ])
        var publisher = ClassMapping(className: "Publisher", records: books, key: [], fields: [FieldMapping(name: "name", type: .string)])
        publisher.extract = ValueExtraction(column: "publisher")
        let book = ClassMapping(
            className: "Book", records: books, key: ["title"],
            fields: [
                FieldMapping(name: "title", type: .string), FieldMapping(name: "publisher", type: .pointer(targetClass: "Publisher")),
            ])
        let manifest = DatasetManifest(classes: [book, publisher])
        XCTAssertEqual(manifest.faults(), [])

        let report = try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))
        XCTAssertTrue(report.committed, report.errors.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(try rows("SELECT name FROM Publisher ORDER BY name"), [["MON"], ["Wydawnictwo Literackie"]])
        XCTAssertEqual(
            try rows("SELECT Book.title, Publisher.name FROM Book JOIN Publisher ON Publisher.objectId = Book.publisher ORDER BY Book.title"),
            [["Eden", "MON"], ["Fiasco", "Wydawnictwo Literackie"], ["Solaris", "MON"]])
    }

    /// A manifest built in code with a fault is refused before the target is touched: no mirror file.
    func testABadManifestCreatesNoMirror() {
        let manifest = DatasetManifest(classes: [
            ClassMapping(className: "Bo ok", records: authors, key: ["name"], fields: [FieldMapping(name: "name", type: .string)])
        ])
        XCTAssertThrowsError(try Importer(manifest: manifest).run(into: SQLiteMirror(path: path))) { error in
            XCTAssertEqual((error as? PorterError)?.manifestFaults.map(\.keyPath), [["classes", "Bo ok"]])
            XCTAssertEqual((error as? PorterError)?.cause, .invalidRequest)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    /// A manifest with memory sources crosses to another task (the import may run anywhere).
    func testAManifestFromMemoryImportsInAnotherTask() async throws {
        let manifest = DatasetManifest(classes: [authorClass(authors)])
        let path = self.path
        let report = try await Task.detached { try Importer(manifest: manifest).run(into: SQLiteMirror(path: path)) }.value
        XCTAssertTrue(report.committed)
        XCTAssertEqual(try rows("SELECT count(*) FROM Author"), [["2"]])
    }
}
