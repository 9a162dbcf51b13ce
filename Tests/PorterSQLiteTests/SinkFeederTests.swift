import Foundation
import ParseModel
import PorterSQLite
import XCTest

@testable import PorterPipeline

/// The import's feeder on its own, in front of a real mirror: what it sends, in which order,
/// what comes back, and what it no longer sends once closed.
final class SinkFeederTests: MirrorTestCase {
    private var mapping: ClassMapping!

    override func setUpWithError() throws {
        try super.setUpWithError()
        let dataset = directory.appendingPathComponent("dataset")
        try FileManager.default.createDirectory(at: dataset, withIntermediateDirectories: true)
        try """
        version: 1
        classes:
          Book:
            source: books.csv
            key: [title]
            fields:
              title: String!
              genre: Pointer<Genre>
              authors: Relation<Author>
        """.write(to: dataset.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try "title,genre,authors\n".write(to: dataset.appendingPathComponent("books.csv"), atomically: true, encoding: .utf8)
        mapping = try ManifestLoader.load(dataset.path, targetClasses: ["Genre", "Author"]).mapping(for: "Book")
    }

    private func book(_ id: String, _ title: String, line: Int) -> ResolvedObject {
        ResolvedObject(objectId: id, line: line, fields: [FieldValue("title", .string(title))], acl: nil)
    }

    /// A feeder on a begun mirror, and the answers it hands back.
    private func feeder() throws -> (SQLiteMirror, SinkFeeder, Answers) {
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(
            schemas: [
                ClassSchema(
                    className: "Book",
                    fields: [
                        SchemaField(name: "title", type: .string), SchemaField(name: "genre", type: .pointer(targetClass: "Genre")),
                        SchemaField(name: "authors", type: .relation(targetClass: "Author")),
                    ])
            ], naturalKeys: ["Book": ["title"]])
        let feeder = SinkFeeder(sink: mirror, keepsRecords: false)
        let answers = Answers()
        feeder.answered = { completion throws(PorterError) in answers.all.append(completion) }
        return (mirror, feeder, answers)
    }

    private final class Answers {
        var all: [SinkCompletion] = []
        var outcomes: [WriteOutcome] {
            all.flatMap { completion -> [WriteOutcome] in
                switch completion {
                case .objects(_, _, _, _, let outcomes, _, _), .patches(_, _, _, let outcomes): outcomes
                case .links: []
                }
            }
        }
        var linksAdded: Int {
            all.reduce(0) { sum, completion in
                switch completion {
                case .objects(_, _, _, _, _, let links, _), .links(let links): sum + links.values.reduce(0) { $0 + $1.added }
                case .patches: sum
                }
            }
        }
        var lines: [Int] {
            all.flatMap { completion -> [Int] in
                if case .objects(_, _, let lines, _, _, _, _) = completion { return lines }
                return []
            }
        }
    }

    func testBatchesLinksAndPatchesReachTheMirrorInOrderAndEveryAnswerComesBack() throws {
        let (mirror, feeder, answers) = try feeder()
        defer { feeder.stop() }
        var batch = ClassBatch()
        batch.objects = [book("b1", "The Hobbit", line: 2), book("b2", "Dune", line: 3)]
        batch.rows = [2, 3]
        batch.links["authors"] = [RelationLinks(ownerId: "b1", relatedIds: ["a1", "a2"], line: 2)]
        try feeder.send(&batch, of: mapping)
        XCTAssertTrue(batch.isEmpty, "a sent batch is emptied for the next objects")
        batch.objects = [book("b3", "Narnia", line: 4)]
        batch.rows = [4]
        try feeder.send(&batch, of: mapping)
        try feeder.sendPatches([("b3", .pointer(PointerRef(className: "Genre", objectId: "g1")))], className: "Book", field: "genre", source: "books.csv")
        try feeder.sendLinks(
            [RelationLinks(ownerId: "b2", relatedIds: ["a3"], line: 0)], owner: "Book", field: "authors", targetClass: "Author", replace: false)
        try feeder.finish()
        try mirror.commit()

        XCTAssertEqual(answers.outcomes, [.inserted, .inserted, .inserted, .updated])
        XCTAssertEqual(answers.lines, [2, 3, 4])
        XCTAssertEqual(answers.linksAdded, 3, "the links of a batch and those sent on their own, reported when the mirror moved them in")
        XCTAssertEqual(
            try rows("SELECT objectId, title, genre FROM Book ORDER BY objectId"),
            [["b1", "The Hobbit", nil], ["b2", "Dune", nil], ["b3", "Narnia", "g1"]])
        XCTAssertEqual(
            try rows(#"SELECT owningId, relatedId FROM "_Join:authors:Book" ORDER BY 1, 2"#),
            [["b1", "a1"], ["b1", "a2"], ["b2", "a3"]])
    }

    func testAClosedFeederSendsNothingMoreButCallsSentBeforeStillRun() throws {
        let (mirror, feeder, answers) = try feeder()
        defer { feeder.stop() }
        var batch = ClassBatch()
        batch.objects = [book("b1", "The Hobbit", line: 2)]
        batch.rows = [2]
        try feeder.send(&batch, of: mapping)
        feeder.close()
        XCTAssertFalse(feeder.isOpen)
        batch.objects = [book("b2", "Dune", line: 3)]
        batch.rows = [3]
        try feeder.send(&batch, of: mapping)
        XCTAssertTrue(batch.isEmpty, "the batch is dropped, not kept for later")
        try feeder.sendLinks(
            [RelationLinks(ownerId: "b1", relatedIds: ["a1"], line: 2)], owner: "Book", field: "authors", targetClass: "Author", replace: false)
        try feeder.finish()
        try mirror.commit()
        XCTAssertEqual(answers.outcomes, [.inserted])
        XCTAssertEqual(try rows("SELECT objectId FROM Book"), [["b1"]])
        XCTAssertEqual(try rows(#"SELECT count(*) FROM "_Join:authors:Book""#), [["0"]])
    }

    func testASinkFailureOnTheWriterThreadIsThrownToTheFeedingSide() throws {
        let (mirror, feeder, _) = try feeder()
        defer { feeder.stop() }
        var ghosts = ClassBatch()
        ghosts.objects = [ResolvedObject(objectId: "x1", line: 2, fields: [FieldValue("title", .string("?"))], acl: nil)]
        ghosts.rows = [2]
        var ghostMapping = try XCTUnwrap(mapping)
        ghostMapping.className = "Ghost"
        try feeder.send(&ghosts, of: ghostMapping)
        XCTAssertThrowsError(try feeder.finish()) { error in
            XCTAssertTrue((error as? PorterError)?.message.contains("Ghost") == true, "\(error)")
        }
        mirror.rollback()
    }

    func testLinksHeldForOwnersNotSentYetAreTakenOnce() throws {
        let (mirror, feeder, _) = try feeder()
        defer { feeder.stop(); mirror.rollback() }
        XCTAssertFalse(feeder.holdsLinks)
        feeder.holdLinks(RelationLinks(ownerId: "b1", relatedIds: ["a1"], line: 2), relation: "Book.authors")
        feeder.holdLinks(RelationLinks(ownerId: "b1", relatedIds: ["a2"], line: 3), relation: "Book.authors")
        feeder.holdLinks(RelationLinks(ownerId: "b2", relatedIds: ["a1"], line: 4), relation: "Book.authors")
        XCTAssertTrue(feeder.holdsLinks)
        XCTAssertEqual(feeder.takeLinks(relation: "Book.authors", owner: "b1")?.map(\.relatedIds), [["a1"], ["a2"]])
        XCTAssertNil(feeder.takeLinks(relation: "Book.authors", owner: "b1"))
        XCTAssertEqual(feeder.takeLinks(relation: "Book.authors", owner: "b2")?.map(\.line), [4])
        XCTAssertNil(feeder.takeLinks(relation: "Book.reviews", owner: "b1"))
    }
}
