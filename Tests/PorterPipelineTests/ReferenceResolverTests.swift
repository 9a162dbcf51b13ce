import XCTest

@testable import ParseModel
@testable import PorterPipeline

/// What references resolve to (ReferenceResolver), on its own: no pass, no sink.
final class ReferenceResolverTests: XCTestCase {
    private static let manifest = """
        version: 1
        classes:
          Author:
            source: authors.csv
            key: [name]
            fields:
              name: String!
              email: String
          Book:
            source: books.csv
            key: [title]
            fields:
              title: String!
              author: {type: Pointer<Author>, by: email}
              coauthors: Relation<Author>
        """

    private func resolver(validated: [String: KeyIndex]? = nil, ahead: Bool = false) throws -> ReferenceResolver {
        let data = try TemporaryDataset(["dataset.yml": Self.manifest, "authors.csv": "name,email\n", "books.csv": "title,author,coauthors\n"])
        return ReferenceResolver(manifest: try data.load(), validatedIndexes: validated, resolvesAhead: ahead)
    }

    private func author(_ key: String) -> ObjectReference { ObjectReference(targetClass: "Author", identity: .key(key)) }
    private func hash(_ key: String) -> KeyHash { KeyHash(className: "Author", key: key) }

    func testEveryDatasetClassHasAnIndexAndTheFieldsReferencesNameItBy() throws {
        let references = try resolver()
        XCTAssertEqual(Set(references.indexes.keys), ["Author", "Book"])
        XCTAssertEqual(references.indexes["Author"]?.uniqueFields, ["email"])
        XCTAssertEqual(references.indexes["Book"]?.uniqueFields, [])
    }

    func testFoundRejectedAndMissingObjectsByKeyAndByField() throws {
        let references = try resolver()
        let index = references.indexes["Author"]!
        XCTAssertEqual(index.register(objectId: hash("Tolkien").objectId, keyHash: hash("Tolkien"), explicitId: false, line: 2), .added)
        index.register(field: "email", value: "jrr@example.com", objectId: hash("Tolkien").objectId, keyHash: hash("Tolkien"), line: 2)
        XCTAssertEqual(index.register(objectId: hash("Lewis").objectId, keyHash: hash("Lewis"), explicitId: false, line: 3), .added)
        index.reject(objectId: hash("Lewis").objectId, keyHash: hash("Lewis"))

        XCTAssertEqual(references.resolve(author("Tolkien"), in: "books.csv"), .found(FoundObject(givenId: hash("Tolkien").objectId), line: 2))
        XCTAssertEqual(
            references.resolve(ObjectReference(targetClass: "Author", identity: .field(name: "email", value: "jrr@example.com")), in: "books.csv"),
            .found(FoundObject(givenId: hash("Tolkien").objectId), line: 2))
        XCTAssertEqual(references.resolve(author("Lewis"), in: "books.csv"), .rejected(line: 3))
        XCTAssertEqual(references.resolve(author("Herbert"), in: "books.csv"), .missing)
        XCTAssertEqual(references.resolve(ObjectReference(targetClass: "_User", identity: .objectId("u1")), in: "books.csv"), .outsideDataset)
    }

    /// A found object's objectId is the one its source gave, else the one its key derives.
    func testAFoundObjectsIdIsTheGivenOneElseItsKeys() throws {
        let references = try resolver()
        let index = references.indexes["Author"]!
        XCTAssertEqual(index.register(objectId: "given0001", keyHash: hash("Tolkien"), explicitId: true, line: 2), .added)
        XCTAssertEqual(index.register(objectId: hash("Lewis").objectId, keyHash: hash("Lewis"), explicitId: false, line: 3), .added)
        guard case .found(let tolkien, line: 2) = references.resolve(author("Tolkien"), in: "books.csv"),
            case .found(let lewis, line: 3) = references.resolve(author("Lewis"), in: "books.csv"),
            case .found(let byId, line: 2) = references.resolve(ObjectReference(targetClass: "Author", identity: .objectId("given0001")), in: "books.csv")
        else { return XCTFail("an author was not found") }
        XCTAssertEqual(tolkien.objectId, "given0001")
        XCTAssertEqual(lewis.objectId, hash("Lewis").objectId)
        XCTAssertEqual(byId.objectId, "given0001")
    }

