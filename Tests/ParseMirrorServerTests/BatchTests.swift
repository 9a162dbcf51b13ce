import ParseMirrorServer
import ParseModel
import XCTest

/// `POST /batch`: per-request results in order, routing errors, transactions.
final class BatchTests: XCTestCase {
    func testMixedSuccessAndErrorInRequestOrder() throws {
        let server = try TestServer()
        let existing = server.create("Book", #"{"title":"Emma"}"#)
        let reply = server.send(
            "POST", "/batch",
            """
            {"requests":[
              {"method":"POST","path":"/parse/classes/Book","body":{"title":"Persuasion"}},
              {"method":"PUT","path":"/parse/classes/Book/missing","body":{"title":"x"}},
              {"method":"POST","path":"/parse/classes/Book","body":{"title":12}},
              {"method":"PUT","path":"/parse/classes/Book/\(existing)","body":{"title":"Emma!"}},
              {"method":"GET","path":"/parse/classes/Book","body":{"where":{"title":"Persuasion"}}},
              {"method":"GET","path":"/parse/classes/Book?where=%7B%22title%22%3A%22Persuasion%22%7D&count=1"},
              {"method":"DELETE","path":"/parse/classes/Book/\(existing)"}
            ],"transaction":false}
            """)
        XCTAssertEqual(reply.status, 200)
        guard case .array(let items) = reply.json else { return XCTFail(reply.json.serialized()) }
        XCTAssertEqual(items.count, 7)
        XCTAssertNotNil(items[0]["success"]?["objectId"])
        XCTAssertNotNil(items[0]["success"]?["createdAt"])
        XCTAssertEqual(items[1], .parse(#"{"error":{"code":101,"error":"Object not found."}}"#))
        XCTAssertEqual(ParseErrorCode(errorBody: items[2]["error"]), .incorrectType)
        XCTAssertNotNil(items[3]["success"]?["updatedAt"])
        XCTAssertEqual(
            items[4]["success"]?["results"].map { if case .array(let r) = $0 { r.count } else { -1 } }, 1,
            "a GET sees the writes before it in the batch")
        XCTAssertEqual(items[5]["success"]?["count"], .integer(1), "parameters may also come in the path's query string")
        XCTAssertEqual(items[6], .parse(#"{"success":{}}"#))
        XCTAssertEqual(try server.rows("SELECT title FROM Book"), [["Persuasion"]])
    }

    /// A sub-request's query string is decoded as a request's own is (by the HTTP layer): `+` is
    /// a space, and a `%` without two hex digits is kept while the escapes around it are decoded.
    func testSubRequestQueryStringsAreDecodedAsARequestsOwn() throws {
        let server = try TestServer()
        server.create("Book", #"{"title":"100%zz off"}"#)
        let reply = server.send(
            "POST", "/batch",
            #"{"requests":[{"method":"GET","path":"/parse/classes/Book?where=%7B%22title%22%3A%22100%zz+off%22%7D&count=1"}]}"#)
        XCTAssertEqual(reply.status, 200)
        guard case .array(let items) = reply.json else { return XCTFail(reply.json.serialized()) }
        XCTAssertEqual(items.first?["success"]?["count"], .integer(1), reply.json.serialized())
        let direct = server.send("GET", "/classes/Book", query: [("where", #"{"title":"100%zz off"}"#), ("count", "1")])
        XCTAssertEqual(direct["count"], .integer(1), "the same query sent on its own")
    }

    func testPathsMustCarryTheMountPath() throws {
        let server = try TestServer()
        let reply = server.send(
            "POST", "/batch",
            """
            {"requests":[{"method":"POST","path":"/parse/classes/Book","body":{"title":"a"}},
                         {"method":"POST","path":"/classes/Book","body":{"title":"b"}}]}
            """)
        XCTAssertParseError(reply, status: 400, code: .invalidJSON, message: "cannot route batch path /classes/Book")
        XCTAssertFalse(try server.tableExists("Book"), "nothing ran")
        XCTAssertParseError(
            server.send("POST", "/batch", #"{"requests":[{"method":"PATCH","path":"/parse/classes/Book"}]}"#),
            status: 400, code: .invalidJSON, message: "cannot route PATCH /parse/classes/Book")
        XCTAssertParseError(server.send("POST", "/batch", #"{"requests":{}}"#), status: 400, code: .invalidJSON, message: "requests must be an array")
        XCTAssertParseError(
            server.send("POST", "/batch", #"{"requests":[{"method":"POST","path":"/parse/batch","body":{"requests":[]}}]}"#),
            status: 400, code: .invalidJSON)
    }

    func testTransactionIsAllOrNothing() throws {
        let server = try TestServer()
        _ = server.create("Book", #"{"title":"Emma"}"#)
        let failing = server.send(
            "POST", "/batch",
            """
            {"requests":[{"method":"POST","path":"/parse/classes/Book","body":{"title":"a"}},
                         {"method":"POST","path":"/parse/classes/Book","body":{"title":"b","pages":1}},
                         {"method":"POST","path":"/parse/classes/Book","body":{"title":3}}],"transaction":true}
            """)
        XCTAssertEqual(failing.status, 500)
        XCTAssertEqual(failing.json, .parse(#"{"code":1,"message":"Internal server error."}"#))
        XCTAssertEqual(try server.rows("SELECT title FROM Book"), [["Emma"]])
        XCTAssertFalse(try server.columns(of: "Book").contains("pages"), "schema growth is rolled back too")

        let passing = server.send(
            "POST", "/batch",
            """
            {"requests":[{"method":"POST","path":"/parse/classes/Book","body":{"title":"a"}},
                         {"method":"POST","path":"/parse/classes/Book","body":{"title":"b"}}],"transaction":true}
            """)
        XCTAssertEqual(passing.status, 200)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["3"]])

        // In order: a read sees the writes before it, in a class the batch itself creates.
        let ordered = server.send(
            "POST", "/batch",
            """
            {"requests":[{"method":"POST","path":"/parse/classes/Shelf","body":{"name":"top"}},
                         {"method":"GET","path":"/parse/classes/Shelf","body":{"where":{"name":"top"}}}],"transaction":true}
            """)
        XCTAssertEqual(ordered.status, 200, ordered.json.serialized())
        guard case .array(let items) = ordered.json, items.count == 2 else { return XCTFail(ordered.json.serialized()) }
        let created = items[0]["success"]?["objectId"]
        XCTAssertNotNil(created)
        guard case .array(let found)? = items[1]["success"]?["results"] else { return XCTFail(ordered.json.serialized()) }
        XCTAssertEqual(found.map { $0["objectId"] }, [created], ordered.json.serialized())
    }

    func testSubRequestsUseTheOuterCredentials() throws {
        let server = try TestServer()
        let (_, token) = server.signUp("ann")
        _ = server.create("Book", #"{"title":"Emma"}"#)
        let reply = server.send(
            "POST", "/batch",
            """
            {"requests":[{"method":"POST","path":"/parse/classes/Book","body":{"title":"mine","ACL":{"*":{"read":true}}}},
                         {"method":"POST","path":"/parse/classes/Secret","body":{}},
                         {"method":"GET","path":"/parse/schemas"}]}
            """, auth: .session(token))
        guard case .array(let items) = reply.json else { return XCTFail(reply.json.serialized()) }
        XCTAssertNotNil(items[0]["success"])
        XCTAssertEqual(ParseErrorCode(errorBody: items[1]["error"]), .operationForbidden)
        XCTAssertEqual(items[2], .parse(#"{"error":{"error":"unauthorized: master key is required"}}"#))
    }
    /// An invalid password fails its own sub-request only (the others run), over HTTP.
    func testInvalidPasswordFailsOnlyItsSubRequest() throws {
        let live = try LiveMirror()
        let dan = live.mirror.signUp("dan")
        live.mirror.create("Book", #"{"title":"Persuasion"}"#)
        let reply = try XCTUnwrap(
            live.send(
                "POST", "/batch",
                """
                {"requests":[
                  {"method":"POST","path":"/parse/users","body":{"username":"eve","password":"pw\\u0000tail"}},
                  {"method":"POST","path":"/parse/users","body":{"username":"fay","password":""}},
                  {"method":"POST","path":"/parse/users","body":{"username":"gus","password":"good"}},
                  {"method":"PUT","path":"/parse/users/\(dan.id)","body":{"password":"new\\u0000pw"}},
                  {"method":"POST","path":"/parse/classes/Book","body":{"title":"Emma"}}
                ]}
                """, auth: .session(dan.token)))
        XCTAssertEqual(reply.status, 200, reply.json.serialized())
        XCTAssertEqual(reply.json[0]?["error"]?["code"], .integer(Int64(ParseErrorCode.validationError.rawValue)), reply.json.serialized())
        XCTAssertEqual(reply.json[0]?["error"]?["error"]?.text, "A password cannot contain the NUL character (\\u0000).")
        XCTAssertEqual(reply.json[1]?["error"]?["code"], .integer(Int64(ParseErrorCode.passwordMissing.rawValue)))
        XCTAssertNotNil(reply.json[2]?["success"]?["sessionToken"]?.text)
        XCTAssertEqual(reply.json[3]?["error"]?["code"], .integer(Int64(ParseErrorCode.validationError.rawValue)))
        XCTAssertNotNil(reply.json[4]?["success"]?["objectId"]?.text)
        XCTAssertEqual(try live.mirror.rows("SELECT username FROM _User ORDER BY username"), [["dan"], ["gus"]])
        XCTAssertEqual(try live.mirror.rows("SELECT title FROM Book ORDER BY title"), [["Emma"], ["Persuasion"]])
        XCTAssertEqual(
            live.send("POST", "/login", #"{"username":"dan","password":"secret"}"#, auth: .anonymous)?.status, 200,
            "the refused change left dan's password as it was")
        XCTAssertEqual(live.send("POST", "/login", #"{"username":"gus","password":"good"}"#, auth: .anonymous)?.status, 200)
    }
}
