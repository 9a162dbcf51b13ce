import MirrorQuery
import ParseModel
import XCTest

/// ACL read filtering: public objects, per user, per role, master key; also for includes.
final class AccessTests: LibraryMirrorTestCase {
    func testReadAccess() throws {
        XCTAssertEqual(ids("Book", access: .anonymous), ["b1", "b2", "b3"])
        XCTAssertEqual(ids("Book", access: ReadAccess(principals: ["*", "u1"])), ["b1", "b2", "b3", "b4"])
        XCTAssertEqual(ids("Book", access: ReadAccess(principals: ["*", "u2", "role:Admin"])), ["b1", "b2", "b3", "b5"])
        XCTAssertEqual(ids("Book", access: .master), ["b1", "b2", "b3", "b4", "b5", "b6"])
        XCTAssertEqual(ids("Book", access: ReadAccess(principals: [])), ["b1", "b2"], "without * only objects with no ACL")
        XCTAssertEqual(try find("Book", #"{"count":1,"limit":0}"#, access: .anonymous).count, 3)
    }

    func testGetRespectsACL() throws {
        XCTAssertNil(try reader.get(className: "Book", objectId: "b4", keys: nil, include: [], schemas: schemas, access: .anonymous))
        XCTAssertNotNil(
            try reader.get(className: "Book", objectId: "b4", keys: nil, include: [], schemas: schemas, access: ReadAccess(principals: ["*", "u1"])))
        XCTAssertNil(
            try reader.get(
                className: "Book", objectId: "b6", keys: nil, include: [], schemas: schemas, access: ReadAccess(principals: ["*", "u1", "role:Admin"])))
    }

    func testIncludedObjectsNeedReadAccessToo() throws {
        let dune = try XCTUnwrap(reader.get(className: "Book", objectId: "b3", keys: nil, include: ["genre"], schemas: schemas, access: .anonymous))
        XCTAssertEqual(dune["genre"], json(#"{"__type":"Pointer","className":"Genre","objectId":"g2"}"#))
        let asUser = try XCTUnwrap(
            reader.get(className: "Book", objectId: "b3", keys: nil, include: ["genre"], schemas: schemas, access: ReadAccess(principals: ["*", "u1"])))
        XCTAssertEqual(asUser["genre"]?["name"], .string("Science Fiction"))
        XCTAssertEqual(asUser["genre"]?["ACL"], json(#"{"u1":{"read":true}}"#))
    }
}
