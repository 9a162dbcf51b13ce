import Foundation
import ParseModel
import PorterPipeline
import PorterSQLite
import XCTest

/// What a pull does to a mirror: objects stored with their timestamps, objects deleted with
/// their links, watermarks, schemas with permissions and indexes.
final class MirrorPullTests: MirrorTestCase {
    let genre = ClassSchema(
        className: "Genre",
        fields: [
            SchemaField(name: "name", type: .string),
            SchemaField(name: "books", type: .relation(targetClass: "Book")),
        ])

    func stored(_ id: String, title: String, updated: Int64) -> StoredObject {
        StoredObject(
            objectId: id, createdAt: ParseDate(millisecondsSince1970: 1_000), updatedAt: ParseDate(millisecondsSince1970: updated),
            acl: nil, values: [.string(title), .integer(1937), .null, .null, .null, .null])
    }

    /// Timestamps count like fields: an object whose only change is `updatedAt` (a relation
    /// change on the server) is updated, and both timestamps are kept as the source has them.
    func testStoreCopiesTimestamps() throws {
        let first = SQLiteMirror(path: path)
        try first.begin(schemas: [book], naturalKeys: [:])
        XCTAssertEqual(
            try first.store([stored("b1", title: "Emma", updated: 2_000), stored("b2", title: "Persuasion", updated: 2_000)], of: book),
            [.inserted, .inserted])
        try first.commit()
        let second = SQLiteMirror(path: path)
        try second.begin(schemas: [book], naturalKeys: [:])
        XCTAssertEqual(
            try second.store(
                [
                    stored("b1", title: "Emma", updated: 2_000), stored("b2", title: "Persuasion", updated: 3_000),
                    stored("b3", title: "Sanditon", updated: 3_000),
                ], of: book), [.unchanged, .updated, .inserted])
        try second.commit()
        XCTAssertEqual(
            try rows("SELECT objectId, createdAt, updatedAt, title FROM Book ORDER BY objectId"),
            [
                ["b1", "1970-01-01T00:00:01.000Z", "1970-01-01T00:00:02.000Z", "Emma"],
                ["b2", "1970-01-01T00:00:01.000Z", "1970-01-01T00:00:03.000Z", "Persuasion"],
                ["b3", "1970-01-01T00:00:01.000Z", "1970-01-01T00:00:03.000Z", "Sanditon"],
            ])
    }

    private let user = ClassSchema(className: "_User", fields: [SchemaField(name: "username", type: .string)])

    /// User `id` as a source gives it, the same on every read.
    private func stored(_ id: String) -> StoredObject {
        StoredObject(
            objectId: id, createdAt: ParseDate(millisecondsSince1970: 1_000), updatedAt: ParseDate(millisecondsSince1970: 2_000),
            acl: nil, values: [.string("user-\(id)")])
    }

    /// Users' hashes read from a source go into `_hashed_password`, which no `_SCHEMA` field
    /// names; a user whose hash alone changed is updated, one given no hash keeps the mirror's.
    func testStoreKeepsPasswordHashes() throws {
        let first = SQLiteMirror(path: path)
        try first.begin(schemas: [user], naturalKeys: [:])
        XCTAssertEqual(
            try first.store([stored("u1"), stored("u2"), stored("u3")], of: user, passwordHashes: ["u1": "$2b$10$one", "u2": "$2b$10$two"]),
            [.inserted, .inserted, .inserted])
        try first.commit()
        let second = SQLiteMirror(path: path)
        try second.begin(schemas: [user], naturalKeys: [:])
        XCTAssertEqual(
            try second.store([stored("u1"), stored("u2"), stored("u3")], of: user, passwordHashes: ["u1": "$2b$10$one", "u2": "$2b$10$new"]),
            [.unchanged, .updated, .unchanged])
        XCTAssertEqual(try second.store([stored("u1")], of: user), [.unchanged])
        try second.commit()
        XCTAssertEqual(
            try rows("SELECT objectId, _hashed_password FROM _User ORDER BY objectId"), [["u1", "$2b$10$one"], ["u2", "$2b$10$new"], ["u3", nil]])
        XCTAssertFalse(try rows("SELECT schema FROM _SCHEMA WHERE className = '_User'")[0][0]!.contains("password"))
    }

