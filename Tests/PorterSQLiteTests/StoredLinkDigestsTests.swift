import XCTest

@testable import PorterSQLite

/// What one scan of a join table tells of each owner's links.
final class StoredLinkDigestsTests: XCTestCase {
    /// Digests of a join table holding `links` (owningId, relatedId; nil for NULL).
    func digests(_ links: [(String?, String?)]) throws -> StoredLinkDigests {
        let db = try SQLiteDatabase(path: ":memory:", create: true)
        try db.execute("CREATE TABLE j (owningId TEXT, relatedId TEXT)")
        let insert = try db.prepare("INSERT INTO j VALUES (?1, ?2)")
        for (owner, related) in links {
            if let owner { insert.bind(text: owner, at: 1) } else { insert.bindNull(at: 1) }
            if let related { insert.bind(text: related, at: 2) } else { insert.bindNull(at: 2) }
            try insert.run()
        }
        return try StoredLinkDigests(scanning: try db.prepare("SELECT owningId, relatedId FROM j ORDER BY owningId"), expectedOwners: 2)
    }

    func holds(_ digests: StoredLinkDigests, _ owner: String, _ related: [String]) -> Bool {
        digests.holdAll([(related, StoredLinkDigests.ownerHash(owner))])[0]
    }

    func testAnOwnerHoldsExactlyItsStoredLinksInAnyOrder() throws {
        let digests = try digests([("b1", "a1"), ("b1", "a2"), ("b2", "a1"), ("b3", "")])
        XCTAssertTrue(holds(digests, "b1", ["a1", "a2"]))
        XCTAssertTrue(holds(digests, "b1", ["a2", "a1"]))
        XCTAssertTrue(holds(digests, "b2", ["a1"]))
        XCTAssertTrue(holds(digests, "b3", [""]))
        XCTAssertFalse(holds(digests, "b1", ["a1"]), "a subset")
        XCTAssertFalse(holds(digests, "b1", ["a1", "a2", "a3"]), "a superset")
        XCTAssertFalse(holds(digests, "b1", ["a1", "a1", "a2"]), "a link named twice is not known to be stored once")
        XCTAssertFalse(holds(digests, "b2", ["a2"]))
        XCTAssertFalse(holds(digests, "b2", []))
        XCTAssertFalse(holds(digests, "b4", []), "an owner without stored links is looked up")
        XCTAssertFalse(holds(digests, "b4", ["a1"]))
    }

    /// Owners of a relation to their own class: one's links never pass for another's.
    func testOwnersLinkingToEachOtherAreToldApart() throws {
        let digests = try digests([("x", "y"), ("y", "x")])
        XCTAssertTrue(holds(digests, "x", ["y"]))
        XCTAssertTrue(holds(digests, "y", ["x"]))
        XCTAssertFalse(holds(digests, "x", ["x"]))
        XCTAssertFalse(holds(digests, "z", ["x"]))
    }

    func testAnOwnerWithANullLinkOrForgottenIsLookedUp() throws {
        var digests = try digests([("b1", "a1"), ("b1", nil), ("b2", "a1"), (nil, "a1"), ("b3", "a3")])
        XCTAssertFalse(holds(digests, "b1", ["a1"]))
        XCTAssertTrue(holds(digests, "b2", ["a1"]))
        digests.forget(StoredLinkDigests.ownerHash("b2"))
        XCTAssertFalse(holds(digests, "b2", ["a1"]))
        XCTAssertTrue(holds(digests, "b3", ["a3"]))
    }

    /// Many owners, more than their storage was sized for: every one is found, with its own links only.
    func testEveryOneOfManyOwnersIsFound() throws {
        let links = (0..<5_000).flatMap { owner in (0...(owner % 3)).map { ("o\(owner)", "r\(owner * 7 % 13 + $0)") } }
        let digests = try digests(links)
        let stored = Dictionary(grouping: links, by: \.0).mapValues { $0.map(\.1) }
        for (owner, related) in stored {
            XCTAssertTrue(holds(digests, owner, related.reversed()), owner)
            XCTAssertFalse(holds(digests, owner, related + ["r99"]), owner)
        }
        // All at once, each answer in its owner's place: every third one asked with a link too many.
        let asked = stored.sorted { $0.key < $1.key }.enumerated().map { index, entry in
            (relatedIds: index % 3 == 0 ? entry.value + ["r99"] : entry.value, ownerHash: StoredLinkDigests.ownerHash(entry.key))
        }
        XCTAssertEqual(digests.holdAll(asked), asked.indices.map { $0 % 3 != 0 })
    }
}
