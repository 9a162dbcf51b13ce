import Foundation
import XCTest

@testable import ParseModel
@testable import PorterPipeline

/// A sink that keeps objects in memory and records every call the importer makes.
final class MemorySink: ObjectSink {
    enum Call: Equatable, CustomStringConvertible {
        case begin([String])
        case write(String, count: Int)
        case patch(String, String, count: Int)
        case link(String, String, count: Int)
        case commit
        case rollback

        var description: String {
            switch self {
            case .begin(let classes): "begin \(classes.joined(separator: ","))"
            case .write(let className, let count): "write \(className) \(count)"
            case .patch(let className, let field, let count): "patch \(className).\(field) \(count)"
            case .link(let className, let field, let count): "link \(className).\(field) \(count)"
            case .commit: "commit"
            case .rollback: "rollback"
            }
        }
    }

    struct Patch: Equatable {
        let className: String
        let field: String
        let objectId: String
        let value: ParseValue
    }

    struct Link: Equatable {
        let owner: String
        let field: String
        let ownerId: String
        let relatedIds: [String]
    }

    /// The schemas ``existingSchemas()`` reports.
    var existing: [ClassSchema] = []
    private(set) var calls: [Call] = []
    /// The write mode of each `write` call, by class.
    private(set) var modes: [String: WriteMode] = [:]
    /// Objects by class and objectId, as committed.
    private(set) var committed: [String: [String: [FieldValue]]] = [:]
    private var pending: [String: [String: [FieldValue]]] = [:]
    /// Every object, patch and link sent, in order (also those rolled back).
    private(set) var written: [String: [ResolvedObject]] = [:]
    private(set) var patches: [Patch] = []
    private(set) var links: [Link] = []

    func existingSchemas() throws(PorterError) -> [ClassSchema] { existing }

    func begin(schemas: [ClassSchema], naturalKeys: [String: [String]]) throws(PorterError) {
        calls.append(.begin(schemas.map(\.className)))
        pending = committed
    }

    func write(_ objects: [ResolvedObject], className: String, mode: WriteMode) throws(PorterError) -> [WriteOutcome] {
        calls.append(.write(className, count: objects.count))
        modes[className] = mode
        written[className, default: []] += objects
        return objects.map { object in
            let previous = pending[className]?[object.objectId]
            pending[className, default: [:]][object.objectId] = object.fields
            if previous == nil { return .inserted }
            return previous == object.fields ? .unchanged : .updated
        }
    }

    func patch(className: String, field: String, values: [(objectId: String, value: ParseValue)]) throws(PorterError) -> [WriteOutcome] {
        calls.append(.patch(className, field, count: values.count))
        patches += values.map { Patch(className: className, field: field, objectId: $0.objectId, value: $0.value) }
        return values.map { _ in .updated }
    }

    func link(owner className: String, field: String, targetClass: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) -> LinkChanges {
        calls.append(.link(className, field, count: links.count))
        self.links += links.map { Link(owner: className, field: field, ownerId: $0.ownerId, relatedIds: $0.relatedIds) }
        return LinkChanges(added: links.reduce(0) { $0 + $1.relatedIds.count })
    }

    func hasObject(className: String, objectId: String) throws(PorterError) -> Bool { false }
    /// Files keep the names the import gives them: an in-memory target has nowhere else to put them.
    func store(_ files: [LocalFile]) throws(PorterError) -> [String: ParseFile] {
        Dictionary(uniqueKeysWithValues: files.map { ($0.storedName, ParseFile(name: $0.storedName)) })
    }
    func flush() throws(PorterError) -> [String: LinkChanges] { [:] }

    func commit() throws(PorterError) {
        calls.append(.commit)
        committed = pending
    }

    func rollback() {
        calls.append(.rollback)
        pending = committed
    }

    /// The written fields of one object, by field name.
    func fields(_ className: String, _ objectId: String) -> [String: ParseValue]? {
        guard let object = written[className]?.last(where: { $0.objectId == objectId }) else { return nil }
        return Dictionary(uniqueKeysWithValues: object.fields.map { ($0.name, $0.value) })
    }
}