    /// A source that reads hashes (a database, a mirror) and gives a user none: the user has no
    /// password there any more, so the mirror's hash goes too and the user counts as updated.
    /// Without hashes (a Parse Server, `nil`) every user keeps the mirror's.
    func testStoreClearsAHashTheSourceNoLongerHas() throws {
        let first = SQLiteMirror(path: path)
        try first.begin(schemas: [user], naturalKeys: [:])
        _ = try first.store([stored("u1"), stored("u2")], of: user, passwordHashes: ["u1": "$2b$10$one", "u2": "$2b$10$two"])
        try first.commit()
        let second = SQLiteMirror(path: path)
        try second.begin(schemas: [user], naturalKeys: [:])
        XCTAssertEqual(try second.store([stored("u1"), stored("u2")], of: user), [.unchanged, .unchanged])
        XCTAssertEqual(try second.store([stored("u1"), stored("u2")], of: user, passwordHashes: ["u2": "$2b$10$two"]), [.updated, .unchanged])
        XCTAssertEqual(try second.store([stored("u1")], of: user, passwordHashes: [:]), [.unchanged], "already cleared")
        try second.commit()
        XCTAssertEqual(try rows("SELECT objectId, _hashed_password FROM _User ORDER BY objectId"), [["u1", nil], ["u2", "$2b$10$two"]])
    }

    /// Objects not kept go, with their links as owner and as related object.
    func testDeletingWhatTheSourceNoLongerHas() throws {
        let first = SQLiteMirror(path: path)
        try first.begin(schemas: [book, genre], naturalKeys: [:])
        _ = try first.store((1...3).map { stored("b\($0)", title: "Book \($0)", updated: 2_000) }, of: book)
        _ = try first.link(
            owner: "Book", field: "authors", targetClass: "Author",
            [RelationLinks(ownerId: "b1", relatedIds: ["a1"], line: 0), RelationLinks(ownerId: "b2", relatedIds: ["a1", "a2"], line: 0)], replace: true)
        _ = try first.link(
            owner: "Genre", field: "books", targetClass: "Book", [RelationLinks(ownerId: "g1", relatedIds: ["b1", "b2", "b3"], line: 0)], replace: true)
        _ = try first.flush()
        try first.commit()
        let second = SQLiteMirror(path: path)
        try second.begin(schemas: [book], naturalKeys: [:])
        try second.keepObjectIds(["b1"])
        try second.keepObjectIds(["b3", "b9"])
        XCTAssertEqual(try second.deleteObjectsNotKept(of: "Book"), ObjectDeletion(objects: 1, links: ["Book.authors": 2, "Genre.books": 1]))
        XCTAssertEqual(
            try second.deleteObjectsNotKept(of: "Book"), ObjectDeletion(objects: 2, links: ["Book.authors": 1, "Genre.books": 2]),
            "the kept ids are forgotten after each call")
        second.rollback()
        XCTAssertEqual(try rows("SELECT count(*) FROM Book"), [["3"]], "rolled back")
    }

    func testWatermarksPerClassAndSource() throws {
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: [book], naturalKeys: [:])
        XCTAssertNil(try mirror.pullWatermark(of: "Book", source: "https://a/parse"))
        try mirror.recordPull(of: "Book", source: "https://a/parse", watermark: ParseDate(millisecondsSince1970: 5))
        XCTAssertEqual(try mirror.pullWatermark(of: "Book", source: "https://a/parse"), ParseDate(millisecondsSince1970: 5))
        XCTAssertNil(try mirror.pullWatermark(of: "Book", source: "https://b/parse"), "another server's watermark does not count")
        try mirror.commit()
        XCTAssertEqual(try rows("SELECT className, server, watermark FROM _PorterPull"), [["Book", "https://a/parse", "1970-01-01T00:00:00.005Z"]])
    }

    /// A schema that brings permissions and indexes (a pulled one) keeps them in `_SCHEMA`.
    func testSchemasKeepPermissionsAndIndexes() throws {
        var withPermissions = book
        withPermissions.classLevelPermissions = .object(JSONObject(["find": .object(JSONObject(["*": .bool(true)])), "get": .object(JSONObject())]))
        withPermissions.indexes = .object(JSONObject(["title_1": .object(JSONObject(["title": .integer(1)]))]))
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: [withPermissions], naturalKeys: [:])
        try mirror.commit()
        XCTAssertEqual(try SQLiteMirror(path: path).existingSchemas(), [withPermissions])
    }
}