    /// References are compared by their key's hash, as the key index keeps keys: a reference
    /// held as its hash alone (read from a cell's bytes) is the reference by the key's text.
    /// Two keys whose hashes share the table's slot (the same low word) stay two objects; two
    /// whose hashes the table cannot tell apart (the 96 bits it keeps) are one key, so the second
    /// object is a duplicate key (a fault naming both rows), never a second target of one reference.
    func testKeysWhoseHashesCollideAreNeverTwoObjectsForOneReference() throws {
        let references = try resolver()
        let index = references.indexes["Author"]!
        let byHash = { (hash: KeyHash) in ObjectReference(targetClass: "Author", identity: .key(nil), keyHash: hash) }
        XCTAssertEqual(byHash(hash("Tolkien")), author("Tolkien"), "held as its hash, it is the reference by its text")
        XCTAssertFalse(byHash(hash("Tolkien")).hasText)

        let first = KeyHash(high: 1, low: 42), sameSlot = KeyHash(high: 2, low: 42)
        // Differs from `first` only in the high word's top 32 bits, which the table does not keep.
        let indistinct = KeyHash(high: 1 | 1 << 40, low: 42)
        XCTAssertEqual(index.register(objectId: first.objectId, keyHash: first, explicitId: false, line: 2), .added)
        XCTAssertEqual(index.register(objectId: sameSlot.objectId, keyHash: sameSlot, explicitId: false, line: 3), .added)
        XCTAssertEqual(index.register(objectId: indistinct.objectId, keyHash: indistinct, explicitId: false, line: 4), .duplicateKey(firstLine: 2))
        XCTAssertNotEqual(byHash(first), byHash(sameSlot))
        guard case .found(let one, line: 2) = references.resolve(byHash(first), in: "books.csv"),
            case .found(let other, line: 3) = references.resolve(byHash(sameSlot), in: "books.csv")
        else { return XCTFail("an object whose hash shares a slot was not found") }
        XCTAssertEqual(one.objectId, first.objectId)
        XCTAssertEqual(other.objectId, sameSlot.objectId)
        XCTAssertNotEqual(one, other)
        XCTAssertEqual(references.resolve(byHash(KeyHash(high: 3, low: 42)), in: "books.csv"), .missing, "a third hash of the slot names nothing")
    }

    func testAReferenceWaitsOnlyWhileItsClassIsBeingReadAndItsObjectIsNotSeenYet() throws {
        let references = try resolver()
        let index = references.indexes["Author"]!
        _ = index.register(objectId: hash("Tolkien").objectId, keyHash: hash("Tolkien"), explicitId: false, line: 2)

        XCTAssertFalse(references.waits(author("Tolkien"), target: references.target("Author")), "an object already read resolves now")
        XCTAssertTrue(references.waits(author("Herbert"), target: references.target("Author")), "an object not seen yet may come further down")
        XCTAssertTrue(
            references.waits(ObjectReference(targetClass: "Author", identity: .field(name: "email", value: "x")), target: references.target("Author")),
            "by another field a later object may have the same value")
        XCTAssertTrue(references.linksWait(for: references.target("Author")))
        XCTAssertFalse(
            references.waits(ObjectReference(targetClass: "_User", identity: .objectId("u1")), target: references.target("_User")),
            "a class outside the dataset is complete")

        references.finished("Author")
        XCTAssertTrue(references.isComplete("Author"))
        XCTAssertFalse(references.waits(author("Herbert"), target: references.target("Author")), "once the class is read a missing object is missing")
        XCTAssertFalse(references.linksWait(for: references.target("Author")))
        XCTAssertEqual(references.finishedClasses, ["Author"])
    }

    func testResolvingAheadUsesTheValidatedIndexesAndNeverWaits() throws {
        let validating = try resolver()
        _ = validating.indexes["Author"]!.register(objectId: hash("Herbert").objectId, keyHash: hash("Herbert"), explicitId: false, line: 9)

        let ahead = try resolver(validated: validating.indexes, ahead: true)
        XCTAssertTrue(ahead.resolvesAhead)
        XCTAssertFalse(ahead.waits(author("Herbert"), target: ahead.target("Author")))
        XCTAssertFalse(ahead.linksWait(for: ahead.target("Author")))
        XCTAssertEqual(
            ahead.resolve(author("Herbert"), in: "books.csv"), .found(FoundObject(givenId: hash("Herbert").objectId), line: 9),
            "found in the validated index though this pass has read no Author yet")

        let notAhead = try resolver(validated: validating.indexes, ahead: false)
        XCTAssertFalse(notAhead.resolvesAhead)
        XCTAssertEqual(notAhead.resolve(author("Herbert"), in: "books.csv"), .missing)
        XCTAssertFalse(try resolver(validated: nil, ahead: true).resolvesAhead, "ahead needs validated indexes")
    }

    func testReferencesIntoAnUnreadSourceAreCountedPerClassAndFileNotReportedOneByOne() throws {
        let references = try resolver()
        XCTAssertEqual(references.resolve(author("Herbert"), in: "books.csv"), .missing)
        references.unread("authors.csv")
        XCTAssertTrue(references.isUnread("Author"))
        XCTAssertFalse(references.isUnread("Book"))
        XCTAssertEqual(references.resolve(author("Herbert"), in: "books.csv"), .unchecked)
        XCTAssertEqual(references.resolve(author("Asimov"), in: "books.csv"), .unchecked)
        XCTAssertEqual(references.resolve(author("Le Guin"), in: "more-books.csv"), .unchecked)

        let unchecked = references.takeUncheckedReferences()
        XCTAssertEqual(unchecked.map(\.className), ["Author"])
        XCTAssertEqual(unchecked.first?.count, 3)
        XCTAssertEqual(unchecked.first?.files, ["books.csv", "more-books.csv"])
        XCTAssertTrue(references.takeUncheckedReferences().isEmpty, "taken once")
    }
}
