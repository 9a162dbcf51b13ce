import ParseMirrorServer
import ParseModel
import XCTest

/// ACLs with two users and a role: reads through the query engine, writes through the routes.
final class AccessTests: XCTestCase {
    func testPerUserReadAndWrite() throws {
        let server = try TestServer()
        let ann = server.signUp("ann"), bob = server.signUp("bob")
        let note = server.create("Note", #"{"text":"ann's","ACL":{"\#(ann.id)":{"read":true,"write":true}}}"#)
        let shared = server.create("Note", #"{"text":"shared","ACL":{"*":{"read":true},"\#(ann.id)":{"write":true}}}"#)
        let open = server.create("Note", #"{"text":"open"}"#)

        XCTAssertEqual(server.send("GET", "/classes/Note/\(note)", auth: .session(ann.token))["text"], .string("ann's"))
        XCTAssertParseError(server.send("GET", "/classes/Note/\(note)", auth: .session(bob.token)), status: 404, code: .objectNotFound)
        XCTAssertParseError(server.send("GET", "/classes/Note/\(note)", auth: .anonymous), status: 404, code: .objectNotFound)
        XCTAssertEqual(texts(server.send("GET", "/classes/Note", auth: .session(bob.token))), ["shared", "open"])
        XCTAssertEqual(texts(server.send("GET", "/classes/Note", auth: .session(ann.token))), ["ann's", "shared", "open"])
        XCTAssertEqual(texts(server.send("GET", "/classes/Note", auth: .master)), ["ann's", "shared", "open"])

        for id in [note, shared] {
            XCTAssertParseError(
                server.send("PUT", "/classes/Note/\(id)", #"{"text":"bob was here"}"#, auth: .session(bob.token)), status: 404, code: .objectNotFound)
            XCTAssertParseError(server.send("DELETE", "/classes/Note/\(id)", auth: .session(bob.token)), status: 404, code: .objectNotFound)
        }
        XCTAssertEqual(server.send("PUT", "/classes/Note/\(open)", #"{"text":"bob was here"}"#, auth: .session(bob.token)).status, 200)
        XCTAssertEqual(server.send("PUT", "/classes/Note/\(shared)", #"{"text":"edited"}"#, auth: .session(ann.token)).status, 200)
        XCTAssertEqual(server.send("DELETE", "/classes/Note/\(note)", auth: .session(ann.token)).status, 200)
        XCTAssertEqual(try server.rows("SELECT text FROM Note ORDER BY rowid"), [["edited"], ["bob was here"]])
    }

    func testRoleACLs() throws {
        let server = try TestServer()
        let ann = server.signUp("ann"), bob = server.signUp("bob")
        let pointer = #"{"__type":"Pointer","className":"_User","objectId":"\#(ann.id)"}"#
        let editors = server.create("_Role", #"{"name":"Editors","ACL":{"*":{"read":true}},"users":{"__op":"AddRelation","objects":[\#(pointer)]}}"#)
        let rolePointer = #"{"__type":"Pointer","className":"_Role","objectId":"\#(editors)"}"#
        _ = server.create("_Role", #"{"name":"Staff","ACL":{"*":{"read":true}},"roles":{"__op":"AddRelation","objects":[\#(rolePointer)]}}"#)
        let draft = server.create("Note", #"{"text":"draft","ACL":{"role:Staff":{"read":true,"write":true}}}"#)
        XCTAssertEqual(server.send("GET", "/classes/Note/\(draft)", auth: .session(ann.token)).status, 200, "Editors inherit Staff")
        XCTAssertEqual(server.send("PUT", "/classes/Note/\(draft)", #"{"text":"ok"}"#, auth: .session(ann.token)).status, 200)
        XCTAssertParseError(server.send("GET", "/classes/Note/\(draft)", auth: .session(bob.token)), status: 404, code: .objectNotFound)
        XCTAssertParseError(server.send("POST", "/classes/_Role", #"{"name":"NoACL"}"#), status: 400, code: .incorrectType, message: "ACL is required.")
    }

    private func texts(_ reply: TestServer.Reply) -> [String] {
        reply.results.compactMap { $0["text"]?.text }
    }
}
