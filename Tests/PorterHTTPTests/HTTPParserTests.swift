import XCTest

@testable import PorterHTTP

final class HTTPParserTests: XCTestCase {
    private func head(_ text: String) throws -> RequestHead {
        try XCTUnwrap(try HTTPParser.parseHead(Array(text.utf8)[...])).head
    }

    private func headError(_ text: String) -> HTTPRequestError? {
        do {
            _ = try HTTPParser.parseHead(Array(text.utf8)[...])
            return nil
        } catch {
            return error
        }
    }

    // MARK: Request head

    func testRequestLineAndHeaders() throws {
        let text = "get /classes/Book?limit=2 HTTP/1.1\r\nHost: example.org\r\nX-Parse-Application-Id:  app \r\nX-Empty:\r\n\r\n"
        let parsed = try XCTUnwrap(try HTTPParser.parseHead(Array((text + "rest").utf8)[...]))
        XCTAssertEqual(parsed.length, text.utf8.count, "stops after the empty line")
        XCTAssertEqual(parsed.head.method, "GET")
        XCTAssertEqual(parsed.head.target, "/classes/Book?limit=2")
        XCTAssertEqual(parsed.head.minorVersion, 1)
        XCTAssertEqual(
            parsed.head.headers.map { "\($0.name)=\($0.value)" },
            ["Host=example.org", "X-Parse-Application-Id=app", "X-Empty="])
        XCTAssertEqual(parsed.head.headers["x-parse-application-id"], "app")
        XCTAssertEqual(parsed.head.bodyFraming, .none)
        XCTAssertTrue(parsed.head.keepAlive)
        XCTAssertFalse(parsed.head.expectsContinue)
        XCTAssertEqual(try head("GET /caf\u{E9} HTTP/1.1\r\n\r\n").target, "/café", "raw UTF-8 is tolerated")
    }

    func testIncompleteHeadWaitsForMore() throws {
        for text in ["", "GET / HTTP/1.1", "GET / HTTP/1.1\r\nHost: x\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\r"] {
            XCTAssertNil(try HTTPParser.parseHead(Array(text.utf8)[...]), text)
        }
    }

    func testLeadingEmptyLinesAndBareLineFeeds() throws {
        let text = "\r\n\nPOST /a HTTP/1.0\nContent-Length: 3\n\n"
        let parsed = try XCTUnwrap(try HTTPParser.parseHead(Array(text.utf8)[...]))
        XCTAssertEqual(parsed.length, text.utf8.count)
        XCTAssertEqual(parsed.head.method, "POST")
        XCTAssertEqual(parsed.head.minorVersion, 0)
        XCTAssertEqual(parsed.head.bodyFraming, .length(3))
    }

    func testParsesFromASliceOffset() throws {
        let bytes = Array("GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\n".utf8)
        let first = try XCTUnwrap(try HTTPParser.parseHead(bytes[...]))
        let second = try XCTUnwrap(try HTTPParser.parseHead(bytes[first.length...]))
        XCTAssertEqual(second.head.target, "/2")
        XCTAssertEqual(first.length + second.length, bytes.count)
    }

