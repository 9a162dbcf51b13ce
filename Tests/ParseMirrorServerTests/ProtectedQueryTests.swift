import Foundation
import ParseModel
import XCTest

/// What a client may not see or even ask, over HTTP: fields a class's `protectedFields` hide, a
/// query on them (a `_User`'s `email` or `authData` too), which would tell what they hold, and
/// finding or deleting installations, which only the master key may (Parse Server's
/// `addProtectedFields`, `denyProtectedFields` and `enforceRoleSecurity`).
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
                XCTAssertParseError(
                    reply, status: 400, code: .operationForbidden,
                    message: "This user is not allowed to query \(probe.key) on class _User")
            }
            let sorted = try XCTUnwrap(live.send("POST", "/classes/_User", #"{"_method":"GET","order":"-email"}"#, auth: auth))
            XCTAssertParseError(
                sorted, status: 400, code: .operationForbidden,
                message: "This user is not allowed to sort by email on class _User")
            let viaPosts = #"{"author":{"$inQuery":{"className":"_User","where":{"email":"alice@example.com"}}}}"#
            let subquery = try XCTUnwrap(live.send("POST", "/classes/Post", #"{"_method":"GET","where":\#(viaPosts)}"#, auth: auth))
            XCTAssertParseError(subquery, status: 400, code: .operationForbidden, message: Self.emailQuery)
            let batch = try XCTUnwrap(
                live.send(
                    "POST", "/batch", #"{"requests":[{"method":"GET","path":"/parse/users","body":{"where":{"email":"alice@example.com"}}}]}"#, auth: auth))
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

    /// Each kind of `protectedFields` entry hides what it lists from its group, the sets of every
    /// entry applying to a reader intersecting, in gets, finds, `keys`, includes and `$select`.
    func testProtectedFieldsHideWhatEveryEntryApplyingToTheReaderLists() throws {
        let server = try TestServer()
        let bob = server.signUp("bob"), alice = server.signUp("alice"), carol = server.signUp("carol"), dave = server.signUp("dave")
        server.create(
            "_Role",
            #"{"name":"Staff","ACL":{"*":{"read":true}},"users":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"_User","objectId":"\#(alice.id)"}]}}"#
        )
        let schema = server.send(
            "POST", "/schemas/Prot",
            #"""
            {"fields":{"ssn":{"type":"String"},"note":{"type":"String"},"team":{"type":"String"},
                       "owner":{"type":"Pointer","targetClass":"_User"},"viewers":{"type":"Array"}},
             "classLevelPermissions":{"find":{"*":true},"get":{"*":true},"count":{"*":true},"create":{},"update":{},"delete":{},"addField":{},
               "protectedFields":{"*":["ssn","note","team"],"authenticated":["ssn","note"],"role:Staff":["note"],"\#(bob.id)":["ssn","team"],
                                  "userField:owner":["team"],"userField:viewers":["note"]}}}
            """#)
        XCTAssertEqual(schema.status, 200, schema.json.serialized())
        let pointer = { (id: String) in #"{"__type":"Pointer","className":"_User","objectId":"\#(id)"}"# }
        let owned = server.create("Prot", #"{"ssn":"s1","note":"n1","team":"t1","owner":\#(pointer(carol.id)),"viewers":[\#(pointer(dave.id))]}"#)
        let other = server.create("Prot", #"{"ssn":"s2","note":"n2","team":"t2"}"#)
        func shown(_ id: String, _ auth: TestServer.Auth, query: [(String, String)] = []) -> Set<String> {
            Set(["ssn", "note", "team", "owner", "viewers"].filter { server.send("GET", "/classes/Prot/\(id)", auth: auth, query: query)[$0] != nil })
        }
        XCTAssertEqual(shown(owned, .anonymous), ["owner", "viewers"], "*: ssn, note and team")
        XCTAssertEqual(shown(owned, .session(bob.token)), ["note", "team", "owner", "viewers"], "* ∩ authenticated ∩ bob's entry: ssn")
        XCTAssertEqual(shown(owned, .session(alice.token)), ["ssn", "team", "owner", "viewers"], "* ∩ authenticated ∩ role:Staff: note")
        XCTAssertEqual(shown(owned, .session(carol.token)), ["ssn", "note", "team", "owner", "viewers"], "the owner: ssn and note ∩ userField:owner's team")
        XCTAssertEqual(shown(other, .session(carol.token)), ["team"], "another object: ssn and note")
        XCTAssertEqual(shown(owned, .session(dave.token)), ["ssn", "team", "owner", "viewers"], "named in the array: ssn and note ∩ note")
        XCTAssertEqual(shown(owned, .master), ["ssn", "note", "team", "owner", "viewers"])
        XCTAssertEqual(shown(owned, .session(carol.token), query: [("keys", "ssn")]), ["ssn"], "owner read for the rule, then left out")
        XCTAssertEqual(shown(owned, .anonymous, query: [("keys", "ssn,note")]), [], "keys ask for hidden fields in vain")

        let found = server.send("GET", "/classes/Prot", auth: .session(alice.token), query: [("order", "team")])
        XCTAssertEqual(found.results.map { $0["ssn"]?.text }, ["s1", "s2"])
        XCTAssertEqual(found.results.compactMap { $0["note"] }, [])
        let ref = server.create("Ref", #"{"prot":{"__type":"Pointer","className":"Prot","objectId":"\#(owned)"}}"#)
        let included = server.send("GET", "/classes/Ref/\(ref)", auth: .anonymous, query: [("include", "prot")])
        XCTAssertEqual(included["prot"]?["className"]?.text, "Prot")
        XCTAssertNil(included["prot"]?["ssn"], "an included object hides what its class protects")
        server.create("Tag", #"{"code":"s1"}"#)
        let selected = server.send(
            "GET", "/classes/Tag", auth: .anonymous,
            query: [("where", #"{"code":{"$select":{"query":{"className":"Prot","where":{}},"key":"ssn"}}}"#)])
        XCTAssertEqual(selected.status, 200, selected.json.serialized())
        XCTAssertEqual(selected.results, [], "$select reads no hidden values")
        XCTAssertEqual(
            server.send("GET", "/classes/Tag", query: [("where", #"{"code":{"$select":{"query":{"className":"Prot","where":{}},"key":"ssn"}}}"#)]).results
                .count, 1)

        for (auth, field) in [(TestServer.Auth.anonymous, "ssn"), (.session(bob.token), "ssn"), (.session(alice.token), "note")] {
            for query in [
                [("where", #"{"\#(field)":"x"}"#)], [("where", #"{"$or":[{"\#(field)":"x"}]}"#)], [("where", #"{"\#(field)":"x"}"#), ("count", "1")],
            ] {
                XCTAssertParseError(
                    server.send("GET", "/classes/Prot", auth: auth, query: query), status: 400, code: .operationForbidden,
                    message: "This user is not allowed to query \(field) on class Prot")
            }
            XCTAssertParseError(
                server.send("GET", "/classes/Prot", auth: auth, query: [("order", "-\(field)")]), status: 400,
                code: .operationForbidden, message: "This user is not allowed to sort by \(field) on class Prot")
        }
        XCTAssertEqual(
            server.send("GET", "/classes/Prot", auth: .session(bob.token), query: [("where", #"{"note":"n1"}"#)]).results.count, 1,
            "what an entry shows, its readers may query")
        XCTAssertEqual(server.send("GET", "/classes/Prot", query: [("where", #"{"ssn":"s2"}"#)]).results.count, 1)

        // `_User`: its own entries add to the default `*: [email]`; a user sees all of itself.
        XCTAssertEqual(
            server.send(
                "PUT", "/schemas/_User",
                #"{"fields":{"phone":{"type":"String"}},"classLevelPermissions":{"find":{"*":true},"get":{"*":true},"count":{"*":true},"create":{"*":true},"update":{"*":true},"delete":{"*":true},"addField":{},"protectedFields":{"*":["phone"]}}}"#
            ).status, 200)
        XCTAssertEqual(server.send("PUT", "/users/\(alice.id)", #"{"phone":"555","email":"alice@example.com","ACL":{"*":{"read":true}}}"#).status, 200)
        let seen = server.send("GET", "/users/\(alice.id)", auth: .session(bob.token))
        XCTAssertEqual(seen["username"]?.text, "alice")
        XCTAssertNil(seen["phone"])
        XCTAssertNil(seen["email"])
        let own = server.send("GET", "/users/\(alice.id)", auth: .session(alice.token))
        XCTAssertEqual([own["phone"]?.text, own["email"]?.text, own["sessionToken"]?.text], ["555", "alice@example.com", alice.token])
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
            XCTAssertParseError(
                try XCTUnwrap(live.send("GET", "/classes/_Installation", auth: auth)), status: 400,
                code: .operationForbidden, message: findMessage)
            XCTAssertParseError(
                try XCTUnwrap(live.send("GET", "/classes/_Installation?count=1&limit=0", auth: auth)), status: 400,
                code: .operationForbidden, message: findMessage)
            let viaDevice = #"{"installation":{"$inQuery":{"className":"_Installation","where":{"deviceType":"ios"}}}}"#
            XCTAssertParseError(
                try XCTUnwrap(live.send("POST", "/classes/Device", #"{"_method":"GET","where":\#(viaDevice)}"#, auth: auth)),
                status: 400, code: .operationForbidden, message: findMessage)
            XCTAssertParseError(
                try XCTUnwrap(live.send("DELETE", "/classes/_Installation/\(id)", auth: auth)), status: 400,
                code: .operationForbidden,
                message: "Clients aren't allowed to perform the delete operation on the installation collection.")
            let batch = try XCTUnwrap(
                live.send(
                    "POST", "/batch",
                    #"{"requests":[{"method":"DELETE","path":"/parse/classes/_Installation/\#(id)"},{"method":"GET","path":"/parse/classes/_Installation"}]}"#,
                    auth: auth))
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
