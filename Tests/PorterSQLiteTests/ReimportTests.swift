import Foundation
import ParseModel
import PorterPipeline
import PorterSQLite
import XCTest

/// Writing into tables that hold earlier rows: each batch's stored rows are compared with the
/// batch before anything is written, and the outcomes are those of one statement per object.
final class ReimportTests: MirrorTestCase {
    func object(
        _ id: String, title: String, year: ParseValue = .integer(1937), inPrint: ParseValue = .boolean(true),
        acl: ParseACL? = ParseACL(["*": .init(read: true, write: false)])
    ) -> ResolvedObject {
        ResolvedObject(
            objectId: id, line: 2,
            fields: [
                FieldValue("title", .string(title)), FieldValue("year", year), FieldValue("inPrint", inPrint),
                FieldValue("released", .date(ParseDate(iso: "1937-09-21")!)),
                FieldValue("genre", .pointer(PointerRef(className: "Genre", objectId: "g1"))),
                FieldValue("tags", .array([.string("b"), .string("a")])),
            ], acl: acl)
    }

    /// A committed mirror holding `objects`, and a second import begun on it.
    func reopened(with objects: [ResolvedObject], links: [RelationLinks] = []) throws -> SQLiteMirror {
        let first = SQLiteMirror(path: path)
        try first.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        XCTAssertEqual(try first.write(objects, className: "Book", mode: .upsert), Array(repeating: .inserted, count: objects.count))
        if !links.isEmpty { _ = try first.link(owner: "Book", field: "authors", targetClass: "Author", links, replace: true) }
        _ = try first.flush()
        try first.commit()
        let again = SQLiteMirror(path: path)
        try again.begin(schemas: [book], naturalKeys: ["Book": ["title"]])
        return again
    }