    func testBodyFraming() throws {
        XCTAssertEqual(try head("POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n").bodyFraming, .length(12))
        XCTAssertEqual(try head("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n").bodyFraming, .none)
        XCTAssertEqual(try head("POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 5, 5\r\n\r\n").bodyFraming, .length(5))
        XCTAssertEqual(try head("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n").bodyFraming, .chunked)
        XCTAssertEqual(headError("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"), .malformed)
        XCTAssertEqual(headError("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), .malformed)
        XCTAssertEqual(headError("POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n"), .malformed)
        XCTAssertEqual(headError("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n"), .bodyTooLarge)
        XCTAssertEqual(headError("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"), .malformed)
        XCTAssertEqual(headError("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), .unsupportedTransferEncoding)
    }

    func testKeepAlive() throws {
        XCTAssertTrue(try head("GET / HTTP/1.1\r\n\r\n").keepAlive)
        XCTAssertFalse(try head("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").keepAlive)
        XCTAssertFalse(try head("GET / HTTP/1.1\r\nConnection: upgrade, close\r\n\r\n").keepAlive)
        XCTAssertFalse(try head("GET / HTTP/1.0\r\n\r\n").keepAlive)
        XCTAssertTrue(try head("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").keepAlive)
    }

    func testExpect() throws {
        XCTAssertTrue(try head("PUT / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n").expectsContinue)
        XCTAssertFalse(
            try head("PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n").expectsContinue,
            "HTTP/1.0 clients do not wait")
        XCTAssertEqual(headError("PUT / HTTP/1.1\r\nExpect: something\r\n\r\n"), .unsupportedExpectation)
    }

    func testMalformedHeads() {
        let malformed = [
            "garbage\r\n\r\n",
            "GET /\r\n\r\n",
            "GET  / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1 extra\r\n\r\n",
            "GET / HTTP/2.0\r\n\r\n",
            "GET / http/1.1\r\n\r\n",
            "G(T / HTTP/1.1\r\n\r\n",
            "GET /a\u{1}b HTTP/1.1\r\n\r\n",
            "GET /a\u{7F}b HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
            "GET / HTTP/1.1\r\nHost : x\r\n\r\n",
            "GET / HTTP/1.1\r\n: empty name\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
            "GET / HTTP/1.1\r\nX: a\u{0}b\r\n\r\n",
            "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",
        ]
        for text in malformed {
            XCTAssertEqual(headError(text), .malformed, text.debugDescription)
        }
    }

    func testHeadSizeLimit() {
        let padding = String(repeating: "p", count: HTTPParser.maxHeadBytes)
        XCTAssertEqual(headError("GET / HTTP/1.1\r\nX: \(padding)"), .headersTooLarge, "no end in sight")
        XCTAssertEqual(headError("GET / HTTP/1.1\r\nX: \(padding)\r\n\r\n"), .headersTooLarge, "complete but too long")
        XCTAssertEqual(headError(String(repeating: "\r\n", count: HTTPParser.maxHeadBytes)), .headersTooLarge)
    }

    // MARK: Request target

    func testPathAndQueryDecoding() {
        let target = "/classes/Book%20Club/a+b?a=1&b=x%20y+z&&flag&c=%3D%26&caf%C3%A9=d%C3%A9j%C3%A0"
        let (path, query) = HTTPParser.splitTarget(target)
        XCTAssertEqual(path, "/classes/Book Club/a+b", "+ is literal in the path")
        XCTAssertEqual(
            query.map { [$0.name, $0.value] },
            [["a", "1"], ["b", "x y z"], ["flag", ""], ["c", "=&"], ["café", "déjà"]])
        XCTAssertEqual(HTTPParser.splitTarget("/caf\u{E9}?q=\u{E9}").path, "/café", "raw UTF-8 is read as is")
    }

    func testTargetEdgeCases() {
        XCTAssertEqual(HTTPParser.splitTarget("/a%zz%4").path, "/a%zz%4", "bad escapes stay as they are")
        XCTAssertEqual(HTTPParser.splitTarget("/p?q=1#frag").query.map(\.value), ["1"])
        XCTAssertEqual(HTTPParser.splitTarget("/p#frag?q=1").path, "/p")
        XCTAssertEqual(HTTPParser.splitTarget("/p?").query.count, 0)
        XCTAssertEqual(HTTPParser.splitTarget("/p?a=b=c").query.map(\.value), ["b=c"])
        let absolute = HTTPParser.splitTarget("http://example.org:1337/parse/health?x=1")
        XCTAssertEqual(absolute.path, "/parse/health")
        XCTAssertEqual(absolute.query.map(\.name), ["x"])
        XCTAssertEqual(HTTPParser.splitTarget("https://example.org").path, "/")
        XCTAssertEqual(HTTPParser.splitTarget("*").path, "*")
    }

    // MARK: Chunked bodies

    private let chunked = Array("5\r\nhello\r\n7;name=value\r\n, world\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT".utf8)

    func testChunkedBodyAtOnce() throws {
        var decoder = ChunkedDecoder(maxBodyBytes: 100)
        let used = try decoder.consume(chunked[...])
        XCTAssertTrue(decoder.isComplete)
        XCTAssertEqual(String(decoding: decoder.body, as: UTF8.self), "hello, world")
        XCTAssertEqual(Array(chunked[used...]), Array("NEXT".utf8), "what follows the body is left")
    }

    func testChunkedBodyByteByByte() throws {
        var decoder = ChunkedDecoder(maxBodyBytes: 100)
        var pending: [UInt8] = []
        for byte in chunked.dropLast(4) {
            XCTAssertFalse(decoder.isComplete)
            pending.append(byte)
            pending.removeFirst(try decoder.consume(pending[...]))
        }
        XCTAssertTrue(decoder.isComplete)
        XCTAssertEqual(pending, [])
        XCTAssertEqual(String(decoding: decoder.body, as: UTF8.self), "hello, world")
    }

    func testChunkedErrors() {
        func error(_ text: String, limit: Int = 100) -> HTTPRequestError? {
            var decoder = ChunkedDecoder(maxBodyBytes: limit)
            do {
                _ = try decoder.consume(Array(text.utf8)[...])
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(error("zz\r\n"), .malformed)
        XCTAssertEqual(error("\r\n"), .malformed)
        XCTAssertEqual(error("3\r\nabcd\r\n"), .malformed, "more data than announced")
        XCTAssertEqual(error("65\r\n"), .bodyTooLarge, "0x65 = 101 bytes")
        XCTAssertEqual(error("32\r\n" + String(repeating: "a", count: 50) + "\r\n33\r\n"), .bodyTooLarge)
        XCTAssertEqual(error("fffffffffffffffffffff\r\n", limit: .max), .bodyTooLarge)
        XCTAssertEqual(error(String(repeating: "1", count: ChunkedDecoder.maxLineBytes + 1)), .malformed)
        XCTAssertNil(error("64\r\n"), "exactly the limit is fine")
    }

    // MARK: Responses

    func testResponseSerialization() {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "999")])
        headers.add("X-Injected", "a\r\nSet-Cookie: b")
        let response = HTTPResponse(status: 201, headers: headers, body: Array(#"{"ok":true}"#.utf8))
        XCTAssertEqual(
            String(decoding: response.serialized(connection: .none, isHeadRequest: false), as: UTF8.self),
            "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-Injected: a Set-Cookie: b\r\n"
                + "Content-Length: 11\r\n\r\n{\"ok\":true}")
        XCTAssertEqual(
            String(decoding: response.serialized(connection: .close, isHeadRequest: true), as: UTF8.self),
            "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-Injected: a Set-Cookie: b\r\n"
                + "Content-Length: 11\r\nConnection: close\r\n\r\n")
        let noContent = HTTPResponse(status: 204, body: [1]).serialized(connection: .keepAlive, isHeadRequest: false)
        XCTAssertEqual(String(decoding: noContent, as: UTF8.self), "HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n")
        let unknown = HTTPResponse(status: 299).serialized(connection: .none, isHeadRequest: false)
        XCTAssertEqual(String(decoding: unknown, as: UTF8.self), "HTTP/1.1 299 \r\nContent-Length: 0\r\n\r\n")
    }

    func testHandlerConnectionCloseIsRecognised() {
        XCTAssertTrue(HTTPResponse(status: 200, headers: HTTPHeaders([("connection", "Close")])).asksToClose)
        XCTAssertFalse(HTTPResponse(status: 200, headers: HTTPHeaders([("Connection", "keep-alive")])).asksToClose)
    }
}
