import ParseMirrorServer
import ParseModel
import XCTest

/// Sign-up, log-in, the current user, log-out, and the password hash that never leaves the mirror.
final class UserTests: XCTestCase {
    func testSignUpStoresABcryptHashAndASession() throws {
        let server = try TestServer()
        let reply = server.send(
            "POST", "/users", #"{"username":"ann","password":"s3cret","email":"ann@example.com","age":30}"#, auth: .anonymous,
            headers: [("Host", "h:1"), ("X-Parse-Installation-Id", "inst-1")])
        XCTAssertEqual(reply.status, 201)
        let id = try XCTUnwrap(reply["objectId"]?.text)
        let token = try XCTUnwrap(reply["sessionToken"]?.text)
        XCTAssertNotNil(token.wholeMatch(of: /r:[0-9a-f]{32}/))
        XCTAssertEqual(Set(reply.json.objectKeys), ["objectId", "createdAt", "sessionToken"])
        XCTAssertEqual(reply.headers["Location"], "http://h:1/parse/users/\(id)")

        let stored = try server.rows("SELECT username, password, _hashed_password, ACL FROM _User")
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored[0][0], "ann")
        XCTAssertNil(stored[0][1], "the password column stays empty")
        XCTAssertTrue(stored[0][2]?.hasPrefix("$2b$10$") ?? false)
        XCTAssertEqual(stored[0][3], #"{"\#(id)":{"read":true,"write":true}}"#)
        XCTAssertEqual(
            try server.rows("SELECT user, sessionToken, installationId, createdWith FROM _Session"),
            [[id, token, "inst-1", #"{"action":"signup","authProvider":"password"}"#]])
        let schema = server.send("GET", "/schemas/_User").json["fields"]
        XCTAssertEqual(schema?["password"], .parse(#"{"type":"String"}"#))
        XCTAssertNil(schema?["_hashed_password"])

        for object in [
            server.send("GET", "/users/\(id)").json, server.send("GET", "/classes/_User").results.first ?? .null,
            server.send("GET", "/users/me", auth: .session(token)).json,
        ] {
            XCTAssertEqual(object["username"], .string("ann"))
            XCTAssertNil(object["password"])
            XCTAssertNil(object["_hashed_password"])
        }
    }

    func testEmailIsShownOnlyToTheUserAndTheMasterKey() throws {
        let server = try TestServer()
        let reply = server.send("POST", "/users", #"{"username":"ann","password":"x","email":"ann@example.com"}"#, auth: .anonymous)
        let id = try XCTUnwrap(reply["objectId"]?.text), token = try XCTUnwrap(reply["sessionToken"]?.text)
        let bob = server.signUp("bob")
        XCTAssertEqual(server.send("GET", "/users/\(id)", auth: .session(token))["email"], .string("ann@example.com"))
        XCTAssertEqual(server.send("GET", "/users/\(id)")["email"], .string("ann@example.com"))
        XCTAssertParseError(server.send("GET", "/users/\(id)", auth: .session(bob.token)), status: 404, code: .objectNotFound, message: "Object not found.")
        XCTAssertEqual(server.send("PUT", "/users/\(id)", #"{"ACL":{"*":{"read":true}}}"#, auth: .session(token)).status, 200)
        let seenByBob = server.send("GET", "/users/\(id)", auth: .session(bob.token))
        XCTAssertEqual(seenByBob["username"], .string("ann"))
        XCTAssertNil(seenByBob["email"])
        XCTAssertEqual(
            try server.rows("SELECT ACL FROM _User WHERE objectId = ?1", [id]),
            [[#"{"*":{"read":true},"\#(id)":{"read":true,"write":true}}"#]], "a user keeps access to itself")
    }

    func testSignUpRefusals() throws {
        let server = try TestServer()
        XCTAssertParseError(
            server.send("POST", "/users", #"{"password":"x"}"#, auth: .anonymous), status: 400, code: .usernameMissing, message: "bad or missing username")
        XCTAssertParseError(
            server.send("POST", "/users", #"{"username":"ann"}"#, auth: .anonymous), status: 400, code: .passwordMissing, message: "password is required")
        _ = server.signUp("ann")
        XCTAssertParseError(
            server.send("POST", "/users", #"{"username":"ANN","password":"x"}"#, auth: .anonymous), status: 400, code: .usernameTaken,
            message: "Account already exists for this username.")
        XCTAssertParseError(
            server.send("POST", "/users", #"{"username":"bob","password":"x","email":"nope"}"#, auth: .anonymous), status: 400, code: .invalidEmailAddress)
        XCTAssertParseError(
            server.send("POST", "/users", #"{"username":"bob","password":"x","emailVerified":true}"#, auth: .anonymous),
            status: 400, code: .operationForbidden)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM _User"), [["1"]])
    }

    func testLogInWithGETAndPOST() throws {
        let server = try TestServer()
        let (id, _) = server.signUp("ann", password: "pw 1")
        let viaGet = server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "pw 1")])
        XCTAssertEqual(viaGet.status, 200)
        XCTAssertEqual(viaGet["objectId"], .string(id))
        XCTAssertEqual(viaGet["username"], .string("ann"))
        XCTAssertNil(viaGet["password"])
        let token = try XCTUnwrap(viaGet["sessionToken"]?.text)
        XCTAssertEqual(server.send("GET", "/users/me", auth: .session(token))["objectId"], .string(id))
        let viaPost = server.send("POST", "/login", #"{"username":"ann","password":"pw 1"}"#, auth: .anonymous)
        XCTAssertEqual(viaPost.status, 200)
        XCTAssertNotEqual(viaPost["sessionToken"]?.text, token)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM _Session WHERE user = ?1", [id]), [["3"]])

        XCTAssertParseError(
            server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "wrong")]),
            status: 404, code: .objectNotFound, message: "Invalid username/password.")
        XCTAssertParseError(
            server.send("GET", "/login", auth: .anonymous, query: [("username", "zed"), ("password", "pw 1")]), status: 404, code: .objectNotFound)
        XCTAssertParseError(server.send("GET", "/login", auth: .anonymous, query: [("password", "x")]), status: 400, code: .usernameMissing)
        XCTAssertParseError(server.send("GET", "/login", auth: .anonymous, query: [("username", "ann")]), status: 400, code: .passwordMissing)
        // Empty values count as missing, as in Parse Server.
        XCTAssertParseError(server.send("POST", "/login", #"{"username":"ann","password":""}"#, auth: .anonymous), status: 400, code: .passwordMissing)
        XCTAssertParseError(server.send("POST", "/login", #"{"username":"","password":"pw 1"}"#, auth: .anonymous), status: 400, code: .usernameMissing)
        XCTAssertParseError(server.send("GET", "/users/me", auth: .anonymous), status: 400, code: .invalidSessionToken)
    }

    /// A password over libcrypt's 512 bytes was a 500 (the fuzz run found it); bcrypt reads a
    /// password's first 72 bytes, as in Parse Server, so any length is hashed by them.
    func testLongPasswordsAreHashedByTheirFirst72Bytes() throws {
        let server = try TestServer()
        let long = String(repeating: "a", count: 5000)
        let (id, token) = server.signUp("ann", password: long)
        XCTAssertEqual(server.send("POST", "/login", #"{"username":"ann","password":"\#(long)"}"#, auth: .anonymous)["objectId"], .string(id))
        let sameStart = String(repeating: "a", count: 72) + "anything after"
        XCTAssertEqual(server.send("POST", "/login", #"{"username":"ann","password":"\#(sameStart)"}"#, auth: .anonymous).status, 200)
        XCTAssertEqual(server.send("POST", "/login", #"{"username":"ann","password":"\#(String(repeating: "a", count: 71))"}"#, auth: .anonymous).status, 404)
        XCTAssertEqual(server.send("PUT", "/users/\(id)", #"{"password":"\#(String(repeating: "b", count: 600))"}"#, auth: .session(token)).status, 200)
    }

    func testPasswordChangeAndUserDeletion() throws {
        let server = try TestServer()
        let (id, oldToken) = server.signUp("ann")
        let changed = server.send("PUT", "/users/\(id)", #"{"password":"new one"}"#, auth: .session(oldToken))
        XCTAssertEqual(changed.status, 200)
        let token = try XCTUnwrap(changed["sessionToken"]?.text, "a password change ends the old session and starts a new one")
        XCTAssertEqual(server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "new one")]).status, 200)
        XCTAssertParseError(
            server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "secret")]), status: 404, code: .objectNotFound)
        let (_, otherToken) = server.signUp("bob")
        XCTAssertParseError(server.send("PUT", "/users/\(id)", #"{"password":"hijack"}"#, auth: .session(otherToken)), status: 400, code: .sessionMissing)
        XCTAssertParseError(server.send("PUT", "/users/\(id)", #"{"username":"bob"}"#, auth: .session(token)), status: 400, code: .usernameTaken)
        XCTAssertEqual(server.send("DELETE", "/users/\(id)", auth: .session(token)).status, 200)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM _Session WHERE user = ?1", [id]), [["0"]])
        XCTAssertParseError(server.send("GET", "/classes/Book", auth: .session(token)), status: 400, code: .invalidSessionToken)
    }
}

extension JSONValue {
    var objectKeys: [String] { if case .object(let o) = self { return o.keys } else { return [] } }
}
