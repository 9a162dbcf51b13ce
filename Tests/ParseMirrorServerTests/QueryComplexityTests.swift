import Foundation
import ParseMirrorServer
import ParseModel
import PorterSQLite
import XCTest

/// The work one query may ask for, over HTTP: its run time (124), how deeply its `where` nests
/// `$or`/`$and`/`$nor` and sub-queries, and how many and how deep its `include` paths are (102,
/// Parse Server's `requestComplexity` limits with the defaults Parse Server 9 announces, but 8
/// nested sub-queries).
final class QueryComplexityTests: XCTestCase {
    /// A `Book` class of `count` objects (`b000000001`…) whose `title` is `length` `a`s, written
    /// straight into the mirror file (a batch of 100 at a time would take minutes).
    private func shelf(_ count: Int, length: Int, _ configure: @escaping (inout ParseServerConfiguration) -> Void = { _ in }) throws -> LiveMirror {
        let live = try LiveMirror(configure)
        live.mirror.create("Book", #"{"title":"seed"}"#)
        let database = try SQLiteDatabase(path: live.mirror.path, create: false)
        defer { database.close() }
        try database.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count - 1))
            INSERT INTO "Book" ("objectId", "createdAt", "updatedAt", "title")
            SELECT printf('b%09d', i), '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', replace(printf('%\(length)s', ''), ' ', 'a') FROM n
            """)
        return live
    }

    /// Slow by construction: with PCRE2's start-up optimisations off, `a*a*b` backtracks on
    /// each title of `a`s before failing: about 5,000 times on 30 of them, milliseconds' work on
    /// 200 (below the match limit either way, so not 102).
    private static let slowWhere = #"{"title":{"$regex":"(*NO_START_OPT)(*NO_AUTO_POSSESS)a*a*b"}}"#

    func testQueryPastTheTimeLimitIs124AndOthersAreStillAnswered() throws {
        // 2,000 rows of about 30 ms each: a clock read only every 10,000 SQLite steps (about
        // 1,000 such rows) let this run for a minute.
        let live = try shelf(2_000, length: 200) { $0.limits.queryTimeLimit = 0.2 }
        var slow: TestServer.Reply?
        let seconds = LiveMirror.seconds {
            slow = live.send("POST", "/classes/Book", #"{"_method":"GET","count":1,"limit":0,"where":\#(Self.slowWhere)}"#, timeout: 60)
        }
        XCTAssertParseError(
            try XCTUnwrap(slow), status: 400, code: .timeout,
            message: "The query ran longer than the server's limit of 0.2 s; narrow its where or lower its limit")
        XCTAssertLessThan(seconds, 20, "ended at the limit, not when the scan finished (about a minute)")
        let next = try XCTUnwrap(live.send("GET", "/classes/Book?count=1&limit=1&where=%7B%22objectId%22%3A%22b000001999%22%7D"))
        XCTAssertEqual(next.status, 200, next.json.serialized())
        XCTAssertEqual(next["count"], .integer(1))
        XCTAssertEqual(next.results.first?["title"]?.text, String(repeating: "a", count: 200))
        XCTAssertEqual(live.send("GET", "/classes/Book?count=1&limit=0")?["count"], .integer(2_000))
        let quick = try XCTUnwrap(live.send("POST", "/classes/Book", #"{"_method":"GET","where":{"title":"seed"}}"#))
        XCTAssertEqual(quick.results.compactMap { $0["title"]?.text }, ["seed"], "the connection that timed out serves the next query")
    }

    func testTheSameQueryFinishesUnderTheDefaultLimit() throws {
        let live = try shelf(2_000, length: 30)
        let reply = try XCTUnwrap(live.send("POST", "/classes/Book", #"{"_method":"GET","count":1,"limit":0,"where":\#(Self.slowWhere)}"#, timeout: 60))
        XCTAssertEqual(reply.status, 200, reply.json.serialized())
        XCTAssertEqual(reply["count"], .integer(0), "no title holds a b")
    }

    /// `{"$or":[{"$or":[… {"n":1} …]}]}` with `depth` logical operators.
    private static func nested(_ depth: Int, _ operator_: String = "$or", innermost: String = #"{"n":1}"#) -> String {
        (0..<depth).reduce(innermost) { inner, _ in #"{"\#(operator_)":[\#(inner)]}"# }
    }

    func testWhereNestingIsLimitedToTenLogicalLevels() throws {
        let live = try LiveMirror()
        live.mirror.create("Item", #"{"n":1}"#)
        live.mirror.create("Item", #"{"n":2}"#)
        let ten = try XCTUnwrap(live.send("POST", "/classes/Item", #"{"_method":"GET","where":\#(Self.nested(10))}"#, auth: .anonymous))
        XCTAssertEqual(ten.results.compactMap { $0["n"] }, [.integer(1)], ten.json.serialized())
        let message = "Query condition nesting depth exceeds maximum allowed depth of 10"
        for where_ in [Self.nested(11), Self.nested(11, "$and"), Self.nested(11, "$nor"), Self.nested(150)] {
            let reply = try XCTUnwrap(live.send("POST", "/classes/Item", #"{"_method":"GET","where":\#(where_)}"#, auth: .anonymous))
            XCTAssertParseError(reply, status: 400, code: .invalidQuery, message: message)
        }
        let master = try XCTUnwrap(live.send("GET", "/classes/Item?count=1&where=" + Self.percentEncoded(Self.nested(11))))
        XCTAssertParseError(master, status: 400, code: .invalidQuery, message: message)
        let mixed = #"{"$and":[\#(Self.nested(5, "$nor", innermost: Self.nested(6)))]}"#
        XCTAssertParseError(
            try XCTUnwrap(live.send("POST", "/classes/Item", #"{"_method":"GET","where":\#(mixed)}"#)),
            status: 400, code: .invalidQuery, message: message)
        let inSubquery = #"{"n":{"$select":{"query":{"className":"Item","where":\#(Self.nested(11))},"key":"n"}}}"#
        XCTAssertParseError(
            try XCTUnwrap(live.send("POST", "/classes/Item", #"{"_method":"GET","where":\#(inSubquery)}"#)),
            status: 400, code: .invalidQuery, message: message)
        let batch = try XCTUnwrap(
            live.send("POST", "/batch", #"{"requests":[{"method":"GET","path":"/parse/classes/Item","body":{"where":\#(Self.nested(11))}}]}"#))
        XCTAssertEqual(batch.json[0]?["error"]?["code"], .integer(Int64(ParseErrorCode.invalidQuery.rawValue)), batch.json.serialized())
    }

    /// 8 deep, below Parse Server's 10: SQLite's parser cannot nest 10 sub-query `SELECT`s.
    func testSubqueriesNestAtMostEightDeep() throws {
        let live = try LiveMirror()
        var parent = live.mirror.create("Node", #"{"name":"root"}"#)
        for level in 1...10 {
            parent = live.mirror.create("Node", #"{"name":"n\#(level)","parent":{"__type":"Pointer","className":"Node","objectId":"\#(parent)"}}"#)
        }
        /// Nodes whose ancestor `depth` levels up is the root, as `depth` nested `$inQuery`s.
        func query(_ depth: Int) -> String {
            (0..<depth).reduce(#"{"name":"root"}"#) { inner, _ in #"{"parent":{"$inQuery":{"className":"Node","where":\#(inner)}}}"# }
        }
        let eight = try XCTUnwrap(live.send("POST", "/classes/Node", #"{"_method":"GET","where":\#(query(8))}"#, auth: .anonymous))
        XCTAssertEqual(eight.results.compactMap { $0["name"]?.text }, ["n8"], eight.json.serialized())
        for depth in [9, 10] {
            let deeper = try XCTUnwrap(live.send("POST", "/classes/Node", #"{"_method":"GET","where":\#(query(depth))}"#, auth: .anonymous))
            XCTAssertParseError(
                deeper, status: 400, code: .invalidQuery,
                message: "Subquery nesting depth exceeds maximum allowed depth of 8")
        }
    }

    func testIncludePathsAreLimitedInDepthAndNumber() throws {
        let live = try LiveMirror()
        var parent = live.mirror.create("Node", #"{"name":"n0"}"#)
        for level in 1...11 {
            parent = live.mirror.create("Node", #"{"name":"n\#(level)","up":{"__type":"Pointer","className":"Node","objectId":"\#(parent)"}}"#)
        }
        let path = { (depth: Int) in Array(repeating: "up", count: depth).joined(separator: ".") }
        let ten = try XCTUnwrap(live.send("POST", "/classes/Node", #"{"_method":"GET","where":{"name":"n11"},"include":"\#(path(10))"}"#, auth: .anonymous))
        var node = try XCTUnwrap(ten.results.first)
        for _ in 1...10 { node = try XCTUnwrap(node["up"], ten.json.serialized()) }
        XCTAssertEqual(node["name"]?.text, "n1", "ten levels are included")
        XCTAssertEqual(node["up"]?["__type"]?.text, "Pointer")
        let eleven = try XCTUnwrap(live.send("POST", "/classes/Node", #"{"_method":"GET","include":"\#(path(11))"}"#, auth: .anonymous))
        XCTAssertParseError(eleven, status: 400, code: .invalidQuery, message: "Include depth of 11 exceeds maximum allowed depth of 10")
        let byKeys = try XCTUnwrap(live.send("POST", "/classes/Node", #"{"_method":"GET","keys":"\#(path(12))"}"#))
        XCTAssertParseError(byKeys, status: 400, code: .invalidQuery, message: "Include depth of 11 exceeds maximum allowed depth of 10")
        let get = try XCTUnwrap(live.send("GET", "/classes/Node/\(parent)?include=\(path(11))", auth: .anonymous))
        XCTAssertParseError(get, status: 400, code: .invalidQuery, message: "Include depth of 11 exceeds maximum allowed depth of 10")

        let hundred = (1...100).map { "f\($0)" }.joined(separator: ",")
        XCTAssertEqual(live.send("POST", "/classes/Node", #"{"_method":"GET","include":"\#(hundred)"}"#, auth: .anonymous)?.status, 200)
        let tooMany = try XCTUnwrap(live.send("POST", "/classes/Node", #"{"_method":"GET","include":"\#(hundred),f101"}"#, auth: .anonymous))
        XCTAssertParseError(tooMany, status: 400, code: .invalidQuery, message: "Number of include fields exceeds maximum allowed (100)")
        let prefixes = { (count: Int) in (1...count).map { "g\($0).\(path(9))" }.joined(separator: ",") }
        XCTAssertEqual(
            live.send("POST", "/classes/Node", #"{"_method":"GET","include":"\#(prefixes(10))"}"#)?.status, 200,
            "10 paths of 10 components are 100 include paths with their prefixes")
        let elevenPaths = try XCTUnwrap(live.send("POST", "/classes/Node", #"{"_method":"GET","include":"\#(prefixes(11))"}"#))
        XCTAssertParseError(
            elevenPaths, status: 400, code: .invalidQuery,
            message: "Number of include fields exceeds maximum allowed (100)")
        var huge: TestServer.Reply?
        let seconds = LiveMirror.cpuSeconds {
            huge = live.send("POST", "/classes/Node", #"{"_method":"GET","include":"\#((1...200_000).map { "h\($0)" }.joined(separator: ","))"}"#, timeout: 60)
        }
        XCTAssertParseError(try XCTUnwrap(huge), status: 400, code: .invalidQuery)
        XCTAssertLessThan(seconds, 3, "200,000 include paths are refused without comparing each to all others")
    }

    private static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))
            ?? text
    }
}
