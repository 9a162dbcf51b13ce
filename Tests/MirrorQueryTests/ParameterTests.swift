import MirrorQuery
import ParseModel
import PorterCore
import XCTest

/// Parsing of query parameters, in the shapes the REST API and ParseSwift send them.
final class ParameterTests: XCTestCase {
    func parse(_ parameters: KeyValuePairs<String, JSONValue>) throws -> ParseQuery {
        try ParseQuery(className: "Book", parameters: JSONObject(parameters))
    }

    func testDefaults() throws {
        let query = try parse([:])
        XCTAssertEqual(query.limit, 100)
        XCTAssertEqual(query.skip, 0)
        XCTAssertEqual(query.order, [])
        XCTAssertNil(query.keys)
        XCTAssertEqual(query.include, [])
        XCTAssertFalse(query.count)
        XCTAssertTrue(query.constraints.isEmpty)
    }

    func testCommaStringsAndArrays() throws {
        let fromStrings = try parse(["order": .string("-year,title"), "keys": .string("title,genre.name"), "include": .string("genre")])
        let fromArrays = try parse([
            "order": .array([.string("-year"), .string("title")]),
            "keys": .array([.string("title"), .string("genre.name")]), "include": .array([.string("genre")]),
        ])
        for query in [fromStrings, fromArrays] {
            XCTAssertEqual(query.order.map(\.field), ["year", "title"])
            XCTAssertEqual(query.order.map(\.descending), [true, false])
            XCTAssertEqual(query.keys, ["title", "genre.name"])
            XCTAssertEqual(query.include, ["genre"])
        }
        XCTAssertTrue(try parse(["include": .string("*")]).includeAll)
    }

    func testNumbersAndFlags() throws {
        XCTAssertEqual(try parse(["limit": .string("10"), "skip": .integer(5)]).limit, 10)
        XCTAssertEqual(try parse(["limit": .double(3)]).limit, 3)
        XCTAssertEqual(try parse(["limit": .integer(-4)]).limit, 4, "a negative limit counts as positive, as in MongoDB")
        XCTAssertEqual(try parse(["limit": .integer(0)]).limit, 0)
        XCTAssertTrue(try parse(["count": .integer(1)]).count)
        XCTAssertTrue(try parse(["count": .bool(true)]).count)
        XCTAssertTrue(try parse(["count": .string("1")]).count)
        XCTAssertFalse(try parse(["count": .integer(0)]).count)
        XCTAssertThrowsError(try parse(["limit": .string("ten")])) { XCTAssertEqual(($0 as? PorterError)?.parseError?.code, .invalidQuery) }
        XCTAssertThrowsError(try parse(["skip": .integer(-1)])) { XCTAssertEqual(($0 as? PorterError)?.parseError?.code, .invalidQuery) }
    }

    func testWhereAsObjectOrText() throws {
        XCTAssertEqual(try parse(["where": .string(#"{"year":1937}"#)]).constraints, JSONObject(["year": .integer(1937)]))
        XCTAssertEqual(try parse(["where": .object(JSONObject(["year": .integer(1937)]))]).constraints, JSONObject(["year": .integer(1937)]))
        XCTAssertThrowsError(try parse(["where": .string("{nope")])) { XCTAssertEqual(($0 as? PorterError)?.parseError?.code, .invalidQuery) }
    }

    func testUnknownParameter() {
        XCTAssertThrowsError(try parse(["limit": .integer(1), "foo": .integer(1)])) {
            XCTAssertEqual(($0 as? PorterError)?.cause, .invalidRequest)
            XCTAssertEqual(($0 as? PorterError)?.message, "Invalid parameter for query: foo")
            XCTAssertEqual(($0 as? PorterError)?.parseError, ParseError(.invalidQuery, "Invalid parameter for query: foo"))
        }
        XCTAssertNoThrow(try parse(["readPreference": .string("PRIMARY"), "hint": .string("x"), "comment": .string("c")]))
    }
}
