import Foundation
import PorterHTTP
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class HTTPServerTests: XCTestCase {
    // MARK: URLSession

    func testGetDecodesPathAndQuery() async throws {
        let server = try startServer()
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(server.port)/classes/Book%20Club?a=1&b=x%20y+z&empty"))
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: url)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 200)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(
            try JSONDecoder().decode(Echo.self, from: data),
            Echo(
                method: "GET", path: "/classes/Book Club", query: [["a", "1"], ["b", "x y z"], ["empty", ""]],
                body: "", remoteAddress: "127.0.0.1", contentType: nil))
    }

    func testPostBodyIsEchoed() async throws {
        let server = try startServer()
        let session = URLSession(configuration: .ephemeral)
        for body in [#"{"title":"Dune","publishingYear":1965}"#, String(repeating: "é,", count: 40_000)] {
            var request = URLRequest(url: try XCTUnwrap(URL(string: "http://127.0.0.1:\(server.port)/classes/Book")))
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("app", forHTTPHeaderField: "X-Parse-Application-Id")
            request.httpBody = Data(body.utf8)
            let (data, response) = try await session.data(for: request)
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
            let echo = try JSONDecoder().decode(Echo.self, from: data)
            XCTAssertEqual(echo.method, "POST")
            XCTAssertEqual(echo.contentType, "application/json")
            XCTAssertEqual(echo.body, body)
        }
    }

    func testURLSessionConcurrentRequests() async throws {
        let server = try startServer()
        let session = URLSession(configuration: .ephemeral)
        let port = server.port
        let paths = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)/item/\(index)"))
                    let (data, _) = try await session.data(from: url)
                    return try JSONDecoder().decode(Echo.self, from: data).path
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        XCTAssertEqual(paths, Set((0..<40).map { "/item/\($0)" }))
    }

    func testHandlerAbortFailsTheURLSessionRequest() async throws {
        let server = try startServer()
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(server.port)/abort"))
        do {
            let (_, response) = try await URLSession(configuration: .ephemeral).data(from: url)
            XCTFail("expected a failed request, got \(response)")
        } catch {
            XCTAssertTrue(error is URLError, "\(error)")
        }
    }

    // MARK: Keep-alive

    func testSeveralRequestsOnOneConnection() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        for index in 0..<3 {
            let body = "{\"n\":\(index)}"
            client.send("POST /n/\(index) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let response = try XCTUnwrap(client.readResponse())
            XCTAssertEqual(response.statusLine, "HTTP/1.1 200 OK")
            XCTAssertNil(response.header("Connection"))
            XCTAssertEqual(try response.echo().path, "/n/\(index)")
            XCTAssertEqual(try response.echo().body, body)
        }
    }

    func testPipelinedRequestsInOneSend() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send(
            "GET /first?x=1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /second HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "GET /third HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try XCTUnwrap(client.readResponse()).echo()
        let second = try XCTUnwrap(client.readResponse()).echo()
        let third = try XCTUnwrap(client.readResponse()).echo()
        XCTAssertEqual(first.path, "/first")
        XCTAssertEqual(first.query, [["x", "1"]])
        XCTAssertEqual(second.method, "POST")
        XCTAssertEqual(second.body, "hello")
        XCTAssertEqual(third.path, "/third")
    }

    func testConnectionCloseIsHonoured() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("GET /bye HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(try response.echo().path, "/bye")
        XCTAssertEqual(client.readToEnd(), [])
    }

    func testHandlerCanAskToClose() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("GET /close HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).header("Connection"), "close")
        XCTAssertEqual(client.readToEnd(), [])
    }

    func testHTTP10ClosesUnlessKeepAliveIsAsked() throws {
        let server = try startServer()
        let keeping = try RawClient(port: server.port)
        for path in ["/a", "/b"] {
            keeping.send("GET \(path) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let response = try XCTUnwrap(keeping.readResponse())
            XCTAssertEqual(response.header("Connection"), "keep-alive")
            XCTAssertEqual(try response.echo().path, path)
        }
        let closing = try RawClient(port: server.port)
        closing.send("GET /c HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try XCTUnwrap(closing.readResponse()).header("Connection"), "close")
        XCTAssertEqual(closing.readToEnd(), [])
    }

    // MARK: Request bodies

    func testChunkedBody() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("POST /chunks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        client.send("7;note=x\r\n, world\r\n0\r\nX-Trailer: 1\r\n\r\nGET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(try response.echo().body, "hello, world")
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).echo().path, "/next")
    }

    func testExpectContinueIsAnsweredBeforeTheBody() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("PUT /classes/Book/x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 13\r\n\r\n")
        XCTAssertEqual(client.readHead(), "HTTP/1.1 100 Continue\r\n\r\n")
        client.send(#"{"a":"hello"}"#)
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(try response.echo().body, #"{"a":"hello"}"#)
    }

    func testOversizedBodyIs413() throws {
        let server = try startServer(maxBodyBytes: 1000)
        let declared = try RawClient(port: server.port)
        declared.send("POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "x", count: 5000))
        let response = try XCTUnwrap(declared.readResponse())
        XCTAssertEqual(response.statusLine, "HTTP/1.1 413 Content Too Large")
        XCTAssertEqual(response.bodyText, #"{"error":"request entity too large"}"#)
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(declared.readToEnd(), [])

        let chunked = try RawClient(port: server.port)
        chunked.send("POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in 0..<3 { chunked.send("190\r\n" + String(repeating: "y", count: 400) + "\r\n") }
        let chunkedResponse = try XCTUnwrap(chunked.readResponse())
        XCTAssertEqual(chunkedResponse.status, 413)
        XCTAssertEqual(chunkedResponse.bodyText, #"{"error":"request entity too large"}"#)
    }

    func testBodyAtTheLimitIsAccepted() throws {
        let server = try startServer(maxBodyBytes: 1000)
        let client = try RawClient(port: server.port)
        let body = String(repeating: "z", count: 1000)
        client.send("POST /full HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + body)
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).echo().body, body)
    }

    // MARK: Errors

    func testGarbageIs400() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("garbage\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.statusLine, "HTTP/1.1 400 Bad Request")
        XCTAssertEqual(response.header("Content-Type"), "application/json; charset=utf-8")
        XCTAssertEqual(response.bodyText, #"{"error":"bad request"}"#)
        XCTAssertEqual(client.readToEnd(), [])
    }

    func testHugeHeaderBlockIs431() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("GET / HTTP/1.1\r\nX-Padding: " + String(repeating: "p", count: 70_000) + "\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.status, 431)
        XCTAssertEqual(response.bodyText, #"{"error":"request header fields too large"}"#)
    }

    func testHandlerAbortClosesWithoutResponse() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("GET /abort HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(client.readToEnd(), [])
    }

    func testHandlerErrorIs500InParseFormat() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("GET /fail HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try XCTUnwrap(client.readResponse())
        XCTAssertEqual(response.statusLine, "HTTP/1.1 500 Internal Server Error")
        XCTAssertEqual(response.bodyText, #"{"code":1,"message":"Internal server error."}"#)
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).echo().path, "/after", "the connection stays usable")
    }

    func testHeadResponseHasLengthButNoBody() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\nGET /h HTTP/1.1\r\nHost: x\r\n\r\n")
        let headEcho = Echo(method: "HEAD", path: "/h", query: [], body: "", remoteAddress: "127.0.0.1", contentType: nil)
        let head = try XCTUnwrap(client.readHead())
        XCTAssertTrue(head.contains("Content-Length: \(try JSONEncoder().encode(headEcho).count)\r\n"), head)
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).echo().method, "GET", "no body bytes came between")
    }

    // MARK: Concurrency and lifecycle

    func testConcurrentClients() throws {
        let handler = EchoHandler()
        let server = try startServer(handler)
        let port = server.port
        let failures = NSLock()
        nonisolated(unsafe) var wrong: [String] = []
        DispatchQueue.concurrentPerform(iterations: 8) { client in
            guard let connection = try? RawClient(port: port) else {
                failures.withLock { wrong.append("client \(client) could not connect") }
                return
            }
            for request in 0..<50 {
                let path = request % 10 == 0 ? "/slow" : "/c\(client)/r\(request)"
                let body = "client \(client) request \(request)"
                connection.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                let echo = connection.readResponse().flatMap { try? $0.echo() }
                if echo?.path != path || echo?.body != body {
                    failures.withLock { wrong.append("\(path): \(String(describing: echo))") }
                }
            }
        }
        XCTAssertEqual(wrong, [])
        XCTAssertGreaterThan(handler.concurrency.maximum, 1, "the handler runs on several threads at once")
    }

    func testStopReturnsPromptlyWithIdleClients() throws {
        let server = HTTPServer(handler: EchoHandler())
        let port = try server.start()
        XCTAssertEqual(server.port, port)
        let client = try RawClient(port: port)
        client.send("GET /once HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNotNil(client.readResponse())
        let silent = try RawClient(port: port)
        let started = ContinuousClock.now
        server.stop()
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(1))
        XCTAssertEqual(client.readToEnd(), [])
        XCTAssertEqual(silent.readToEnd(), [])
        XCTAssertThrowsError(try RawClient(port: port), "no longer listening")
        server.stop()
        server.wait()
    }

    func testWaitReturnsAfterStop() throws {
        let server = HTTPServer(handler: EchoHandler())
        try server.start()
        let stopped = expectation(description: "wait returned")
        Thread.detachNewThread {
            server.wait()
            stopped.fulfill()
        }
        Thread.sleep(forTimeInterval: 0.1)
        server.stop()
        wait(for: [stopped], timeout: 5)
    }

    /// `stop()` returns however it meets the accept thread: blocked in `accept` with no client
    /// coming (closing the socket would not wake it), or just handed a connection (a client
    /// connects all the while), 200 servers in a row.
    func testStopReturnsWhetherOrNotClientsConnect() throws {
        for run in 1...200 {
            let server = HTTPServer(handler: EchoHandler())
            let port = try server.start()
            if run.isMultiple(of: 2) {
                Thread {
                    while let client = try? RawClient(port: port) {
                        client.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
                    }
                }.start()
            }
            if run.isMultiple(of: 3) { Thread.sleep(forTimeInterval: 0.001) }
            let stopped = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                server.stop()
                stopped.signal()
            }
            guard stopped.wait(timeout: .now() + 10) == .success else {
                return XCTFail("run \(run): stop() had not returned after 10 s")
            }
            server.wait()
        }
    }

    func testIdleConnectionIsClosedAfterTimeout() throws {
        let server = try startServer(idleTimeout: 0.3)
        let client = try RawClient(port: server.port)
        client.send("GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertNotNil(client.readResponse())
        let started = ContinuousClock.now
        XCTAssertEqual(client.readToEnd(), [])
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
    }

    func testPortInUseIsAClearError() throws {
        let first = try startServer()
        let second = HTTPServer(port: first.port, handler: EchoHandler())
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual("\(error)", "bind 127.0.0.1 port \(first.port): Address already in use")
        }
    }

    func testIPv6Loopback() throws {
        let server: HTTPServer
        do {
            server = try startServer(host: "::1")
        } catch {
            throw XCTSkip("no IPv6 loopback here: \(error)")
        }
        let client = try RawClient(port: server.port, host: "::1")
        client.send("GET /six HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).echo().remoteAddress, "::1")
    }

    func testAnyAddressAcceptsLoopbackClients() throws {
        let server = try startServer(host: "0.0.0.0")
        let client = try RawClient(port: server.port)
        client.send("GET /any HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertEqual(try XCTUnwrap(client.readResponse()).echo().remoteAddress, "127.0.0.1")
    }
}
