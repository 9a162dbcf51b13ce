import ParseMirrorServer
import ParseModel
import XCTest

/// Over HTTP: what `include` may show, who may change a user, and which sessions survive a new password.
final class ReadSideSecurityTests: XCTestCase {
    func testIncludeChecksTheIncludedClasssPermissions() throws {
        let server = try TestServer(overHTTP: true)
        let genre = server.create("Genre", #"{"name":"Horror"}"#)
        let book = server.create("Book", #"{"title":"It","genre":{"__type":"Pointer","className":"Genre","objectId":"\#(genre)"}}"#)
        let closed = #"{"classLevelPermissions":{"find":{},"get":{},"create":{},"update":{},"delete":{},"addField":{}}}"#
        XCTAssertEqual(server.send("PUT", "/schemas/Genre", closed).status, 200)
        XCTAssertParseError(server.send("GET", "/classes/Genre/\(genre)", auth: .anonymous), status: 400, code: .operationForbidden)

        let listed = server.send("GET", "/classes/Book", auth: .anonymous, query: [("include", "genre")])
        XCTAssertParseError(listed, status: 400, code: .operationForbidden, message: "Permission denied for action get on class Genre.")
        XCTAssertNil(listed["results"])
        XCTAssertParseError(
            server.send("GET", "/classes/Book/\(book)", auth: .anonymous, query: [("include", #"["genre"]"#)]), status: 400, code: .operationForbidden)
        XCTAssertParseError(server.send("GET", "/classes/Book", auth: .anonymous, query: [("include", "*")]), status: 400, code: .operationForbidden)
        let plain = server.send("GET", "/classes/Book/\(book)", auth: .anonymous)
        XCTAssertEqual(plain["genre"], .parse(#"{"__type":"Pointer","className":"Genre","objectId":"\#(genre)"}"#))
        XCTAssertEqual(
            server.send("GET", "/classes/Book", query: [("include", "genre")]).results.first?["genre"]?["name"], .string("Horror"),
            "the master key includes anyway")
    }

    func testIncludedUsersHideTheirEmailFromOthers() throws {
        let server = try TestServer(overHTTP: true)
        let reply = server.send(
            "POST", "/users", #"{"username":"ann","password":"pw","email":"ann@example.com","authData":{"x":{"id":"1"}}}"#, auth: .anonymous)
        let ann = (id: try XCTUnwrap(reply["objectId"]?.text), token: try XCTUnwrap(reply["sessionToken"]?.text))
        let bob = server.signUp("bob")
        XCTAssertEqual(server.send("PUT", "/users/\(ann.id)", #"{"ACL":{"*":{"read":true}}}"#, auth: .session(ann.token)).status, 200)
        _ = server.create("Post", #"{"text":"hi","author":{"__type":"Pointer","className":"_User","objectId":"\#(ann.id)"}}"#)

        let seenByBob = server.send("GET", "/classes/Post", auth: .session(bob.token), query: [("include", "author")]).results.first?["author"]
        XCTAssertEqual(seenByBob?["username"], .string("ann"))
        XCTAssertNil(seenByBob?["email"])
        XCTAssertNil(seenByBob?["authData"])
        let seenByAnon = server.send("GET", "/classes/Post", auth: .anonymous, query: [("include", "author")]).results.first?["author"]
        XCTAssertEqual(seenByAnon?["username"], .string("ann"))
        XCTAssertNil(seenByAnon?["email"])
        let seenByAnn = server.send("GET", "/classes/Post", auth: .session(ann.token), query: [("include", "author")]).results.first?["author"]
        XCTAssertEqual(seenByAnn?["email"], .string("ann@example.com"))
        XCTAssertEqual(server.send("GET", "/classes/Post", query: [("include", "author")]).results.first?["author"]?["email"], .string("ann@example.com"))
        XCTAssertNil(server.send("GET", "/users", auth: .session(bob.token)).results.first { $0["objectId"]?.text == ann.id }?["email"])
    }

    func testOnlyASignedInCallerMayChangeAUser() throws {
        let server = try TestServer(overHTTP: true)
        let ann = server.signUp("ann", password: "original"), bob = server.signUp("bob")
        XCTAssertEqual(server.send("PUT", "/users/\(ann.id)", #"{"ACL":{"*":{"read":true,"write":true}}}"#, auth: .session(ann.token)).status, 200)
        for body in [#"{"password":"hacked"}"#, #"{"username":"owned"}"#] {
            XCTAssertParseError(
                server.send("PUT", "/users/\(ann.id)", body, auth: .anonymous), status: 400, code: .sessionMissing, message: "Cannot modify user \(ann.id).")
        }
        XCTAssertParseError(
            server.send("DELETE", "/users/\(ann.id)", auth: .anonymous), status: 400, code: .sessionMissing, message: "Insufficient auth to delete user")
        XCTAssertParseError(
            server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "hacked")]), status: 404, code: .objectNotFound)
        XCTAssertEqual(server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "original")]).status, 200)
        XCTAssertEqual(try server.rows("SELECT username FROM _User WHERE objectId = ?1", [ann.id]), [["ann"]])

        // A signed-in user the ACL does not let write gets 206 as well, not a hint that the user exists.
        XCTAssertParseError(
            server.send("PUT", "/users/\(bob.id)", #"{"username":"bobby"}"#, auth: .session(ann.token)), status: 400, code: .sessionMissing,
            message: "Insufficient auth.")
    }

    func testAPasswordChangeEndsTheUsersOtherSessions() throws {
        let server = try TestServer(overHTTP: true)
        let ann = server.signUp("ann", password: "first")
        let second = try XCTUnwrap(server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "first")])["sessionToken"]?.text)
        let changed = server.send("PUT", "/users/\(ann.id)", #"{"password":"second"}"#, auth: .session(ann.token))
        XCTAssertEqual(changed.status, 200, changed.json.serialized())
        let fresh = try XCTUnwrap(changed["sessionToken"]?.text)
        for token in [ann.token, second] {
            XCTAssertParseError(server.send("GET", "/users/me", auth: .session(token)), status: 400, code: .invalidSessionToken)
        }
        XCTAssertEqual(server.send("GET", "/users/me", auth: .session(fresh))["username"], .string("ann"))
        XCTAssertEqual(try server.rows("SELECT sessionToken FROM _Session WHERE user = ?1", [ann.id]), [[fresh]])

        XCTAssertEqual(server.send("PUT", "/users/\(ann.id)", #"{"password":"third"}"#).status, 200, "the master key resets it")
        XCTAssertParseError(server.send("GET", "/users/me", auth: .session(fresh)), status: 400, code: .invalidSessionToken)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM _Session WHERE user = ?1", [ann.id]), [["0"]])
        XCTAssertEqual(server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "third")]).status, 200)
    }
}
