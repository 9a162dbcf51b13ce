import Foundation
import ParseModel
import XCTest

/// `$regex` runs on PCRE2 (MongoDB's engine and dialect) with match limits: catastrophic
/// backtracking fails fast with 102 while other clients are answered, over HTTP.
final class HostileRegexTests: XCTestCase {
    private static let catastrophic = #"(.*){1,64}[bc]"#

    private func shelf(_ count: Int) throws -> LiveMirror {
        let live = try LiveMirror()
        let books = (0..<count).map { #"{"method":"POST","path":"/parse/classes/Book","body":{"title":"The Lord of the Rings volume \#($0) aaaa"}}"# }
        XCTAssertEqual(live.mirror.send("POST", "/batch", #"{"requests":[\#(books.joined(separator: ","))]}"#).status, 200)
        return live
    }

    func testCatastrophicBacktrackingFailsFastWhileOthersAreAnswered() throws {
        let live = try shelf(100)
        let where_ = #"{"title":{"$regex":"\#(Self.catastrophic.replacingOccurrences(of: "\\", with: "\\\\"))"}}"#
        let hostile = DispatchGroup()
        nonisolated(unsafe) var hostileReply: TestServer.Reply?
        nonisolated(unsafe) var hostileSeconds = 0.0
        DispatchQueue.global().async(group: hostile) {
            hostileSeconds = LiveMirror.seconds {
                hostileReply = live.send("POST", "/classes/Book", #"{"_method":"GET","where":\#(where_)}"#, timeout: 60)
            }
        }
        Thread.sleep(forTimeInterval: 0.05)
        var normal: TestServer.Reply?
        let normalSeconds = LiveMirror.seconds { normal = live.send("GET", "/classes/Book?limit=1&count=1") }
        XCTAssertEqual(normal?.status, 200)
        XCTAssertEqual(normal?["count"], .integer(100))
        XCTAssertLessThan(normalSeconds, 1, "a plain query beside the hostile regex answers at once")
        hostile.wait()
        let reply = try XCTUnwrap(hostileReply)
        XCTAssertParseError(reply, status: 400, code: .invalidQuery)
        XCTAssertTrue(reply.error?.contains("backtracks too much") ?? false, reply.json.serialized())
        XCTAssertLessThan(hostileSeconds, 5, "the hostile regex gave up quickly")
        let tooLarge = try XCTUnwrap(live.send("POST", "/classes/Book", #"{"_method":"GET","where":{"title":{"$regex":"(.*){1,32000}[bc]"}}}"#))
        XCTAssertParseError(
            tooLarge, status: 400, code: .invalidQuery,
            message: "Invalid regular expression: (.*){1,32000}[bc]")
    }

    func testMongoDialect() throws {
        let live = try LiveMirror()
        live.mirror.create("Book", #"{"title":"The Hobbit"}"#)
        live.mirror.create("Book", #"{"title":"Dune"}"#)
        func titles(_ constraint: String) -> [String] {
            let reply = live.send("POST", "/classes/Book", #"{"_method":"GET","order":"title","where":{"title":\#(constraint)}}"#)
            XCTAssertEqual(reply?.status, 200, reply?.json.serialized() ?? "no answer")
            return reply?.results.compactMap { $0["title"]?.text } ?? []
        }
        XCTAssertEqual(titles(#"{"$regex":"(?P<word>Hob)bit"}"#), ["The Hobbit"], "Python-style named groups, as MongoDB")
        XCTAssertEqual(titles(#"{"$regex":"The \\KHobbit"}"#), ["The Hobbit"], "\\K resets the match start and still matches")
        XCTAssertEqual(titles(#"{"$regex":"\\Qe H\\E"}"#), ["The Hobbit"])
        XCTAssertEqual(titles(#"{"$regex":"^d u n e$","$options":"ix"}"#), ["Dune"])
        XCTAssertEqual(titles(#"{"$regex":"(?<!The )Hobbit"}"#), [])
        let invalid = try XCTUnwrap(live.send("GET", "/classes/Book?where=%7B%22title%22%3A%7B%22%24regex%22%3A%22(%22%7D%7D"))
        XCTAssertParseError(invalid, status: 400, code: .invalidQuery, message: "Invalid regular expression: (")
    }

    func testRegexMatchesTheWholeValueAcrossNUL() throws {
        let live = try LiveMirror()
        live.mirror.create("Note", #"{"text":"a\u0000b"}"#)
        live.mirror.create("Note", #"{"text":"ab"}"#)
        func texts(_ where_: String) -> [String] {
            let reply = live.send("POST", "/classes/Note", #"{"_method":"GET","order":"text","where":\#(where_)}"#, auth: .anonymous)
            XCTAssertEqual(reply?.status, 200, reply?.json.serialized() ?? "no answer")
            return reply?.results.compactMap { $0["text"]?.text } ?? []
        }
        XCTAssertEqual(texts(#"{"text":{"$regex":"b$"}}"#), ["a\u{0}b", "ab"], "the part after the NUL is matched")
        XCTAssertEqual(texts(#"{"text":{"$regex":"^a\\x00b$"}}"#), ["a\u{0}b"])
        XCTAssertEqual(texts(#"{"text":{"$regex":"a\u0000b"}}"#), ["a\u{0}b"], "a NUL in the pattern is part of it")
        XCTAssertEqual(texts(#"{"text":{"$regex":"^a$"}}"#), [], "a value is not cut at its NUL")
    }
}
