import ParseMirrorServer
import ParseModel
import XCTest

/// `_Role` names over HTTP: unique, fixed once saved, and of Parse's characters, so no user can
/// take over the rights ACLs grant to `role:<name>`.
final class RoleSecurityTests: XCTestCase {
    private func users(_ userId: String) -> String {
        #"{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"_User","objectId":"\#(userId)"}]}"#
    }

    func testASecondRoleWithAnExistingNameIsRefused() throws {
        let server = try TestServer(overHTTP: true)
        let ann = server.signUp("ann"), mallory = server.signUp("mallory")
        _ = server.create("_Role", #"{"name":"Admins","ACL":{"*":{"read":true}},"users":\#(users(ann.id))}"#)
        let secret = server.create("Secret", #"{"text":"launch codes","ACL":{"role:Admins":{"read":true}}}"#)

        let twin = server.send(
            "POST", "/roles", #"{"name":"Admins","ACL":{"*":{"read":true}},"users":\#(users(mallory.id))}"#,
            auth: .session(mallory.token))
        XCTAssertParseError(twin, status: 400, code: .duplicateValue, message: "A duplicate value for a field with unique values was provided")
        XCTAssertParseError(server.send("POST", "/roles", #"{"name":"Admins","ACL":{}}"#), status: 400, code: .duplicateValue)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM _Role WHERE name = 'Admins'"), [["1"]])
        XCTAssertParseError(server.send("GET", "/classes/Secret/\(secret)", auth: .session(mallory.token)), status: 404, code: .objectNotFound)
        XCTAssertEqual(server.send("GET", "/classes/Secret/\(secret)", auth: .session(ann.token))["text"], .string("launch codes"))
        XCTAssertEqual(
            server.send("POST", "/roles", #"{"name":"admins","ACL":{}}"#, auth: .session(mallory.token)).status, 201,
            "names are unique as Parse's index is: case-sensitive")
    }

    func testARoleCannotBeRenamed() throws {
        let server = try TestServer(overHTTP: true)
        let ann = server.signUp("ann"), mallory = server.signUp("mallory")
        _ = server.create("_Role", #"{"name":"Admins","ACL":{"*":{"read":true}},"users":\#(users(ann.id))}"#)
        let secret = server.create("Secret", #"{"text":"launch codes","ACL":{"role:Admins":{"read":true}}}"#)
        // Mallory's own role, open for writing, which she tries to turn into "Admins" after Admins is gone.
        let own = server.send(
            "POST", "/roles", #"{"name":"Readers","ACL":{"*":{"read":true,"write":true}},"users":\#(users(mallory.id))}"#,
            auth: .session(mallory.token))
        let ownId = try XCTUnwrap(own["objectId"]?.text)
        let admins = try XCTUnwrap(server.rows("SELECT objectId FROM _Role WHERE name = 'Admins'").first?[0] ?? nil)
        XCTAssertEqual(server.send("DELETE", "/roles/\(admins)").status, 200)
        for body in [#"{"name":"Admins"}"#, #"{"name":null}"#, #"{"name":{"__op":"Delete"}}"#] {
            XCTAssertParseError(
                server.send("PUT", "/roles/\(ownId)", body, auth: .session(mallory.token)), status: 400, code: .invalidRoleName,
                message: "A role's name can only be set before it has been saved.")
        }
        XCTAssertParseError(server.send("PUT", "/roles/\(ownId)", #"{"name":"Admins"}"#), status: 400, code: .invalidRoleName)
        XCTAssertEqual(server.send("PUT", "/roles/\(ownId)", #"{"name":"Readers","note":"same name is fine"}"#, auth: .session(mallory.token)).status, 200)
        XCTAssertEqual(try server.rows("SELECT name FROM _Role"), [["Readers"]])
        XCTAssertParseError(server.send("GET", "/classes/Secret/\(secret)", auth: .session(mallory.token)), status: 404, code: .objectNotFound)
    }

    func testRoleNamesUseParsesCharacters() throws {
        let server = try TestServer(overHTTP: true)
        let mallory = server.signUp("mallory")
        for name in ["Admins*", "role:Admins", "Ädmins", "", "a\\u0000b", "tab\\there"] {
            let reply = server.send("POST", "/roles", #"{"name":"\#(name)","ACL":{}}"#, auth: .session(mallory.token))
            XCTAssertParseError(
                reply, status: 400, code: .invalidRoleName, message: "A role's name can only contain alphanumeric characters, _, -, and spaces.")
        }
        XCTAssertEqual(server.send("POST", "/roles", #"{"name":"Night shift_2-b","ACL":{}}"#, auth: .session(mallory.token)).status, 201)
        XCTAssertEqual(try server.rows("SELECT name FROM _Role"), [["Night shift_2-b"]])
    }
}
