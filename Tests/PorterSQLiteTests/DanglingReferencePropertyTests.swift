import Foundation
import ParseModel
import PorterPipeline
import PorterReaders
import PorterSQLite
import PorterTestSupport
import XCTest

/// Generated datasets with known dangling references (seeded): pointers by natural key to authors
/// that are not in the dataset, forward self-pointers to books that are not either, Relation cells
/// (JSON arrays) naming missing tags, and join rows naming missing readers or books. Each policy does exactly what it says, counted exactly, and a
/// kept pointer names the object its key would have: importing that object later resolves it.
final class DanglingReferencePropertyTests: MirrorTestCase {
    struct Generated {
        var authors: [String] = []
        var books: [(title: String, author: String, sequel: String?, tags: [String])] = []
        var tags: [String] = []
        var readers: [String] = []
        var reads: [(reader: String, book: String)] = []
        /// Authors books name that are not in `authors`.
        var goneAuthors: Set<String> = []

        var danglingAuthors: Int { books.filter { !authors.contains($0.author) }.count }
        var danglingSequels: Int { books.filter { $0.sequel.map { sequel in !books.contains { $0.title == sequel } } ?? false }.count }
        /// Tags named in Book.tags cells that are not in `tags` (a cell names each tag once).
        var danglingTags: Int { books.map { $0.tags.filter { !tags.contains($0) }.count }.reduce(0, +) }
        var liveTagLinks: Int { books.map { $0.tags.filter(tags.contains).count }.reduce(0, +) }
        func readerMissing(_ row: (reader: String, book: String)) -> Bool { !readers.contains(row.reader) }
        func bookMissing(_ row: (reader: String, book: String)) -> Bool { !books.contains { $0.title == row.book } }
        var danglingRows: Int { reads.filter { readerMissing($0) || bookMissing($0) }.count }
        var rowsWithoutReader: Int { reads.filter(readerMissing).count }
        /// Faults `reject` gives: one per dangling pointer, one per missing side of a join row.
        var faults: Int {
            danglingAuthors + danglingSequels + danglingTags + reads.map { (readerMissing($0) ? 1 : 0) + (bookMissing($0) ? 1 : 0) }.reduce(0, +)
        }
        var distinctRows: Int { Set(reads.map { "\($0.reader)>\($0.book)" }).count }
        var distinctLiveRows: Int { Set(reads.filter { !readerMissing($0) && !bookMissing($0) }.map { "\($0.reader)>\($0.book)" }).count }