    /// The stored `Book.authors` links, by owner, each owner's in order.
    func storedAuthors() throws -> [String: [String]] {
        Dictionary(grouping: try rows(#"SELECT owningId, relatedId FROM "_Join:authors:Book" ORDER BY 1, 2"#), by: { $0[0]! })
            .mapValues { $0.map { $0[1]! } }
    }

    func updatedAt(_ id: String) throws -> String? { try rows("SELECT updatedAt FROM Book WHERE objectId = '\(id)'").first?.first ?? nil }

    /// New, unchanged, changed and clashing objects in one batch, in the order they come: a new
    /// object may take a title only once the object before it that held it has given it up.
    func testABatchMixingEveryOutcomeKeepsItsOrder() throws {
        let again = try reopened(with: [
            object("b1", title: "The Hobbit"), object("b2", title: "Dune"), object("b3", title: "Emma"),
            object("b4", title: "Ulysses"),
        ])
        let before = try updatedAt("b1")
        let clash = { (id: String) in WriteOutcome.failed("Book \(id): another object in the target already has this title") }
        let outcomes = try again.write(
            [
                object("b5", title: "Dracula"), object("b1", title: "The Hobbit"), object("b6", title: "Dune"),
                object("b2", title: "Dune Messiah"), object("b7", title: "Dune"), object("b3", title: "Emma", year: .integer(1815)),
                object("b8", title: "Emma"), object("b4", title: "Ulysses"), object("b9", title: "Ivanhoe"),
            ], className: "Book", mode: .upsert)
        XCTAssertEqual(outcomes, [.inserted, .unchanged, clash("b6"), .updated, .inserted, .updated, clash("b8"), .unchanged, .inserted])
        _ = try again.flush()
        try again.commit()
        XCTAssertEqual(
            try rows("SELECT objectId, title, year FROM Book ORDER BY objectId"),
            [
                ["b1", "The Hobbit", "1937"], ["b2", "Dune Messiah", "1937"], ["b3", "Emma", "1815"], ["b4", "Ulysses", "1937"],
                ["b5", "Dracula", "1937"], ["b7", "Dune", "1937"], ["b9", "Ivanhoe", "1937"],
            ])
        XCTAssertEqual(try updatedAt("b1"), before, "an unchanged object keeps its updatedAt")
        XCTAssertNotEqual(try updatedAt("b2"), before)
    }

    /// A batch naming an object twice writes it twice, the second write seeing the first.
    func testAnObjectNamedTwiceInABatch() throws {
        let again = try reopened(with: [object("b1", title: "The Hobbit")])
        XCTAssertEqual(
            try again.write(
                [
                    object("b1", title: "The Hobbit", year: .integer(1951)), object("b1", title: "The Hobbit", year: .integer(1951)),
                    object("b2", title: "Dune"), object("b2", title: "Dune Messiah"),
                ], className: "Book", mode: .upsert),
            [.updated, .unchanged, .inserted, .updated])
        XCTAssertEqual(
            try again.write([object("b3", title: "Emma"), object("b1", title: "The Hobbit")], className: "Book", mode: .insert),
            [.inserted, .failed("Book b1 already exists in the target (mode: insert)")])
        _ = try again.flush()
        try again.commit()
        XCTAssertEqual(
            try rows("SELECT objectId, title, year FROM Book ORDER BY objectId"),
            [["b1", "The Hobbit", "1951"], ["b2", "Dune Messiah", "1937"], ["b3", "Emma", "1937"]])
    }

    /// Merge keeps a stored value where the object's is null (the ACL too); upsert writes the null.
    func testMergeNullsKeepStoredValues() throws {
        let again = try reopened(with: [object("b1", title: "The Hobbit"), object("b2", title: "Dune")])
        XCTAssertEqual(
            try again.write(
                [
                    object("b1", title: "The Hobbit", year: .null, inPrint: .null, acl: nil),
                    object("b2", title: "Dune", year: .null, inPrint: .boolean(false), acl: nil),
                ], className: "Book", mode: .merge),
            [.unchanged, .updated])
        XCTAssertEqual(try again.write([object("b1", title: "The Hobbit", acl: nil)], className: "Book", mode: .upsert), [.updated])
        _ = try again.flush()
        try again.commit()
        XCTAssertEqual(
            try rows("SELECT objectId, year, inPrint, ACL IS NULL FROM Book ORDER BY objectId"), [["b1", "1937", "1", "1"], ["b2", "1937", "0", "0"]])
    }

    /// A Number column keeps 1937.0 as the integer 1937 and 12.5 as a real: either form of the
    /// same number is unchanged, another number is not. Text SQLite would store as that number
    /// (which SQLite itself compares) is unchanged too.
    func testNumbersStoredAsIntegersOrReals() throws {
        let again = try reopened(with: [
            object("b1", title: "The Hobbit", year: .double(1937)), object("b2", title: "Dune", year: .double(12.5)),
            object("b3", title: "Emma", year: .integer(-3)),
        ])
        XCTAssertEqual(try rows("SELECT typeof(year) FROM Book ORDER BY objectId"), [["integer"], ["real"], ["integer"]])
        XCTAssertEqual(
            try again.write(
                [
                    object("b1", title: "The Hobbit", year: .integer(1937)), object("b2", title: "Dune", year: .double(12.5)),
                    object("b3", title: "Emma", year: .double(-3)),
                ], className: "Book", mode: .upsert), [.unchanged, .unchanged, .unchanged])
        XCTAssertEqual(
            try again.write(
                [
                    object("b1", title: "The Hobbit", year: .string("1937")), object("b2", title: "Dune", year: .integer(12)),
                    object("b3", title: "Emma", year: .double(-3.5)),
                ], className: "Book", mode: .upsert), [.unchanged, .updated, .updated])
        XCTAssertEqual(
            try again.write(
                [object("b1", title: "The Hobbit", inPrint: .integer(1)), object("b2", title: "Dune", year: .integer(12), inPrint: .boolean(false))],
                className: "Book", mode: .upsert), [.unchanged, .updated])
        _ = try again.flush()
        try again.commit()
        XCTAssertEqual(
            try rows("SELECT objectId, year, typeof(year), inPrint FROM Book ORDER BY objectId"),
            [["b1", "1937", "integer", "1"], ["b2", "12", "integer", "0"], ["b3", "-3.5", "real", "1"]])
    }

    /// Batches are found in the order the rows are stored first, then by objectId: in order, with
    /// new objects between, out of order, and after the order was given up, every object is found.
    func testBatchesInAndOutOfTheStoredOrder() throws {
        let titles = (0..<300).map { "Book \($0)" }
        let again = try reopened(with: titles.enumerated().map { object("b\($0)", title: $1) })
        let same = { (range: Range<Int>) in range.map { self.object("b\($0)", title: titles[$0]) } }
        XCTAssertEqual(try again.write(same(0..<100), className: "Book", mode: .upsert), Array(repeating: .unchanged, count: 100))
        let mixed = [object("n1", title: "New 1")] + same(100..<150) + [object("b150", title: "Changed")] + same(151..<200) + [object("n2", title: "New 2")]
        XCTAssertEqual(
            try again.write(mixed, className: "Book", mode: .upsert),
            [.inserted] + Array(repeating: .unchanged, count: 50) + [.updated] + Array(repeating: .unchanged, count: 49) + [.inserted])
        let shuffled = same(200..<300).reversed() + same(0..<10)
        XCTAssertEqual(try again.write(Array(shuffled), className: "Book", mode: .upsert), Array(repeating: .unchanged, count: 110))
        XCTAssertEqual(
            try again.write([object("b5", title: "Changed too")] + same(6..<8), className: "Book", mode: .upsert), [.updated, .unchanged, .unchanged])
        _ = try again.flush()
        try again.commit()
        XCTAssertEqual(try rows("SELECT count(*) FROM Book"), [["302"]])
        XCTAssertEqual(
            try rows("SELECT objectId FROM Book WHERE title LIKE 'Changed%' OR title LIKE 'New%' ORDER BY objectId"),
            [["b150"], ["b5"], ["n1"], ["n2"]])
    }

    /// Replacing the links of many owners in one call (more than one lookup statement's worth):
    /// each loses the links not given and gains the new ones; an owner listed twice keeps what
    /// both entries list.
    func testReplacingLinksOfManyOwners() throws {
        let owners = (0..<1_200).map { "b\($0)" }
        let again = try reopened(
            with: [object("b", title: "The Hobbit")],
            links: owners.map { RelationLinks(ownerId: $0, relatedIds: ["a1", "a2"], line: 2) })
        // Even owners swap a2 for a3, every third keeps its links, the rest lose all but a1.
        let links =
            owners.enumerated().map { index, owner in
                RelationLinks(ownerId: owner, relatedIds: index % 2 == 0 ? ["a3", "a1", "a3"] : index % 3 == 0 ? ["a2", "a1"] : ["a1"], line: 2)
            } + [RelationLinks(ownerId: "b0", relatedIds: ["a3", "a4"], line: 3), RelationLinks(ownerId: "new", relatedIds: ["a9"], line: 4)]
        let evenCount = 600, keptCount = 200
        let loseA2 = owners.count - evenCount - keptCount
        // b0: a2 goes (its first entry lacks it), then a1 (its second does); then a1, a3 and a4
        // go in, as each entry's links do.
        XCTAssertEqual(
            try again.link(owner: "Book", field: "authors", targetClass: "Author", links, replace: true),
            LinkChanges(added: evenCount + 2 + 1, removed: evenCount + loseA2 + 1))
        XCTAssertEqual(
            try again.link(owner: "Book", field: "authors", targetClass: "Author", links, replace: true),
            LinkChanges(added: 2, removed: 2), "b0's two entries still disagree on a1 and a4")
        _ = try again.flush()
        try again.commit()
        let stored = try storedAuthors()
        XCTAssertEqual(stored["b0"], ["a1", "a3", "a4"])
        XCTAssertEqual(stored["b1"], ["a1"])
        XCTAssertEqual(stored["b2"], ["a1", "a3"])
        XCTAssertEqual(stored["b3"], ["a1", "a2"])
        XCTAssertEqual(stored["b1199"], ["a1"])
        XCTAssertEqual(stored["new"], ["a9"])
        XCTAssertEqual(stored.values.map(\.count).reduce(0, +), 2 * evenCount + 2 * keptCount + loseA2 + 1 + 1)
    }

    /// A re-import replacing the links of many owners reads the join table once and skips the
    /// owners whose links stay: the owners whose links differ still change, in any batch after
    /// the scan, including owners changed earlier in the import and owners listed twice.
    func testLinksReadInOneScanStillChangeWhereTheyDiffer() throws {
        let owners = (0..<30_000).map { "b\($0)" }
        let again = try reopened(
            with: [object("b", title: "The Hobbit")],
            links: owners.map { RelationLinks(ownerId: $0, relatedIds: ["a1", "a2"], line: 2) })
        func replace(_ entries: [(String, [String])]) throws -> LinkChanges {
            try again.link(
                owner: "Book", field: "authors", targetClass: "Author",
                entries.map { RelationLinks(ownerId: $0.0, relatedIds: $0.1, line: 2) }, replace: true)
        }
        func same(_ range: Range<Int>) -> [(String, [String])] { range.map { (owners[$0], $0 % 2 == 0 ? ["a2", "a1"] : ["a1", "a2"]) } }
        // Looked up owner by owner, until the table is scanned.
        for start in stride(from: 0, to: 20_000, by: 1_000) { XCTAssertEqual(try replace(same(start..<start + 1_000)), LinkChanges()) }
        XCTAssertEqual(
            try replace(
                [
                    ("b20000", ["a1"]),  // loses a2
                    ("b20001", ["a1", "a2", "a3"]),  // gains a3
                    ("b20002", ["a2", "a1"]), ("b20002", ["a4"]),  // listed twice: keeps what both list
                    ("b20003", ["a1", "a1", "a2"]),  // the same links, one named twice
                    ("new", ["a9"]),
                ] + same(20_004..<21_000)), LinkChanges(added: 1 + 3 + 1, removed: 1 + 2))
        // Owners changed since the scan are looked up again: their earlier links come back.
        XCTAssertEqual(
            try replace([("b20000", ["a1", "a2"]), ("b20001", ["a2", "a1"]), ("b20003", ["a1", "a2"])] + same(21_000..<22_000)),
            LinkChanges(added: 1, removed: 1))
        // Links added without replacing, then replaced.
        XCTAssertEqual(
            try again.link(
                owner: "Book", field: "authors", targetClass: "Author",
                [RelationLinks(ownerId: "b25000", relatedIds: ["a5"], line: 2)], replace: false), LinkChanges(added: 1))
        XCTAssertEqual(try replace(same(22_000..<30_000)), LinkChanges(removed: 1))
        XCTAssertEqual(try replace([("b29999", []), ("b29998", ["a2"])]), LinkChanges(removed: 3))
        _ = try again.flush()
        try again.commit()
        let stored = try storedAuthors()
        XCTAssertEqual(stored["b20000"], ["a1", "a2"])
        XCTAssertEqual(stored["b20001"], ["a1", "a2"])
        XCTAssertEqual(stored["b20002"], ["a1", "a2", "a4"])
        XCTAssertEqual(stored["b20003"], ["a1", "a2"])
        XCTAssertEqual(stored["b25000"], ["a1", "a2"])
        XCTAssertEqual(stored["b29998"], ["a2"])
        XCTAssertNil(stored["b29999"])
        XCTAssertEqual(stored["new"], ["a9"])
        XCTAssertEqual(stored.count, 30_000)
        XCTAssertEqual(stored.values.map(\.count).reduce(0, +), 2 * 29_998 + 1 + 1 + 1)
    }
    /// The join table's digests are read on a thread of their own, through a connection that
    /// sees the links as committed: the owners this import links before it takes them are
    /// looked up again, not taken for what the scan saw.
    func testOwnersLinkedWhileTheLinksAreScannedApartAreLookedUpAgain() throws {
        let owners = (0..<30_000).map { "b\($0)" }
        let again = try reopened(
            with: [object("b", title: "The Hobbit")],
            links: owners.map { RelationLinks(ownerId: $0, relatedIds: ["a1", "a2"], line: 2) })
        func link(_ entries: [(String, [String])], replace: Bool = true) throws -> LinkChanges {
            try again.link(
                owner: "Book", field: "authors", targetClass: "Author",
                entries.map { RelationLinks(ownerId: $0.0, relatedIds: $0.1, line: 2) }, replace: replace)
        }
        func same(_ range: Range<Int>) -> [(String, [String])] { range.map { (owners[$0], ["a1", "a2"]) } }
        // The first batch starts the scan, then changes an owner's links; links are added to another.
        XCTAssertEqual(try link([("b0", ["a3"])] + same(2..<1_000)), LinkChanges(added: 1, removed: 2))
        XCTAssertEqual(try link([("b1", ["a5"])], replace: false), LinkChanges(added: 1))
        // 20,000 owners looked up: the scan's digests are waited for, if they were not taken before.
        for start in stride(from: 1_000, to: 21_000, by: 1_000) { XCTAssertEqual(try link(same(start..<start + 1_000)), LinkChanges()) }
        XCTAssertEqual(try link([("b0", ["a1", "a2"]), ("b1", ["a2", "a1"])] + same(21_000..<22_000)), LinkChanges(added: 2, removed: 2))
        _ = try again.flush()
        try again.commit()
        let stored = try storedAuthors()
        XCTAssertEqual(stored["b0"], ["a1", "a2"])
        XCTAssertEqual(stored["b1"], ["a1", "a2"])
        XCTAssertEqual(stored.values.map(\.count).reduce(0, +), 2 * 30_000)
    }
}
