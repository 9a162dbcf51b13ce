import Foundation
import ParseModel
import XCTest

/// What a client may not even ask, over HTTP: a query on a `_User`'s protected `email` (or
/// `authData`), which would tell who has an address, and finding or deleting installations,
/// which only the master key may (Parse Server's `denyProtectedFields` and `enforceRoleSecurity`).
final class ProtectedQueryTests: XCTestCase {
    private static let emailQuery = "This user is not allowed to query email on class _User"

    func testNoClientMayQueryOrSortUsersByEmail() throws {
        let live = try LiveMirror()
        let alice = live.mirror.signUp("alice")
        let bob = live.mirror.signUp("bob")
        let publicACL = { (id: String) in #""ACL":{"*":{"read":true},"\#(id)":{"read":true,"write":true}}"# }
        XCTAssertEqual(live.mirror.send("PUT", "/users/\(alice.id)", #"{"email":"alice@example.com",\#(publicACL(alice.id))}"#).status, 200)
        XCTAssertEqual(live.mirror.send("PUT", "/users/\(bob.id)", "{\(publicACL(bob.id))}").status, 200)
        live.mirror.create("Post", #"{"title":"hello","author":{"__type":"Pointer","className":"_User","objectId":"\#(alice.id)"}}"#)

        let probes: [(where: String, key: String)] = [
            (#"{"email":"alice@example.com"}"#, "email"),
            (#"{"email":{"$regex":"^a"}}"#, "email"),
            (#"{"email":{"$exists":true}}"#, "email"),
            (#"{"email.domain":"example.com"}"#, "email.domain"),
            (#"{"$or":[{"username":"nobody"},{"email":"alice@example.com"}]}"#, "email"),
            (#"{"$and":[{"$nor":[{"email":{"$ne":"alice@example.com"}}]}]}"#, "email"),
            (#"{"authData.anonymous.id":"x"}"#, "authData.anonymous.id"),
        ]
        for auth in [TestServer.Auth.anonymous, .session(bob.token), .session(alice.token)] {
            for probe in probes {
                let reply = try XCTUnwrap(live.send("POST", "/users", #"{"_method":"GET","count":1,"where":\#(probe.where)}"#, auth: auth))
                XCTAssertParseError(reply, status: 400, code: .operationForbidden,
                                    message: "This user is not allowed to query \(probe.key) on class _User")
            }
            let sorted = try XCTUnwrap(live.send("POST", "/classes/_User", #"{"_method":"GET","order":"-email"}"#, auth: auth))
            XCTAssertParseError(sorted, status: 400, code: .operationForbidden,
                                message: "This user is not allowed to sort by email on class _User")
            let viaPosts = #"{"author":{"$inQuery":{"className":"_User","where":{"email":"alice@example.com"}}}}"#
            let subquery = try XCTUnwrap(live.send("POST", "/classes/Post", #"{"_method":"GET","where":\#(viaPosts)}"#, auth: auth))
            XCTAssertParseError(subquery, status: 400, code: .operationForbidden, message: Self.emailQuery)
            let batch = try XCTUnwrap(live.send("POST", "/batch", #"{"requests":[{"method":"GET","path":"/parse/users","body":{"where":{"email":"alice@example.com"}}}]}"#, auth: auth))
            XCTAssertEqual(batch.json[0]?["error"]?["error"]?.text, Self.emailQuery, batch.json.serialized())
            let selected = #"{"title":{"$select":{"query":{"className":"_User","where":{}},"key":"email"}}}"#
            let select = try XCTUnwrap(live.send("POST", "/classes/Post", #"{"_method":"GET","where":\#(selected)}"#, auth: auth))
            XCTAssertEqual(select.status, 200, select.json.serialized())
            XCTAssertEqual(select.results, [], "$select reads no email values, as Parse Server's sub-query gets users without them")
        }
        let keys = try XCTUnwrap(live.send("GET", "/users?keys=email,username&order=username", auth: .session(bob.token)))
        XCTAssertEqual(keys.results.map { $0["email"] }, [nil, nil], "keys=email is answered without the email, not refused")
        XCTAssertEqual(keys.results.compactMap { $0["username"]?.text }, ["alice", "bob"])

        let master = try XCTUnwrap(live.send("POST", "/users", #"{"_method":"GET","order":"email","where":{"email":"alice@example.com"}}"#))
        XCTAssertEqual(master.results.compactMap { $0["username"]?.text }, ["alice"], master.json.serialized())
        let byName = try XCTUnwrap(live.send("POST", "/users", #"{"_method":"GET","where":{"username":"alice"}}"#, auth: .session(bob.token)))
        XCTAssertEqual(byName.results.compactMap { $0["username"]?.text }, ["alice"], "other fields may be queried")
    }

    func testOnlyTheMasterKeyFindsOrDeletesInstallations() throws {
        let live = try LiveMirror()
        let user = live.mirror.signUp("carol")
        let created = try XCTUnwrap(live.send("POST", "/classes/_Installation", #"{"installationId":"inst-1","deviceType":"ios"}"#, auth: .anonymous))
        XCTAssertEqual(created.status, 201, created.json.serialized())
        let id = try XCTUnwrap(created["objectId"]?.text)
        live.mirror.create("Device", #"{"installation":{"__type":"Pointer","className":"_Installation","objectId":"\#(id)"}}"#)

        let findMessage = "Clients aren't allowed to perform the find operation on the installation collection."
        for auth in [TestServer.Auth.anonymous, .session(user.token)] {
            XCTAssertParseError(try XCTUnwrap(live.send("GET", "/classes/_Installation", auth: auth)), status: 400,
                                code: .operationForbidden, message: findMessage)
            XCTAssertParseError(try XCTUnwrap(live.send("GET", "/classes/_Installation?count=1&limit=0", auth: auth)), status: 400,
                                code: .operationForbidden, message: findMessage)
            let viaDevice = #"{"installation":{"$inQuery":{"className":"_Installation","where":{"deviceType":"ios"}}}}"#
            XCTAssertParseError(try XCTUnwrap(live.send("POST", "/classes/Device", #"{"_method":"GET","where":\#(viaDevice)}"#, auth: auth)),
                                status: 400, code: .operationForbidden, message: findMessage)
            XCTAssertParseError(try XCTUnwrap(live.send("DELETE", "/classes/_Installation/\(id)", auth: auth)), status: 400,
                                code: .operationForbidden,
                                message: "Clients aren't allowed to perform the delete operation on the installation collection.")
            let batch = try XCTUnwrap(live.send("POST", "/batch", #"{"requests":[{"method":"DELETE","path":"/parse/classes/_Installation/\#(id)"},{"method":"GET","path":"/parse/classes/_Installation"}]}"#, auth: auth))
            XCTAssertEqual(batch.json[0]?["error"]?["code"], .integer(Int64(ParseErrorCode.operationForbidden.rawValue)), batch.json.serialized())
            XCTAssertEqual(batch.json[1]?["error"]?["error"]?.text, findMessage)
            let get = try XCTUnwrap(live.send("GET", "/classes/_Installation/\(id)", auth: auth))
            XCTAssertEqual(get["installationId"]?.text, "inst-1", "a get by objectId stays allowed, as in Parse Server")
        }
        XCTAssertEqual(try live.mirror.rows(#"SELECT installationId FROM "_Installation""#), [["inst-1"]], "nothing was deleted")
        let found = try XCTUnwrap(live.send("GET", "/classes/_Installation"))
        XCTAssertEqual(found.results.compactMap { $0["installationId"]?.text }, ["inst-1"])
        XCTAssertEqual(live.send("DELETE", "/classes/_Installation/\(id)")?.status, 200)
        XCTAssertEqual(try live.mirror.rows(#"SELECT installationId FROM "_Installation""#), [])
    }
}