        init(seed: UInt64) {
            var random = SplitMix(seed: seed)
            authors = (0..<Int.random(in: 1...5, using: &random)).map { "Author \($0)" }
            readers = (0..<Int.random(in: 1...4, using: &random)).map { "Reader \($0)" }
            tags = (0..<Int.random(in: 1...4, using: &random)).map { "Tag \($0)" }
            let titles = (0..<Int.random(in: 1...10, using: &random)).map { "Book \($0)" }
            for title in titles {
                let gone = Int.random(in: 0..<4, using: &random) == 0
                let author = gone ? "Gone \(Int.random(in: 0..<3, using: &random))" : authors.randomElement(using: &random)!
                if gone { goneAuthors.insert(author) }
                let sequel: String? =
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: titles.randomElement(using: &random)
                    case 1: "Lost \(Int.random(in: 0..<3, using: &random))"
                    default: nil
                    }
                let named = (tags + ["Old tag 0", "Old tag 1"]).filter { _ in Int.random(in: 0..<3, using: &random) == 0 }
                books.append((title, author, sequel, named))
            }
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                let reader =
                    Int.random(in: 0..<4, using: &random) == 0 ? "Left \(Int.random(in: 0..<2, using: &random))" : readers.randomElement(using: &random)!
                let book = Int.random(in: 0..<4, using: &random) == 0 ? "Lost \(Int.random(in: 0..<3, using: &random))" : titles.randomElement(using: &random)!
                reads.append((reader, book))
            }
        }

        func manifest(_ policy: DanglingReferencePolicy, authors: [String]? = nil) -> DatasetManifest {
            let authorRows = MemorySource(name: "authors", rows: (authors ?? self.authors).map { ["name": .string($0)] })
            let bookRows = MemorySource(
                name: "books",
                rows: books.map { book in
                    var row: [String: JSONValue] = [
                        "title": .string(book.title), "author": .string(book.author), "tags": .array(book.tags.map(JSONValue.string)),
                    ]
                    if let sequel = book.sequel { row["sequel"] = .string(sequel) }
                    return row
                })
            let readerRows = MemorySource(name: "readers", rows: readers.map { ["name": .string($0)] })
            let tagRows = MemorySource(name: "tags", rows: tags.map { ["name": .string($0)] })
            let readRows = MemorySource(name: "reads", rows: reads.map { ["reader": .string($0.reader), "book": .string($0.book)] })
            var sequel = FieldMapping(name: "sequel", type: .pointer(targetClass: "Book"))
            sequel.optional = true
            var manifest = DatasetManifest(
                classes: [
                    ClassMapping(className: "Author", records: authorRows, key: ["name"], fields: [FieldMapping(name: "name", type: .string)]),
                    ClassMapping(
                        className: "Book", records: bookRows, key: ["title"],
                        fields: [
                            FieldMapping(name: "title", type: .string), FieldMapping(name: "author", type: .pointer(targetClass: "Author")), sequel,
                            FieldMapping(name: "tags", type: .relation(targetClass: "Tag")),
                        ]),
                    ClassMapping(className: "Tag", records: tagRows, key: ["name"], fields: [FieldMapping(name: "name", type: .string)]),
                    ClassMapping(className: "Reader", records: readerRows, key: ["name"], fields: [FieldMapping(name: "name", type: .string)]),
                ],
                relations: [
                    JoinRelationMapping(owner: "Reader", field: "read", targetClass: "Book", records: readRows, ownerColumn: "reader", targetColumn: "book")
                ])
            manifest.danglingReferences = policy
            return manifest
        }
    }

    func fresh() throws {
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func testEveryPolicyOnGeneratedDatasets() async throws {
        var datasetsWithDangling = 0
        for seed in UInt64(1)...40 {
            let data = Generated(seed: seed)
            let context = "seed \(seed)"
            if data.faults > 0 { datasetsWithDangling += 1 }

            try fresh()
            let rejected = try await Importer(manifest: data.manifest(.reject)).run(into: SQLiteMirror(path: path))
            XCTAssertEqual(rejected.succeeded, data.faults == 0, context)
            XCTAssertEqual(rejected.faultCounts[.danglingReference] ?? 0, data.faults, context)
            XCTAssertEqual(rejected.danglingReferences, [], context)

            try fresh()
            let cleared = try await Importer(manifest: data.manifest(.clear)).run(into: SQLiteMirror(path: path))
            XCTAssertTrue(cleared.committed, "\(context): \(cleared.errors)")
            XCTAssertEqual(tally(cleared, "Book.author")?.count ?? 0, data.danglingAuthors, context)
            XCTAssertEqual(tally(cleared, "Book.sequel")?.count ?? 0, data.danglingSequels, context)
            XCTAssertEqual(tally(cleared, "Book.tags")?.count ?? 0, data.danglingTags, context)
            XCTAssertEqual(tally(cleared, "Book.tags")?.source ?? .relation, .relation, context)
            XCTAssertEqual(try rows(#"SELECT count(*) FROM "_Join:tags:Book""#), [["\(data.liveTagLinks)"]], context)
            XCTAssertEqual(tally(cleared, "Reader.read")?.count ?? 0, data.danglingRows, context)
            XCTAssertEqual(tally(cleared, "Reader.read")?.missingOwners ?? 0, data.rowsWithoutReader, context)
            XCTAssertEqual(try rows("SELECT count(*) FROM Book WHERE author IS NULL"), [["\(data.danglingAuthors)"]], context)
            XCTAssertEqual(
                try rows("SELECT count(*) FROM Book WHERE sequel IS NULL"),
                [["\(data.books.count - data.books.filter { $0.sequel != nil }.count + data.danglingSequels)"]], context)
            XCTAssertEqual(try rows(#"SELECT count(*) FROM "_Join:read:Reader""#), [["\(data.distinctLiveRows)"]], context)

            try fresh()
            let kept = try await Importer(manifest: data.manifest(.keep)).run(into: SQLiteMirror(path: path))
            XCTAssertTrue(kept.committed, "\(context): \(kept.errors)")
            XCTAssertEqual(tally(kept, "Book.author")?.count ?? 0, data.danglingAuthors, context)
            XCTAssertEqual(tally(kept, "Book.author")?.policy ?? .keep, .keep, context)
            XCTAssertEqual(tally(kept, "Reader.read")?.count ?? 0, data.danglingRows, context)
            XCTAssertEqual(tally(kept, "Book.tags")?.count ?? 0, data.danglingTags, context)
            XCTAssertEqual(
                try rows(#"SELECT count(*) FROM "_Join:tags:Book" WHERE relatedId NOT IN (SELECT objectId FROM Tag)"#), [["\(data.danglingTags)"]], context)
            XCTAssertEqual(tally(kept, "Reader.read")?.notWritten ?? 0, 0, context)
            XCTAssertEqual(
                try rows("SELECT count(*) FROM Book WHERE author IS NULL OR author NOT IN (SELECT objectId FROM Author)"), [["\(data.danglingAuthors)"]],
                context)
            XCTAssertEqual(try rows("SELECT count(*) FROM Book WHERE author IS NULL"), [["0"]], context)
            XCTAssertEqual(try rows(#"SELECT count(*) FROM "_Join:read:Reader""#), [["\(data.distinctRows)"]], context)
            XCTAssertEqual(
                try rows(#"SELECT count(*) FROM "_Join:read:Reader" WHERE owningId NOT IN (SELECT objectId FROM Reader)"#),
                [["\(Set(data.reads.filter(data.readerMissing).map { "\($0.reader)>\($0.book)" }).count)"]], context)

            // The gone authors arrive: every kept pointer now names its author.
            let later = try await Importer(manifest: data.manifest(.keep, authors: data.authors + data.goneAuthors.sorted())).run(
                into: SQLiteMirror(path: path))
            XCTAssertEqual(later.errorCount, 0, "\(context): \(later.errors)")
            let named = try rows("SELECT Book.title, Author.name FROM Book JOIN Author ON Author.objectId = Book.author ORDER BY Book.title")
            XCTAssertEqual(named, data.books.sorted { $0.title < $1.title }.map { [$0.title, $0.author] }, context)
        }
        XCTAssertGreaterThan(datasetsWithDangling, 25, "the generator makes dangling references")
    }

    func tally(_ report: ImportReport, _ field: String) -> DanglingReferenceTally? {
        report.danglingReferences.first { "\($0.className).\($0.field)" == field }
    }
}