final class ImporterTests: XCTestCase {
    // MARK: Helpers

    private func id(_ className: String, _ key: String) -> String { KeyHash(className: className, key: key).objectId }

    private func pointer(_ className: String, _ key: String) -> ParseValue {
        .pointer(PointerRef(className: className, objectId: id(className, key)))
    }

    private func run(_ data: TemporaryDataset, into sink: MemorySink, _ options: ImportOptions = ImportOptions()) throws -> ImportReport {
        try Importer(manifest: try data.load(), options: options).run(into: sink)
    }

    private func tally(_ report: ImportReport, _ className: String) -> ImportReport.ClassTally? {
        report.classes.first { $0.className == className }
    }

    static let libraryManifest = """
        version: 1
        classes:
          Genre:
            source: genres.csv
            key: [name]
            fields:
              name: String!
          Author:
            source: authors.csv
            key: [name]
            fields:
              name: String!
          Book:
            source: books.csv
            key: [title]
            fields:
              title: String!
              year: Number
              genre: Pointer<Genre>
              authors: {type: Relation<Author>, split: ";"}
        """

    private func library(books: String, genres: String = "name\nFantasy\nScience Fiction\n") throws -> TemporaryDataset {
        try TemporaryDataset([
            "dataset.yml": Self.libraryManifest,
            "genres.csv": genres,
            "authors.csv": "name\nTolkien\nHerbert\nLewis\n",
            "books.csv": books,
        ])
    }

    // MARK: Valid datasets

    func testValidDatasetCommitsWithResolvedPointers() throws {
        let data = try library(
            books: """
                title,year,genre,authors
                The Hobbit,1937,Fantasy,Tolkien
                Dune,1965,Science Fiction,Herbert
                Narnia,1950,Fantasy,Lewis; Tolkien
                """)
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertTrue(report.committed)
        XCTAssertEqual(report.errorCount, 0)
        XCTAssertEqual(report.errors.map(\.description), [])
        XCTAssertEqual(
            sink.calls.map(\.description),
            ["begin Genre,Author,Book", "write Genre 2", "write Author 3", "write Book 3", "link Book.authors 3", "commit"])
        XCTAssertEqual(sink.committed["Book"]?.count, 3)
        XCTAssertEqual(sink.written["Book"]?.map(\.objectId), [id("Book", "The Hobbit"), id("Book", "Dune"), id("Book", "Narnia")])
        XCTAssertEqual(sink.written["Book"]?.map(\.line), [2, 3, 4])
        XCTAssertEqual(
            sink.fields("Book", id("Book", "The Hobbit")),
            ["title": .string("The Hobbit"), "year": .integer(1937), "genre": pointer("Genre", "Fantasy")])
        XCTAssertEqual(sink.fields("Book", id("Book", "Dune"))?["genre"], pointer("Genre", "Science Fiction"))
        XCTAssertEqual(sink.written["Genre"]?.map(\.objectId), [id("Genre", "Fantasy"), id("Genre", "Science Fiction")])
        XCTAssertEqual(
            sink.links,
            [
                .init(owner: "Book", field: "authors", ownerId: id("Book", "The Hobbit"), relatedIds: [id("Author", "Tolkien")]),
                .init(owner: "Book", field: "authors", ownerId: id("Book", "Dune"), relatedIds: [id("Author", "Herbert")]),
                .init(owner: "Book", field: "authors", ownerId: id("Book", "Narnia"), relatedIds: [id("Author", "Lewis"), id("Author", "Tolkien")]),
            ])
        XCTAssertEqual(tally(report, "Genre"), .init(className: "Genre", read: 2, inserted: 2))
        XCTAssertEqual(tally(report, "Book"), .init(className: "Book", read: 3, inserted: 3))
        XCTAssertEqual(report.relations, [.init(relation: "Book.authors", added: 4)])
        XCTAssertEqual(report.rejectFiles, [])

        // Importing the same dataset again changes nothing.
        let again = try run(data, into: sink)
        XCTAssertTrue(again.committed)
        XCTAssertEqual(tally(again, "Genre"), .init(className: "Genre", read: 2, unchanged: 2))
        XCTAssertEqual(tally(again, "Book"), .init(className: "Book", read: 3, unchanged: 3))
        XCTAssertEqual(sink.committed["Book"]?.count, 3)
    }

