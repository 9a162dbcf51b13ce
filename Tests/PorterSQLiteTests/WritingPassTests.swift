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
