import Foundation
import ParseModel
import PorterSQLite
import XCTest

@testable import PorterPipeline

/// A writing pass into a real mirror, on its own: what it holds on to once it has read everything.
final class WritingPassTests: MirrorTestCase {
    /// Authors, and books with a pointer to one and a relation to others.
    private func manifest() throws -> DatasetManifest {
        let dataset = directory.appendingPathComponent("dataset")
        try FileManager.default.createDirectory(at: dataset, withIntermediateDirectories: true)
        let files = [
            "dataset.yml": """
            version: 1
            classes:
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
                  author: Pointer<Author>
                  coauthors: Relation<Author>
            """,
            "authors.csv": "name\nTolkien\nLewis\n",
            "books.csv": "title,author,coauthors\nThe Hobbit,Tolkien,Lewis\nNarnia,Lewis,\n",
        ]
        for (name, text) in files { try text.write(to: dataset.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return try ManifestLoader.load(dataset.path)
    }

    /// The key indexes are the largest memory of an import; the pass lets go of them once every
    /// reference is resolved, before the sink sorts links and builds indexes, and the objects,
    /// pointers and links still arrive whole.
    func testAWritingPassDropsItsKeyIndexesOnceEveryReferenceIsResolved() throws {
        let manifest = try manifest()
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: manifest.schemas, naturalKeys: ["Author": ["name"], "Book": ["title"]])
        let pass = ImportPass(manifest: manifest, plan: Planner.plan(manifest), mode: .writing(mirror, nil), options: ImportOptions(), progress: nil)
        XCTAssertEqual(Set(pass.references.indexes.keys), ["Author", "Book"])

        XCTAssertEqual(try pass.run(), [])
        XCTAssertEqual(pass.log.count, 0)
        XCTAssertTrue(pass.references.indexes.isEmpty)
        XCTAssertNil(pass.references.validatedIndexes)
        try mirror.commit()

        XCTAssertEqual(
            try rows("SELECT b.title, a.name FROM Book b JOIN Author a ON a.objectId = b.author ORDER BY b.title"),
            [["Narnia", "Lewis"], ["The Hobbit", "Tolkien"]])
        XCTAssertEqual(
            try rows("SELECT b.title, a.name FROM \"_Join:coauthors:Book\" j JOIN Book b ON b.objectId = j.owningId JOIN Author a ON a.objectId = j.relatedId"),
            [["The Hobbit", "Lewis"]])
    }

    /// Records are mapped into drafts whose storage is reused (a batch's drafts share it, and a
    /// record mapped alone reuses its class's): over several batches, with optional values
    /// present and absent in turn, each object arrives in the mirror with its own values only.
    func testNoValueOfOneRecordLeaksIntoTheNext() throws {
        let dataset = directory.appendingPathComponent("alternating")
        try FileManager.default.createDirectory(at: dataset, withIntermediateDirectories: true)
        let count = 3_000
        func title(_ n: Int) -> String { "Book \(n)" }
        func year(_ n: Int) -> String? { n % 2 == 0 ? "\(1900 + n % 100)" : nil }
        func author(_ n: Int) -> String? { n % 3 == 0 ? "Tolkien" : n % 3 == 1 ? nil : "Lewis" }
        func coauthors(_ n: Int) -> [String] { n % 4 == 0 ? ["Lewis", "Tolkien"] : n % 4 == 2 ? ["Tolkien"] : [] }
        func note(_ n: Int) -> String? { n % 5 < 2 ? nil : "note \(n)" }
        let books = (1...count).map { n in
            [title(n), year(n) ?? "", author(n) ?? "", coauthors(n).joined(separator: ";"), note(n) ?? ""].joined(separator: ",")
        }
        let files = [
            "dataset.yml": """
            version: 1
            classes:
              Author: {source: authors.csv, key: [name], fields: {name: String!}}
              Edition: {source: books.csv, key: [title], fields: {title: String!, year: Number}}
              Book:
                {source: books.csv, key: [title], fields: {title: String!, year: Number, author: Pointer<Author>,
                 coauthors: {type: Relation<Author>, split: ";"}, note: String}}
            """,
            "authors.csv": "name\nTolkien\nLewis\n",
            "books.csv": "title,year,author,coauthors,note\n" + books.joined(separator: "\n") + "\n",
        ]
        for (name, text) in files { try text.write(to: dataset.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        let manifest = try ManifestLoader.load(dataset.path)
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: manifest.schemas, naturalKeys: ["Author": ["name"], "Edition": ["title"], "Book": ["title"]])
        let pass = ImportPass(manifest: manifest, plan: Planner.plan(manifest), mode: .writing(mirror, nil), options: ImportOptions(), progress: nil)
        XCTAssertEqual(try pass.run(), [])
        XCTAssertEqual(pass.log.count, 0)
        try mirror.commit()

        let order = "CAST(substr(b.title, 6) AS INTEGER)"
        XCTAssertEqual(
            try rows("SELECT b.title, b.year, a.name, b.note FROM Book b LEFT JOIN Author a ON a.objectId = b.author ORDER BY \(order)"),
            (1...count).map { [title($0), year($0), author($0), note($0)] })
        XCTAssertEqual(
            try rows("SELECT b.title, b.year FROM Edition b ORDER BY \(order)"), (1...count).map { [title($0), year($0)] })
        XCTAssertEqual(
            try rows(
                "SELECT b.title, a.name FROM \"_Join:coauthors:Book\" j JOIN Book b ON b.objectId = j.owningId "
                    + "JOIN Author a ON a.objectId = j.relatedId ORDER BY \(order), a.name"),
            (1...count).flatMap { n in coauthors(n).map { [title(n), $0] } })
    }

    /// A validating pass keeps them: an import that validates first hands them to its writing pass.
    func testAValidatingPassKeepsItsKeyIndexes() throws {
        let manifest = try manifest()
        let pass = ImportPass(manifest: manifest, plan: Planner.plan(manifest), mode: .validating, options: ImportOptions(), progress: nil)
        _ = try pass.run()
        XCTAssertEqual(
            pass.references.indexes["Author"]?.lookup(ObjectReference(targetClass: "Author", identity: .key("Tolkien"))),
            .found(FoundObject(givenId: KeyHash(className: "Author", key: "Tolkien").objectId), line: 2))
    }
}
