import Foundation
import ParseModel
import PorterTestSupport
import XCTest

/// Numbers in query parameters that once trapped the server (`abs(Int.min)`), over HTTP and in
/// every way a query can be sent, and a seeded fuzz of query parameters after which the server
/// still answers.
final class HostileParameterTests: XCTestCase {
    private static let smallest = "-9223372036854775808"

    private func libraryMirror() throws -> LiveMirror {
        let live = try LiveMirror()
        live.mirror.create("Book", #"{"title":"Dune","pages":412,"tags":["sf"]}"#)
        live.mirror.create("Book", #"{"title":"Emma","pages":474,"tags":["novel"]}"#)
        return live
    }

    func testSmallestIntegerLimitIsInvalidQueryNotATrap() throws {
        let live = try libraryMirror()
        for parameter in ["limit", "skip"] {
            for value in [Self.smallest, "9223372036854775807", "1e300", "-1e300", "9007199254740992", "99999999999999999999999"] {
                let reply = try XCTUnwrap(live.send("GET", "/classes/Book?\(parameter)=\(value)"), "\(parameter)=\(value): no answer")
                XCTAssertParseError(reply, status: 400, code: .invalidQuery)
                XCTAssertEqual(reply.error?.hasPrefix("Invalid value for \(parameter): "), true, "\(parameter)=\(value)")
            }
        }
        let largest = try XCTUnwrap(live.send("GET", "/classes/Book?limit=-9007199254740991&order=title"))
        XCTAssertEqual(largest.status, 200)
        XCTAssertEqual(largest.results.map { $0["title"]?.text }, ["Dune", "Emma"], "the largest exact magnitude still works, negative read as positive")
    }

    func testSmallestIntegerLimitInsideBatchAndMethodOverride() throws {
        let live = try libraryMirror()
        let batch = try XCTUnwrap(
            live.send(
                "POST", "/batch",
                #"""
                {"requests":[{"method":"GET","path":"/parse/classes/Book?limit=\#(Self.smallest)"},
                             {"method":"GET","path":"/parse/classes/Book","body":{"limit":\#(Self.smallest)}},
                             {"method":"POST","path":"/parse/classes/Book","body":{"title":"Ulysses"}}]}
                """#))
        XCTAssertEqual(batch.status, 200, batch.json.serialized())
        guard case .array(let items) = batch.json, items.count == 3 else { return XCTFail(batch.json.serialized()) }
        for item in items.prefix(2) { XCTAssertEqual(ParseErrorCode(errorBody: item["error"]), .invalidQuery, item.serialized()) }
        XCTAssertNotNil(items[2]["success"]?["objectId"], "the write beside the bad queries still lands")
        let override = try XCTUnwrap(live.send("POST", "/classes/Book", #"{"_method":"GET","limit":\#(Self.smallest)}"#))
        XCTAssertParseError(override, status: 400, code: .invalidQuery)
        XCTAssertEqual(try live.mirror.rows("SELECT count(*) FROM Book"), [["3"]])
    }

    /// The parameters are checked before the class-level permissions, so a caller the CLP
    /// refuses cannot reach the trap either.
    func testSmallestIntegerLimitBeforePermissionCheck() throws {
        let live = try libraryMirror()
        XCTAssertEqual(live.mirror.send("PUT", "/schemas/Book", #"{"classLevelPermissions":{"find":{},"get":{}}}"#).status, 200)
        let reply = try XCTUnwrap(live.send("GET", "/classes/Book?limit=\(Self.smallest)", auth: .anonymous))
        XCTAssertParseError(reply, status: 400, code: .invalidQuery)
        let refused = try XCTUnwrap(live.send("GET", "/classes/Book?limit=1", auth: .anonymous))
        XCTAssertEqual(refused.status, 400, "the CLP still refuses a valid query")
    }

    /// A few thousand seeded combinations of boundary numbers and odd values in every query
    /// parameter and where operator, sent in-process (and every 50th over HTTP): every answer is
    /// a 2xx, or a 4xx with Parse's `{"code","error"}` shape, and the server still answers.
    func testSeededParameterFuzzNeverCrashesOrFailsInternally() throws {
        let live = try libraryMirror()
        var random = SplitMix(seed: 0x5EED_2026)
        let numbers = [
            Self.smallest, "9223372036854775807", "-1", "0", "1", "-0", "1e308", "-1e308", "1.5", "9007199254740993",
            "4294967296", "-2147483649", "NaN", "Infinity", "\"12\"", "\" 7 \"", "true", "null", "[]", "{}", "\"\"", "1e-320",
        ]
        let fields = ["pages", "title", "tags", "missing", "tags.0", "createdAt", "objectId"]
        let operators = [
            "$lt", "$lte", "$gt", "$gte", "$ne", "$eq", "$in", "$nin", "$all", "$exists", "$regex", "$options",
            "$maxDistance", "$nearSphere", "$within", "$containedBy", "$relatedTo", "$select", "$text",
        ]
        let parameters = ["limit", "skip", "count", "order", "keys", "excludeKeys", "include", "includeAll", "where", "explain", "hint", "bogus"]
        var statuses: [Int: Int] = [:]
        for iteration in 0..<3000 {
            var query: [(String, String)] = []
            for _ in 0...random.below(4) {
                let name = random.pick(parameters)
                let value: String
                switch name {
                case "where":
                    let number = random.pick(numbers)
                    let constraint = random.below(3) == 0 ? number : #"{"\#(random.pick(operators))":\#(random.below(2) == 0 ? number : "[\(number)]")}"#
                    value = random.below(5) == 0 ? #"{"$or":[{"\#(random.pick(fields))":\#(constraint)}]}"# : #"{"\#(random.pick(fields))":\#(constraint)}"#
                case "order", "keys", "excludeKeys", "include": value = random.below(2) == 0 ? random.pick(fields) : "-" + random.pick(numbers)
                default: value = random.pick(numbers)
                }
                query.append((name, value))
            }
            let reply: TestServer.Reply?
            if iteration % 50 == 0 {
                let text = query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
                reply = live.send("GET", "/classes/Book?\(text)")
            } else {
                reply = live.mirror.send("GET", "/classes/Book", auth: iteration % 3 == 0 ? .anonymous : .master, query: query)
            }
            guard let reply else { return XCTFail("no answer to \(query)") }
            statuses[reply.status, default: 0] += 1
            XCTAssertTrue((200..<300).contains(reply.status) || (400..<500).contains(reply.status), "\(query) → \(reply.status) \(reply.json.serialized())")
            if reply.status >= 400 {
                XCTAssertNotNil(reply.code, "\(query) → \(reply.json.serialized())")
                XCTAssertNotNil(reply.error, "\(query) → \(reply.json.serialized())")
            } else {
                XCTAssertNotNil(reply["results"], "\(query) → \(reply.json.serialized())")
            }
        }
        XCTAssertGreaterThan(statuses[200] ?? 0, 100, "the fuzz also reaches valid queries: \(statuses)")
        XCTAssertGreaterThan(statuses[400] ?? 0, 100, "and refused ones: \(statuses)")
        let after = try XCTUnwrap(live.send("GET", "/classes/Book?order=title"), "the server still answers after the fuzz")
        XCTAssertEqual(after.results.compactMap { $0["title"]?.text }, ["Dune", "Emma"])
    }
}