    func testDryRunRollsBackAndStillCounts() throws {
        let data = try library(books: "title,year,genre,authors\nThe Hobbit,1937,Fantasy,Tolkien\n")
        let sink = MemorySink()
        let report = try run(data, into: sink, ImportOptions(dryRun: true))
        XCTAssertFalse(report.committed)
        XCTAssertEqual(report.errorCount, 0)
        XCTAssertEqual(sink.calls.last, .rollback)
        XCTAssertFalse(sink.calls.contains(.commit))
        XCTAssertEqual(sink.committed, [:])
        XCTAssertEqual(tally(report, "Genre"), .init(className: "Genre", read: 2, inserted: 2))
        XCTAssertEqual(tally(report, "Author"), .init(className: "Author", read: 3, inserted: 3))
        XCTAssertEqual(tally(report, "Book"), .init(className: "Book", read: 1, inserted: 1))
        XCTAssertEqual(report.relations, [.init(relation: "Book.authors", added: 1)])
    }

    // MARK: Invalid datasets

    func testInvalidDatasetRollsBackAndListsDiagnostics() throws {
        let data = try library(
            books: """
                title,year,genre,authors
                The Hobbit,1937,Fantasy,Tolkien
                Lost Book,1999,Horror,Tolkien
                Dune,soon,Science Fiction,Herbert
                Narnia,1950,Fantasy,Nobody
                """)
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertFalse(report.committed)
        XCTAssertFalse(sink.calls.contains(.commit), "\(sink.calls)")
        XCTAssertEqual(sink.calls.last, .rollback)
        XCTAssertEqual(sink.committed, [:])
        XCTAssertNil(sink.written["Book"], "nothing of a faulty class reaches the sink")
        XCTAssertEqual(report.errorCount, 3)
        XCTAssertEqual(
            report.errors.map(\.description),
            [
                #"books.csv:3: column "genre" (Book.genre): value "Horror": no Genre has key "Horror""#,
                #"books.csv:4: column "year" (Book.year): value "soon": not a number"#,
                #"books.csv:5: column "authors" (Book.authors): value "Nobody": no Author has key "Nobody""#,
            ])
        XCTAssertEqual(tally(report, "Book")?.rejected, 3)
    }

