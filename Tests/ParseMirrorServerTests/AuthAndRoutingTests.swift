import ParseMirrorServer
import ParseModel
import PorterHTTP
import XCTest

/// Keys, sessions, headers of every answer, unknown routes, `/health` and `/serverInfo`.
final class AuthAndRoutingTests: XCTestCase {
    func testApplicationIdIsRequiredAndChecked() throws {
        let server = try TestServer()
        for reply in [
            server.send("GET", "/classes/Book", auth: .none),
            server.send("GET", "/classes/Book", auth: .none, headers: [("X-Parse-Application-Id", "other")]),
        ] {
            XCTAssertEqual(reply.status, 403)
            XCTAssertEqual(reply.json, .parse(#"{"error":"unauthorized"}"#))
        }
    }

    func testCredentialsInTheBodyWhenNoHeaderIsSent() throws {
        let server = try TestServer()
        let created = server.send("POST", "/classes/Book", #"{"_ApplicationId":"testApp","_MasterKey":"test-master-key","title":"Emma"}"#, auth: .none)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(try server.rows("SELECT title FROM Book"), [["Emma"]], "credential members are not stored as fields")
        XCTAssertEqual(try server.columns(of: "Book"), ["objectId", "createdAt", "updatedAt", "ACL", "title"])
        let query = server.send("POST", "/classes/Book", #"{"_method":"GET","_ApplicationId":"testApp","where":{"title":"Emma"}}"#, auth: .none)
        XCTAssertEqual(query.status, 200)
        XCTAssertEqual(query.results.count, 1)
    }

    func testRESTKeyIsCheckedOnlyWhenConfigured() throws {
        let server = try TestServer { $0.restAPIKey = "rest" }
        _ = server.create("Book", #"{"title":"Emma"}"#)
        XCTAssertEqual(server.send("GET", "/classes/Book", auth: .anonymous).status, 403)
        XCTAssertEqual(server.send("GET", "/classes/Book", auth: .anonymous, headers: [("X-Parse-REST-API-Key", "wrong")]).status, 403)
        for header in ["X-Parse-REST-API-Key", "X-Parse-Client-Key", "X-Parse-Javascript-Key"] {
            XCTAssertEqual(server.send("GET", "/classes/Book", auth: .anonymous, headers: [(header, "rest")]).status, 200, header)
        }
        XCTAssertEqual(server.send("GET", "/classes/Book", auth: .master).status, 200, "the master key needs no client key")
        XCTAssertParseError(try TestServer().send("GET", "/classes/Book", auth: .anonymous), status: 400, code: .operationForbidden)
    }

    func testMasterKeyFromAnAddressNotAllowed() throws {
        let server = try TestServer { $0.masterKeyIPs = ["127.0.0.1"] }
        XCTAssertEqual(server.send("GET", "/schemas", remoteAddress: "10.0.0.7").json, .parse(#"{"error":"unauthorized"}"#))
        XCTAssertEqual(server.send("GET", "/schemas", remoteAddress: "127.0.0.1").status, 200)
    }

    func testWrongMasterKeyIsNoMasterKey() throws {
        let server = try TestServer()
        let reply = server.send("GET", "/schemas", auth: .none, headers: [("X-Parse-Application-Id", TestServer.appId), ("X-Parse-Master-Key", "guess")])
        XCTAssertEqual(reply.status, 403)
        XCTAssertEqual(reply.json, .parse(#"{"error":"unauthorized: master key is required"}"#))
    }

    func testInvalidSessionToken() throws {
        let server = try TestServer()
        XCTAssertParseError(
            server.send("GET", "/classes/Book", auth: .session("r:nonsense")), status: 400, code: .invalidSessionToken, message: "Invalid session token")
        let (_, token) = server.signUp("ann")
        XCTAssertEqual(server.send("GET", "/users/me", auth: .session(token)).status, 200)
        XCTAssertEqual(server.send("POST", "/logout", auth: .session(token)).json, .parse("{}"))
        XCTAssertParseError(server.send("GET", "/users/me", auth: .session(token)), status: 400, code: .invalidSessionToken)
    }

    func testEveryAnswerIsUncachedJSON() throws {
        let server = try TestServer()
        for reply in [
            server.send("GET", "/classes/Nope", auth: .anonymous), server.send("GET", "/classes/Nope"),
            server.send("GET", "/classes/Book", auth: .none), server.send("GET", "/health", auth: .none),
        ] {
            XCTAssertEqual(reply.headers["Content-Type"], "application/json; charset=utf-8")
            XCTAssertEqual(reply.headers["Cache-Control"], "no-store")
        }
    }

    func testCORSPreflight() throws {
        let reply = try TestServer().send("OPTIONS", "/classes/Book", auth: .none)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.headers["Access-Control-Allow-Origin"], "*")
        XCTAssertTrue(reply.headers["Access-Control-Allow-Headers"]?.contains("X-Parse-Session-Token") ?? false)
    }

    func testHealthNeedsNoKeys() throws {
        let reply = try TestServer().send("GET", "/health", auth: .none)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.json, .parse(#"{"status":"ok"}"#))
    }

    func testServerInfoNeedsTheMasterKey() throws {
        let server = try TestServer()
        let info = server.send("GET", "/serverInfo")
        XCTAssertEqual(info.status, 200)
        XCTAssertEqual(info["serverName"], .string("ParsePorter"))
        XCTAssertNil(info["parseServerVersion"], "it does not claim to be a Parse Server release")
        XCTAssertEqual(info.json["features"]?["schemas"]?["exportClass"], .bool(false))
        XCTAssertEqual(server.send("GET", "/serverInfo", auth: .anonymous).json, .parse(#"{"error":"unauthorized: master key is required"}"#))
    }

    func testUnknownRoutesAndPathsOutsideTheMount() throws {
        let server = try TestServer()
        let unknown = server.send("GET", "/functions/hello")
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(unknown.json, .parse(#"{"error":"Cannot GET /functions/hello"}"#))
        XCTAssertEqual(server.send("PATCH", "/classes/Book/x").status, 404)
        let outside = server.api.respond(to: .init(method: "GET", path: "/other/classes/Book"))
        XCTAssertEqual(outside.status, 404)
    }

    func testMountAtTheRoot() throws {
        for mount in ["", "/"] {
            let server = try TestServer { $0.mountPath = mount }
            var headers = HTTPHeaders()
            headers.add("X-Parse-Application-Id", TestServer.appId)
            headers.add("X-Parse-Master-Key", TestServer.masterKey)
            let created = server.api.respond(to: .init(method: "POST", path: "/classes/Book", headers: headers, body: Array(#"{"a":1}"#.utf8)))
            XCTAssertEqual(created.status, 201, mount)
            let batch = server.api.respond(
                to: .init(
                    method: "POST", path: "/batch", headers: headers,
                    body: Array(#"{"requests":[{"method":"GET","path":"/classes/Book"}]}"#.utf8)))
            XCTAssertEqual(batch.status, 200, mount)
        }
    }

    func testBodyThatIsNotJSON() throws {
        let reply = try TestServer().send("POST", "/classes/Book", "{title:")
        XCTAssertEqual(reply.status, 400)
        XCTAssertNil(reply.code)
        XCTAssertTrue(reply.error?.hasPrefix("Invalid JSON") ?? false)
    }

    func testMethodOverride() throws {
        let server = try TestServer()
        let id = server.create("Book", #"{"title":"Emma"}"#)
        XCTAssertEqual(server.send("POST", "/classes/Book/\(id)", #"{"_method":"PUT","title":"Persuasion"}"#).status, 200)
        XCTAssertEqual(server.send("POST", "/classes/Book/\(id)", #"{"_method":"GET"}"#)["title"], .string("Persuasion"))
        XCTAssertEqual(server.send("POST", "/classes/Book/\(id)", #"{"_method":"DELETE"}"#).json, .parse("{}"))
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["0"]])
    }
}
