import ParseMirrorServer
import ParseModel
import XCTest

/// `_Session` over HTTP as Parse Server guards it (Docs/ParseServer.md#sessions): no forged sessions, no
/// sessions moved to another user, no one else's sessions listed.
final class SessionSecurityTests: XCTestCase {
    private func pointer(_ userId: String) -> String { #"{"__type":"Pointer","className":"_User","objectId":"\#(userId)"}"# }

    func testAClientCannotForgeASessionForAnotherUser() throws {
        let server = try TestServer(overHTTP: true)
        let ann = server.signUp("ann"), bob = server.signUp("bob")
        let forged = #"{"sessionToken":"r:forged","user":\#(pointer(ann.id))}"#
        XCTAssertParseError(
            server.send("POST", "/classes/_Session", forged, auth: .anonymous), status: 400, code: .invalidSessionToken, message: "Session token required.")
        XCTAssertParseError(server.send("POST", "/sessions", forged, auth: .session(bob.token)), status: 400, code: .invalidKeyName)
        XCTAssertParseError(
            server.send("POST", "/sessions", #"{"ACL":{"*":{"read":true}}}"#, auth: .session(bob.token)), status: 400, code: .invalidKeyName,
            message: "Cannot set ACL on a Session.")
        XCTAssertParseError(server.send("GET", "/users/me", auth: .session("r:forged")), status: 400, code: .invalidSessionToken)

        // Bob may make a session of his own: the server picks the token and the user.
        let created = server.send("POST", "/sessions", #"{"user":\#(pointer(ann.id)),"note":"tablet"}"#, auth: .session(bob.token))
        XCTAssertEqual(created.status, 201, created.json.serialized())
        let token = try XCTUnwrap(created["sessionToken"]?.text)
        XCTAssertNotNil(token.wholeMatch(of: /r:[0-9a-f]{32}/))
        XCTAssertEqual(created["user"], .parse(pointer(bob.id)))
        XCTAssertEqual(created["createdWith"]?["action"], .string("create"))
        XCTAssertEqual(server.send("GET", "/users/me", auth: .session(token))["objectId"]?.text, bob.id)
        XCTAssertEqual(try server.rows("SELECT user, note FROM _Session WHERE sessionToken = ?1", [token]), [[bob.id, "tablet"]])
        XCTAssertEqual(try server.rows("SELECT count(*) FROM _Session WHERE user = ?1", [ann.id]), [["1"]], "Ann still has only her own session")

        // The installation comes from the X-Parse-Installation-Id header when the body has none.
        let device = server.send("POST", "/sessions", "{}", auth: .session(bob.token), headers: [("X-Parse-Installation-Id", "device-7")])
        XCTAssertEqual(device.status, 201, device.json.serialized())
        XCTAssertEqual(try server.rows("SELECT installationId FROM _Session WHERE sessionToken = ?1", [device["sessionToken"]?.text ?? ""]), [["device-7"]])
    }

    func testASessionCannotBeMovedToAnotherUser() throws {
        let server = try TestServer(overHTTP: true)
        let ann = server.signUp("ann"), bob = server.signUp("bob")
        let bobSession = try XCTUnwrap(server.rows("SELECT objectId FROM _Session WHERE user = ?1", [bob.id]).first?[0] ?? nil)
        let annSession = try XCTUnwrap(server.rows("SELECT objectId FROM _Session WHERE user = ?1", [ann.id]).first?[0] ?? nil)
        XCTAssertParseError(
            server.send("PUT", "/sessions/\(bobSession)", #"{"user":\#(pointer(ann.id))}"#, auth: .session(bob.token)), status: 400, code: .invalidKeyName)
        for body in [#"{"sessionToken":"r:mine"}"#, #"{"installationId":"x"}"#, #"{"expiresAt":{"__type":"Date","iso":"2999-01-01T00:00:00.000Z"}}"#] {
            XCTAssertParseError(server.send("PUT", "/sessions/\(bobSession)", body, auth: .session(bob.token)), status: 400, code: .invalidKeyName)
        }
        XCTAssertParseError(server.send("PUT", "/sessions/\(annSession)", #"{"note":"bob"}"#, auth: .session(bob.token)), status: 404, code: .objectNotFound)
        XCTAssertParseError(server.send("DELETE", "/sessions/\(annSession)", auth: .session(bob.token)), status: 404, code: .objectNotFound)
        XCTAssertParseError(server.send("DELETE", "/sessions/\(annSession)", auth: .anonymous), status: 400, code: .invalidSessionToken)
        XCTAssertEqual(server.send("PUT", "/sessions/\(bobSession)", #"{"note":"phone"}"#, auth: .session(bob.token)).status, 200)
        XCTAssertEqual(try server.rows("SELECT user, note FROM _Session WHERE objectId = ?1", [bobSession]), [[bob.id, "phone"]])
        XCTAssertEqual(try server.rows("SELECT user FROM _Session WHERE objectId = ?1", [annSession]), [[ann.id]])
        XCTAssertEqual(server.send("GET", "/users/me", auth: .session(ann.token))["username"], .string("ann"))
        XCTAssertEqual(server.send("GET", "/users/me", auth: .session(bob.token))["username"], .string("bob"))
    }

    func testOnlyTheOwnerAndTheMasterKeySeeASession() throws {
        let server = try TestServer(overHTTP: true)
        let ann = server.signUp("ann"), bob = server.signUp("bob")
        // A session without an ACL, as `pull` copies them from a Parse Server.
        XCTAssertEqual(server.send("POST", "/classes/_Session", #"{"sessionToken":"r:pulled","user":\#(pointer(ann.id))}"#).status, 201)
        let pulled = try XCTUnwrap(server.rows("SELECT objectId FROM _Session WHERE sessionToken = 'r:pulled'").first?[0] ?? nil)

        XCTAssertParseError(
            server.send("GET", "/classes/_Session", auth: .anonymous), status: 400, code: .invalidSessionToken, message: "Invalid session token")
        XCTAssertParseError(server.send("GET", "/sessions/\(pulled)", auth: .anonymous), status: 400, code: .invalidSessionToken)
        let bobs = server.send("GET", "/sessions", auth: .session(bob.token))
        XCTAssertEqual(bobs.results.compactMap { $0["sessionToken"]?.text }, [bob.token])
        XCTAssertParseError(server.send("GET", "/sessions/\(pulled)", auth: .session(bob.token)), status: 404, code: .objectNotFound)
        let counted = server.send("GET", "/sessions", auth: .session(bob.token), query: [("count", "1"), ("limit", "0")])
        XCTAssertEqual(counted["count"], .integer(1))
        let anns = server.send("GET", "/sessions", auth: .session(ann.token))
        XCTAssertEqual(Set(anns.results.compactMap { $0["sessionToken"]?.text }), [ann.token, "r:pulled"])
        XCTAssertEqual(server.send("GET", "/sessions").results.count, 3, "the master key sees every session")

        // An object pointing at a session does not reveal it through include either.
        _ = server.create("Device", #"{"session":{"__type":"Pointer","className":"_Session","objectId":"\#(pulled)"}}"#)
        let device = server.send("GET", "/classes/Device", auth: .session(bob.token), query: [("include", "session")]).results.first
        XCTAssertEqual(device?["session"]?["__type"], .string("Pointer"))
        XCTAssertNil(device?["session"]?["sessionToken"])
    }
}