    func testFaultInTheFirstClassWritesNothing() throws {
        let data = try library(
            books: "title,year,genre,authors\nThe Hobbit,1937,Fantasy,Tolkien\n",
            genres: "name\nFantasy\n\"\"\n")
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertFalse(report.committed)
        XCTAssertEqual(sink.calls.map(\.description), ["begin Genre,Author,Book", "rollback"])
        XCTAssertEqual(report.errors.map(\.description), [#"genres.csv:3: column "name" (Genre.name): value "": required field is missing"#])
    }

    func testDuplicateNaturalKey() throws {
        let data = try library(
            books: "title,year,genre,authors\nThe Hobbit,1937,Fantasy,Tolkien\n",
            genres: "name\nFantasy\nHorror\nFantasy\n")
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertFalse(report.committed)
        XCTAssertFalse(sink.calls.contains(.commit))
        XCTAssertEqual(
            report.errors.first?.description,
            #"genres.csv:4: column "name" (Genre.name): value "Fantasy": duplicate key, first seen at line 2"#)
    }

    /// The duplicate row is the faulty one: the first row with the key stays valid, and so do
    /// the rows pointing at that key.
    func testDuplicateKeyDoesNotRejectTheFirstRow() throws {
        let data = try library(
            books: "title,year,genre,authors\nThe Hobbit,1937,Fantasy,Tolkien\n",
            genres: "name\nFantasy\nHorror\nFantasy\n")
        let validation = try Importer(manifest: try data.load()).validate()
        XCTAssertEqual(
            validation.errors.map(\.description),
            [#"genres.csv:4: column "name" (Genre.name): value "Fantasy": duplicate key, first seen at line 2"#])

        let sink = MemorySink()
        let report = try run(data, into: sink, ImportOptions(maxErrors: 5, rejectsDirectory: data.path("rejects")))
        XCTAssertTrue(report.committed)
        XCTAssertEqual(tally(report, "Genre")?.rejected, 1)
        XCTAssertEqual(tally(report, "Book")?.rejected, 0, "The Hobbit points at the first Fantasy (line 2), which is valid")
        XCTAssertEqual(sink.fields("Book", id("Book", "The Hobbit"))?["genre"], pointer("Genre", "Fantasy"))
        XCTAssertEqual(report.rejectFiles, [data.path("rejects/Genre.csv")])
    }

    func testDuplicateObjectIdDoesNotRejectTheFirstRow() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Genre: {source: genres.csv, fields: {name: String!}}
              Book: {source: books.csv, key: [title], fields: {title: String!, genre: Pointer<Genre>}}
            """,
            "genres.csv": "objectId,name\ng1,Fantasy\ng1,Fantasy again\n",
            "books.csv": #"title,genre\#nThe Hobbit,"{""__type"":""Pointer"",""className"":""Genre"",""objectId"":""g1""}"\#n"#,
        ])
        let report = try Importer(manifest: try data.load()).validate()
        XCTAssertEqual(
            report.errors.map(\.description),
            [#"genres.csv:3: column "objectId": value "g1": duplicate objectId, first seen at line 2"#])
    }

    func testValidateReportsWithoutASink() throws {
        let data = try library(books: "title,year,genre,authors\nLost Book,1999,Horror,Tolkien\n")
        let report = try Importer(manifest: try data.load()).validate()
        XCTAssertFalse(report.committed)
        XCTAssertEqual(report.errors.map(\.description), [#"books.csv:2: column "genre" (Book.genre): value "Horror": no Genre has key "Horror""#])
    }

    /// References left for later (a pointer to the class's own objects, links to objects that
    /// may come further down) outlive their record: read as key hashes, they keep their text
    /// for the messages worded once every class is read (a missing object, a rejected one).
    func testDeferredReferencesKeepTheirKeyTextForMessages() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Employee:
                source: staff.csv
                key: [name]
                fields: {name: String!, manager: Pointer<Employee>, mentors: {type: Relation<Employee>, split: ";"}}
            """,
            "staff.csv": """
            name,manager,mentors
            Ada Lovelace-Byron,Charles Babbage the Elder,Grace Brewster Hopper; Ada Lovelace-Byron
            Charles Babbage the Elder,Somebody Not On The Staff,Ada Lovelace-Byron;Nobody Of That Name At All

            """,
        ])
        let report = try Importer(manifest: try data.load()).validate()
        XCTAssertEqual(
            report.errors.map(\.description).sorted(),
            [
                #"staff.csv:2: column "mentors" (Employee.mentors): value "Grace Brewster Hopper": no Employee has key "Grace Brewster Hopper""#,
                #"staff.csv:3: column "manager" (Employee.manager): value "Somebody Not On The Staff": no Employee has key "Somebody Not On The Staff""#,
                #"staff.csv:3: column "mentors" (Employee.mentors): value "Ada Lovelace-Byron": points to Employee "Ada Lovelace-Byron" (line 2), which is rejected"#,
                #"staff.csv:3: column "mentors" (Employee.mentors): value "Nobody Of That Name At All": no Employee has key "Nobody Of That Name At All""#,
            ])
    }

    // MARK: --max-errors

    private func reviewedLibrary() throws -> TemporaryDataset {
        try TemporaryDataset([
            "dataset.yml": """
            classes:
              Genre: {source: genres.csv, key: [name], fields: {name: String!}}
              Book: {source: books.csv, key: [title], fields: {title: String!, genre: Pointer<Genre>}}
              Review: {source: reviews.csv, key: [text], fields: {text: String!, book: Pointer<Book>}}
            """,
            "genres.csv": "name\nFantasy\n",
            "books.csv": "title,genre\nThe Hobbit,Fantasy\nLost Book,Horror\nDune,\n",
            "reviews.csv": "text,book\nGreat,The Hobbit\n\"Meh, really\",Lost Book\nFine,Dune\n",
        ])
    }

    func testMaxErrorsRejectsDanglingRowsAndTheRowsPointingAtThem() throws {
        let data = try reviewedLibrary()
        let sink = MemorySink()
        let rejects = data.path("rejects")
        let report = try run(data, into: sink, ImportOptions(maxErrors: 5, rejectsDirectory: rejects))
        XCTAssertTrue(report.committed)
        XCTAssertEqual(sink.calls.last, .commit)
        XCTAssertEqual(report.errorCount, 2)
        XCTAssertEqual(sink.written["Book"]?.map(\.objectId), [id("Book", "The Hobbit"), id("Book", "Dune")])
        XCTAssertEqual(sink.written["Review"]?.map(\.objectId), [id("Review", "Great"), id("Review", "Fine")])
        XCTAssertEqual(sink.fields("Review", id("Review", "Great"))?["book"], pointer("Book", "The Hobbit"))
        XCTAssertEqual(sink.committed["Review"]?.count, 2)
        XCTAssertEqual(tally(report, "Book"), .init(className: "Book", read: 3, inserted: 2, rejected: 1))
        XCTAssertEqual(tally(report, "Review"), .init(className: "Review", read: 3, inserted: 2, rejected: 1))

        XCTAssertEqual(report.rejectFiles.sorted(), [data.path("rejects/Book.csv"), data.path("rejects/Review.csv")])
        XCTAssertEqual(data.read("rejects/Book.csv"), "_line,title,genre,_error\n" + #"3,Lost Book,Horror,"no Genre has key ""Horror""""# + "\n")
        let reviewRejects = try XCTUnwrap(data.read("rejects/Review.csv"))
        let lines = reviewRejects.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, reviewRejects)
        XCTAssertEqual(lines.first, "_line,text,book,_error")
        XCTAssertTrue(lines.last?.hasPrefix(#"3,"Meh, really",Lost Book,"#) == true, reviewRejects)
        XCTAssertTrue(lines.last?.contains("Lost Book") == true && lines.last?.contains("rejected") == true, reviewRejects)
    }

    func testMaxErrorsReportListsTheRejectedRows() throws {
        let data = try reviewedLibrary()
        let report = try run(data, into: MemorySink(), ImportOptions(maxErrors: 5, rejectsDirectory: data.path("rejects")))
        XCTAssertTrue(report.committed)
        XCTAssertEqual(report.errorCount, 2)
        // Every counted fault is listed (the command prints `report.errors`, then "… and N more").
        XCTAssertEqual(report.errors.count, report.errorCount, "\(report.errors)")
        XCTAssertEqual(report.errors.first?.description, #"books.csv:3: column "genre" (Book.genre): value "Horror": no Genre has key "Horror""#)
    }

    /// A row refused for a bad value is still a row of its file: rows pointing at it are told so.
    func testRowsPointingAtARowWithABadValueSayItIsRejected() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Book: {source: books.csv, key: [title], fields: {title: String!, year: Number}}
              Review: {source: reviews.csv, key: [text], fields: {text: String!, book: Pointer<Book>}}
            """,
            "books.csv": "title,year\nDune,1965\nBad Year,soon\n",
            "reviews.csv": "text,book\nGreat,Dune\nMeh,Bad Year\n",
        ])
        let report = try Importer(manifest: try data.load()).validate()
        XCTAssertEqual(
            report.errors.map(\.description),
            [
                #"books.csv:3: column "year" (Book.year): value "soon": not a number"#,
                #"reviews.csv:3: column "book" (Review.book): value "Bad Year": points to Book "Bad Year" (line 3), which is rejected"#,
            ])
    }

    func testMoreRejectsThanMaxErrorsCommitsNothing() throws {
        let data = try reviewedLibrary()
        let sink = MemorySink()
        let report = try run(data, into: sink, ImportOptions(maxErrors: 1, rejectsDirectory: data.path("rejects")))
        XCTAssertFalse(report.committed)
        XCTAssertFalse(sink.calls.contains(.commit), "\(sink.calls)")
        XCTAssertEqual(sink.committed, [:])
        XCTAssertTrue(sink.written.isEmpty, "\(sink.calls)")
        XCTAssertEqual(report.errors.last?.description, "dataset.yml: 2 rows rejected, more than the 1 allowed: nothing written")
        XCTAssertEqual(report.errors.last?.kind, .tooManyRejectedRows)
        XCTAssertEqual(report.faultCounts, [.danglingReference: 1, .rejectedReference: 1, .tooManyRejectedRows: 1])
        XCTAssertEqual(report.errors.first?.description, #"books.csv:3: column "genre" (Book.genre): value "Horror": no Genre has key "Horror""#)
        XCTAssertEqual(report.errorCount, 3)
        XCTAssertFalse(data.exists("rejects"))
    }

    func testMaxErrorsCascadesThroughDeferredReferences() throws {
        // Genre ⇄ Book is a cycle: Genre.best (pointing at the later class) is resolved after every
        // row is read, so Horror is found to point at a rejected book only then, and is rejected too.
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Genre: {source: genres.csv, key: [name], fields: {name: String!, best: Pointer<Book>}}
              Book: {source: books.csv, key: [title], fields: {title: String!, genre: Pointer<Genre>, year: Number}}
            """,
            "genres.csv": "name,best\nFantasy,The Hobbit\nHorror,Bad Year\n",
            "books.csv": "title,genre,year\nThe Hobbit,Fantasy,1937\nBad Year,Horror,soon\n",
        ])
        let sink = MemorySink()
        let report = try run(data, into: sink, ImportOptions(maxErrors: 5, rejectsDirectory: data.path("rejects")))
        XCTAssertTrue(report.committed)
        XCTAssertEqual(tally(report, "Book")?.rejected, 1)
        XCTAssertEqual(tally(report, "Genre")?.rejected, 1, "Horror points at the rejected book")
        XCTAssertEqual(sink.committed["Genre"].map { Set($0.keys) }, [id("Genre", "Fantasy")])
        XCTAssertEqual(sink.committed["Book"].map { Set($0.keys) }, [id("Book", "The Hobbit")])
        XCTAssertEqual(
            sink.patches,
            [
                .init(className: "Genre", field: "best", objectId: id("Genre", "Fantasy"), value: pointer("Book", "The Hobbit"))
            ])
    }

    // MARK: Cycles

    func testSelfPointerIsWrittenWithoutTheFieldThenPatched() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Employee:
                source: employees.csv
                key: [name]
                fields: {name: String!, manager: Pointer<Employee>, age: Number}
            """,
            "employees.csv": "name,manager,age\nAlice,Bob,40\nBob,,50\nCarol,Alice,30\n",
        ])
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertTrue(report.committed, "\(report.errors)")
        XCTAssertEqual(sink.calls.map(\.description), ["begin Employee", "write Employee 3", "patch Employee.manager 3", "commit"])
        XCTAssertEqual(sink.fields("Employee", id("Employee", "Alice")), ["name": .string("Alice"), "age": .integer(40)])
        XCTAssertEqual(sink.fields("Employee", id("Employee", "Carol")), ["name": .string("Carol"), "age": .integer(30)])
        XCTAssertEqual(
            sink.patches,
            [
                .init(className: "Employee", field: "manager", objectId: id("Employee", "Alice"), value: pointer("Employee", "Bob")),
                .init(className: "Employee", field: "manager", objectId: id("Employee", "Bob"), value: .null),
                .init(className: "Employee", field: "manager", objectId: id("Employee", "Carol"), value: pointer("Employee", "Alice")),
            ])
    }

    func testDanglingSelfPointerIsReported() throws {
        let data = try TemporaryDataset([
            "dataset.yml": "classes: {Employee: {source: employees.csv, key: [name], fields: {name: String!, manager: Pointer<Employee>}}}",
            "employees.csv": "name,manager\nAlice,Zed\n",
        ])
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertFalse(report.committed)
        XCTAssertFalse(sink.calls.contains(.commit))
        XCTAssertEqual(sink.patches, [])
        XCTAssertEqual(
            report.errors.map(\.description),
            [#"employees.csv:2: column "manager" (Employee.manager): value "Zed": no Employee has key "Zed""#])
    }

    // MARK: Relations, ACLs, strict mode, schema conflicts

    func testRelationToALaterClassIsLinkedAfterItsTargetsAreWritten() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Genre: {source: genres.csv, key: [name], mode: merge, fields: {name: String!, classics: {type: Relation<Book>, split: "|"}}}
              Book: {source: books.csv, key: [title], fields: {title: String!, genre: Pointer<Genre>}}
            """,
            "genres.csv": "name,classics\nFantasy,The Hobbit | Narnia\nHorror,Dracula\n",
            "books.csv": "title,genre\nThe Hobbit,Fantasy\nNarnia,Fantasy\nDracula,Horror\n",
        ])
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertTrue(report.committed, "\(report.errors)")
        XCTAssertEqual(
            sink.calls.map(\.description),
            ["begin Genre,Book", "write Genre 2", "write Book 3", "link Genre.classics 2", "commit"])
        XCTAssertEqual(sink.modes, ["Genre": .merge, "Book": .upsert])
        XCTAssertEqual(
            sink.links,
            [
                .init(owner: "Genre", field: "classics", ownerId: id("Genre", "Fantasy"), relatedIds: [id("Book", "The Hobbit"), id("Book", "Narnia")]),
                .init(owner: "Genre", field: "classics", ownerId: id("Genre", "Horror"), relatedIds: [id("Book", "Dracula")]),
            ])
        XCTAssertEqual(sink.fields("Genre", id("Genre", "Fantasy")), ["name": .string("Fantasy")], "a relation is no column")
        XCTAssertEqual(report.relations, [.init(relation: "Genre.classics", added: 3)])
    }

    /// A Relation has no column: an empty cell must not send the field as a null value
    /// (the SQLite mirror fails with "table Book has no column named authors").
    func testEmptyRelationCellIsNoField() throws {
        let data = try library(books: "title,year,genre,authors\nThe Hobbit,1937,Fantasy,Tolkien\nAnonymous,1900,Fantasy,\n")
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertTrue(report.committed, "\(report.errors)")
        XCTAssertEqual(
            sink.fields("Book", id("Book", "Anonymous")),
            ["title": .string("Anonymous"), "year": .integer(1900), "genre": pointer("Genre", "Fantasy")])
        XCTAssertEqual(sink.written["Book"]?.map { $0.fields.map(\.name) }, [["title", "year", "genre"], ["title", "year", "genre"]])
    }

    func testJoinFileLinksOwnersToTargets() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Genre: {source: genres.csv, key: [name], fields: {name: String!, books: Relation<Book>}}
              Book: {source: books.csv, key: [title], fields: {title: String!}}
            relations:
              - {owner: Genre, field: books, source: book_genres.csv, ownerColumn: genre, targetColumn: book}
            """,
            "genres.csv": "name\nFantasy\n",
            "books.csv": "title\nThe Hobbit\nNarnia\n",
            "book_genres.csv": "genre,book\nFantasy,The Hobbit\nFantasy,Narnia\n",
        ])
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertTrue(report.committed, "\(report.errors)")
        XCTAssertEqual(sink.calls.map(\.description), ["begin Genre,Book", "write Genre 1", "write Book 2", "link Genre.books 2", "commit"])
        XCTAssertEqual(
            sink.links,
            [
                .init(owner: "Genre", field: "books", ownerId: id("Genre", "Fantasy"), relatedIds: [id("Book", "The Hobbit")]),
                .init(owner: "Genre", field: "books", ownerId: id("Genre", "Fantasy"), relatedIds: [id("Book", "Narnia")]),
            ])
        XCTAssertEqual(sink.fields("Genre", id("Genre", "Fantasy")), ["name": .string("Fantasy")], "a join-fed relation is no column")
    }

    func testJoinFileFaults() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Genre: {source: genres.csv, key: [name], fields: {name: String!}}
              Book: {source: books.csv, key: [title], fields: {title: String!}}
            relations:
              - {owner: Genre, field: books, targetClass: Book, source: book_genres.csv, ownerColumn: genre, targetColumn: book}
            """,
            "genres.csv": "name\nFantasy\n",
            "books.csv": "title\nThe Hobbit\n",
            "book_genres.csv": "genre,book\nFantasy,The Hobbit\nFantasy,Dune\n,The Hobbit\n",
        ])
        let report = try Importer(manifest: try data.load()).validate()
        XCTAssertEqual(
            report.errors.map(\.description),
            [
                #"book_genres.csv:3: column "book" (Genre.books): value "Dune": no Book has key "Dune""#,
                #"book_genres.csv:4: column "genre" (Genre.books): value "": empty reference"#,
            ])
        XCTAssertEqual(report.relations, [.init(relation: "Genre.books", rejected: 2)])
    }

    func testDefaultACLAndSourceACL() throws {
        let data = try TemporaryDataset([
            "dataset.yml": """
            classes:
              Note:
                source: notes.csv
                key: [title]
                acl: {"*": {"read": true}}
                fields: {title: String!}
            """,
            "notes.csv": #"title,ACL\#nPublic,\#nPrivate,"{""u1"":{""read"":true,""write"":true}}"\#n"#,
        ])
        let sink = MemorySink()
        let report = try run(data, into: sink)
        XCTAssertTrue(report.committed, "\(report.errors)")
        XCTAssertEqual(
            sink.written["Note"]?.map(\.acl),
            [
                ParseACL(["*": .init(read: true, write: false)]),
                ParseACL(["u1": .init(read: true, write: true)]),
            ])
    }

    func testStrictClassRefusesUnknownColumns() throws {
        let data = try TemporaryDataset([
            "dataset.yml": "classes: {Genre: {source: genres.csv, key: [name], strict: true, fields: {name: String!}}}",
            "genres.csv": "name,objectId,colour\nFantasy,,blue\n",
        ])
        let sink = MemorySink()
        let report = try run(data, into: sink, ImportOptions(maxErrors: 10))
        XCTAssertFalse(report.committed)
        XCTAssertFalse(sink.calls.contains(.commit))
        XCTAssertEqual(report.errors.map(\.description), [#"genres.csv:1: column "colour": unknown column (Genre is strict)"#])
    }

    func testSchemaConflictWithTheTargetWritesNothing() throws {
        let data = try library(books: "title,year,genre,authors\nThe Hobbit,1937,Fantasy,Tolkien\n")
        let sink = MemorySink()
        sink.existing = [ClassSchema(className: "Book", fields: [SchemaField(name: "year", type: .string)])]
        let report = try run(data, into: sink)
        XCTAssertFalse(report.committed)
        XCTAssertEqual(sink.calls, [], "nothing starts when the schema conflicts")
        XCTAssertEqual(
            report.errors.map(\.description),
            ["dataset.yml: classes.Book.fields.year: conflicts with the target: Book.year is String there, the manifest declares Number"])
    }
}
