import ParseMirrorServer
import ParseModel
import XCTest

/// Over HTTP: strings with NUL characters, passwords with them, names SQLite cannot tell apart,
/// and internal errors that keep the mirror's path to themselves.
final class DataAndNamesTests: XCTestCase {
    func testStringsWithNULRoundTripExactly() throws {
        let server = try TestServer(overHTTP: true)
        let created = server.send("POST", "/classes/Note", #"{"text":"before\u0000after","meta":{"k":"x\u0000y"},"tags":["\u0000"]}"#)
        XCTAssertEqual(created.status, 201, created.json.serialized())
        let id = try XCTUnwrap(created["objectId"]?.text)
        let fetched = server.send("GET", "/classes/Note/\(id)", auth: .anonymous)
        XCTAssertEqual(fetched["text"], .string("before\u{0}after"))
        XCTAssertEqual(fetched["meta"], .parse(#"{"k":"x\u0000y"}"#))
        XCTAssertEqual(fetched["tags"], .parse(#"["\u0000"]"#))
        XCTAssertEqual(try server.rows("SELECT length(CAST(text AS BLOB)) FROM Note"), [["12"]], "all 12 bytes are stored")
        let found = server.send("GET", "/classes/Note", auth: .anonymous, query: [("where", #"{"text":"before\u0000after"}"#)])
        XCTAssertEqual(found.results.count, 1)
        XCTAssertEqual(server.send("GET", "/classes/Note", auth: .anonymous, query: [("where", #"{"text":"before"}"#)]).results.count, 0)
    }

    func testAPasswordNeverMatchesOnAPrefixCutAtNUL() throws {
        let server = try TestServer(overHTTP: true)
        _ = server.signUp("ann", password: "secret")
        XCTAssertParseError(
            server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "secret\u{0}anything")]),
            status: 404, code: .objectNotFound, message: "Invalid username/password.")
        XCTAssertParseError(
            server.send("POST", "/login", #"{"username":"ann","password":"secret\u0000x"}"#, auth: .anonymous), status: 404, code: .objectNotFound)
        XCTAssertEqual(server.send("GET", "/login", auth: .anonymous, query: [("username", "ann"), ("password", "secret")]).status, 200)
        XCTAssertParseError(
            server.send("POST", "/users", #"{"username":"bob","password":"pw\u0000tail"}"#, auth: .anonymous), status: 400, code: .validationError)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM _User WHERE username = 'bob'"), [["0"]])
    }

    func testNamesThatDifferOnlyInCaseAreRefused() throws {
        let server = try TestServer(overHTTP: true)
        let meta = server.create("meta", #"{"holder":"a"}"#)
        XCTAssertEqual(server.send("PUT", "/schemas/meta", #"{"fields":{"likes":{"type":"Relation","targetClass":"_User"}}}"#).status, 200)
        let replies: [(String, TestServer.Reply, ParseErrorCode)] = [
            ("class", server.send("POST", "/classes/metA", #"{"x":1}"#), .invalidClassName),
            ("class by schema", server.send("POST", "/schemas/META", "{}"), .invalidClassName),
            ("SQLite's own name", server.send("POST", "/classes/sqlite_stat1", #"{"x":1}"#), .invalidClassName),
            ("field", server.send("POST", "/classes/meta", #"{"Holder":"b"}"#), .invalidKeyName),
            ("field on update", server.send("PUT", "/classes/meta/\(meta)", #"{"HOLDER":"b"}"#), .invalidKeyName),
            ("default field", server.send("POST", "/classes/meta", #"{"objectid":"x"}"#), .invalidKeyName),
            ("relation", server.send("PUT", "/schemas/meta", #"{"fields":{"Likes":{"type":"Relation","targetClass":"_User"}}}"#), .invalidKeyName),
            ("two at once", server.send("POST", "/schemas/Other", #"{"fields":{"a":{"type":"String"},"A":{"type":"Number"}}}"#), .invalidKeyName),
        ]
        for (what, reply, code) in replies {
            XCTAssertParseError(reply, status: 400, code: code)
            XCTAssertFalse(reply.error?.isEmpty ?? true, what)
        }
        XCTAssertEqual(try server.rows("SELECT className FROM _SCHEMA ORDER BY className"), [["meta"]])
        XCTAssertEqual(try server.columns(of: "meta"), ["objectId", "createdAt", "updatedAt", "ACL", "holder"])
        XCTAssertEqual(server.send("GET", "/schemas/meta").json["fields"]?["Likes"], nil)
        XCTAssertEqual(try server.rows("SELECT name FROM sqlite_master WHERE name LIKE '_Join:%' ORDER BY name"), [["_Join:likes:meta"]])
    }

    func testAnInternalErrorKeepsTheMirrorsPathToTheServer() throws {
        let server = try TestServer(overHTTP: true)
        _ = server.create("Book", #"{"title":"Emma"}"#)
        // A schema that lists a column the table lacks (another tool dropped it).
        _ = try server.rows(#"UPDATE _SCHEMA SET schema = json_set(schema, '$.fields.ghost', json('{"type":"String"}')) WHERE className = 'Book'"#)
        let reply = server.send("GET", "/classes/Book", auth: .anonymous)
        XCTAssertEqual(reply.status, 500)
        XCTAssertEqual(reply.json, .parse(#"{"code":1,"message":"Internal server error."}"#))
        XCTAssertFalse(reply.json.serialized().contains(server.path))
    }
}
