import ParseMirrorServer
import ParseModel
import XCTest

/// Create, get, update and delete, the update operators, schema growth and type checks.
final class ObjectTests: XCTestCase {
    func testCreateAnswers201WithLocationAndAServerId() throws {
        let server = try TestServer()
        let reply = server.send(
            "POST", "/classes/Book", #"{"title":"Emma","year":1815,"createdAt":{"__type":"Date","iso":"1999-01-01T00:00:00.000Z"}}"#,
            headers: [("Host", "localhost:1337")])
        XCTAssertEqual(reply.status, 201)
        let id = try XCTUnwrap(reply["objectId"]?.text)
        XCTAssertNotNil(id.wholeMatch(of: /[A-Za-z0-9]{10}/))
        XCTAssertEqual(reply.headers["Location"], "http://localhost:1337/parse/classes/Book/\(id)")
        let createdAt = try XCTUnwrap(reply["createdAt"]?.text)
        XCTAssertNotNil(ParseDate(iso: createdAt))
        XCTAssertEqual(reply.json, .parse(#"{"objectId":"\#(id)","createdAt":"\#(createdAt)"}"#))
        XCTAssertEqual(
            try server.rows("SELECT objectId, createdAt, updatedAt, ACL, title, year FROM Book"),
            [[id, createdAt, createdAt, nil, "Emma", "1815"]], "createdAt/updatedAt in the body are ignored")
        for field in ["createdAt", "updatedAt"] {
            XCTAssertParseError(
                server.send("POST", "/classes/Book", #"{"\#(field)":"1999"}"#), status: 400, code: .incorrectType,
                message: "schema mismatch for Book.\(field); expected Date but got String")
            XCTAssertParseError(
                server.send("PUT", "/classes/Book/\(id)", #"{"\#(field)":1999}"#), status: 400, code: .incorrectType,
                message: "schema mismatch for Book.\(field); expected Date but got Number")
        }
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["1"]])
    }

    func testGetUpdateDelete() throws {
        let server = try TestServer()
        let id = server.create("Book", #"{"title":"Emma","year":1815}"#)
        let fetched = server.send("GET", "/classes/Book/\(id)")
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched["title"], .string("Emma"))
        XCTAssertEqual(fetched["year"], .integer(1815))

        let updated = server.send("PUT", "/classes/Book/\(id)", #"{"title":"Persuasion","objectId":"ignored"}"#)
        XCTAssertEqual(updated.status, 200)
        let updatedAt = try XCTUnwrap(updated["updatedAt"]?.text)
        XCTAssertEqual(updated.json, .parse(#"{"updatedAt":"\#(updatedAt)"}"#))
        XCTAssertEqual(try server.rows("SELECT title, year, updatedAt FROM Book"), [["Persuasion", "1815", updatedAt]])

        XCTAssertEqual(server.send("DELETE", "/classes/Book/\(id)").json, .parse("{}"))
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["0"]])
        for (method, body) in [("GET", nil), ("PUT", #"{"title":"x"}"#), ("DELETE", nil)] {
            XCTAssertParseError(server.send(method, "/classes/Book/\(id)", body), status: 404, code: .objectNotFound, message: "Object not found.")
        }
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["0"]], "PUT never upserts")
    }

    func testIncrement() throws {
        let server = try TestServer()
        let reply = server.send("POST", "/classes/Score", #"{"points":{"__op":"Increment","amount":5}}"#)
        XCTAssertEqual(reply["points"], .integer(5), "create sets the amount and reports it")
        let id = try XCTUnwrap(reply["objectId"]?.text)
        XCTAssertEqual(server.send("PUT", "/classes/Score/\(id)", #"{"points":{"__op":"Increment","amount":-2}}"#)["points"], .integer(3))
        XCTAssertEqual(server.send("PUT", "/classes/Score/\(id)", #"{"points":{"__op":"Increment","amount":0.5}}"#)["points"], .double(3.5))
        XCTAssertEqual(try server.rows("SELECT points FROM Score"), [["3.5"]])
        XCTAssertParseError(
            server.send("PUT", "/classes/Score/\(id)", #"{"points":{"__op":"Increment","amount":"1"}}"#),
            status: 400, code: .invalidJSON, message: "incrementing must provide a number")
        XCTAssertParseError(server.send("PUT", "/classes/Score/\(id)", #"{"other":{"__op":"Increment"}}"#), status: 400, code: .invalidJSON)
    }

    func testArrayOperators() throws {
        let server = try TestServer()
        let id = server.create("Post", #"{"tags":{"__op":"Add","objects":["a","b"]}}"#)
        XCTAssertEqual(server.send("PUT", "/classes/Post/\(id)", #"{"tags":{"__op":"Add","objects":["a"]}}"#)["tags"], .parse(#"["a","b","a"]"#))
        XCTAssertEqual(
            server.send("PUT", "/classes/Post/\(id)", #"{"tags":{"__op":"AddUnique","objects":["b","c","c"]}}"#)["tags"],
            .parse(#"["a","b","a","c"]"#))
        XCTAssertEqual(server.send("PUT", "/classes/Post/\(id)", #"{"tags":{"__op":"Remove","objects":["a","z"]}}"#)["tags"], .parse(#"["b","c"]"#))
        XCTAssertEqual(try server.rows("SELECT tags FROM Post"), [[#"["b","c"]"#]])
        XCTAssertParseError(
            server.send("PUT", "/classes/Post/\(id)", #"{"tags":{"__op":"Add","objects":"a"}}"#),
            status: 400, code: .invalidJSON, message: "objects to add must be an array")
        XCTAssertParseError(
            server.send("PUT", "/classes/Post/\(id)", #"{"tags":{"__op":"Remove"}}"#),
            status: 400, code: .invalidJSON, message: "objects to remove must be an array")
        let created = server.send("POST", "/classes/Post", #"{"tags":{"__op":"AddUnique","objects":[1,1,2]}}"#)
        XCTAssertEqual(created["tags"], .parse("[1,2]"))
        XCTAssertEqual(server.send("POST", "/classes/Post", #"{"tags":{"__op":"Remove","objects":[1]}}"#)["tags"], .parse("[]"))
    }

    func testDeleteOperatorAndNull() throws {
        let server = try TestServer()
        let id = server.create("Book", #"{"title":"Emma","note":"x"}"#)
        XCTAssertEqual(server.send("PUT", "/classes/Book/\(id)", #"{"note":{"__op":"Delete"},"title":null}"#).status, 200)
        XCTAssertEqual(try server.rows("SELECT title, note FROM Book"), [[nil, nil]])
        XCTAssertEqual(server.send("PUT", "/classes/Book/\(id)", #"{"unknown":null,"other":{"__op":"Delete"}}"#).status, 200)
        XCTAssertEqual(
            try server.columns(of: "Book"), ["objectId", "createdAt", "updatedAt", "ACL", "title", "note"],
            "null and Delete add no field")
    }

    func testRelationOperators() throws {
        let server = try TestServer()
        let pointer = { (id: String) in #"{"__type":"Pointer","className":"Author","objectId":"\#(id)"}"# }
        let id = server.create("Book", #"{"authors":{"__op":"AddRelation","objects":[\#(pointer("a1")),\#(pointer("a2"))]}}"#)
        let schema = server.send("GET", "/schemas/Book")
        XCTAssertEqual(schema.json["fields"]?["authors"], .parse(#"{"type":"Relation","targetClass":"Author"}"#))
        XCTAssertEqual(try server.rows(#"SELECT owningId, relatedId FROM "_Join:authors:Book" ORDER BY relatedId"#), [[id, "a1"], [id, "a2"]])
        XCTAssertEqual(server.send("PUT", "/classes/Book/\(id)", #"{"authors":{"__op":"RemoveRelation","objects":[\#(pointer("a1"))]}}"#).status, 200)
        XCTAssertEqual(try server.rows(#"SELECT relatedId FROM "_Join:authors:Book""#), [["a2"]])
        let batch =
            #"{"authors":{"__op":"Batch","ops":[{"__op":"AddRelation","objects":[\#(pointer("a3"))]},{"__op":"RemoveRelation","objects":[\#(pointer("a2"))]}]}}"#
        XCTAssertEqual(server.send("PUT", "/classes/Book/\(id)", batch).status, 200)
        XCTAssertEqual(try server.rows(#"SELECT relatedId FROM "_Join:authors:Book""#), [["a3"]])
        XCTAssertEqual(server.send("GET", "/classes/Book/\(id)")["authors"], .parse(#"{"__type":"Relation","className":"Author"}"#))
        let wrongTarget = #"{"authors":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"Genre","objectId":"g"}]}}"#
        XCTAssertParseError(
            server.send("PUT", "/classes/Book/\(id)", wrongTarget), status: 400, code: .incorrectType,
            message: "schema mismatch for Book.authors; expected Relation<Author> but got Relation<Genre>")
    }

    /// As in Parse Server, an update that only adds or removes relation links moves `updatedAt`
    /// (Docs/ParseServer.md#relations): an incremental pull finds the owners whose links changed that way.
    func testRelationOnlyUpdatesMoveUpdatedAt() throws {
        let server = try TestServer()
        let id = server.create("Book", #"{"title":"Emma"}"#)
        let created = try XCTUnwrap(try server.rows("SELECT updatedAt FROM Book")[0][0])
        Thread.sleep(forTimeInterval: 0.005)
        let reply = server.send(
            "PUT", "/classes/Book/\(id)", #"{"authors":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"Author","objectId":"a1"}]}}"#)
        XCTAssertEqual(reply.status, 200)
        let updatedAt = try XCTUnwrap(reply["updatedAt"]?.text)
        XCTAssertGreaterThan(updatedAt, created)
        XCTAssertEqual(try server.rows("SELECT updatedAt FROM Book"), [[updatedAt]])
    }

    func testUnknownOperator() throws {
        let server = try TestServer()
        XCTAssertParseError(
            server.send("POST", "/classes/Book", #"{"n":{"__op":"Multiply","amount":2}}"#),
            status: 400, code: .commandUnavailable, message: "The Multiply operator is not supported yet.")
    }

    func testSchemaGrowsWithTheFirstNonNullValue() throws {
        let server = try TestServer()
        _ = server.create(
            "Thing",
            """
            {"s":"x","n":1.5,"b":true,"d":{"__type":"Date","iso":"2024-01-31T09:30:00.000Z"},"o":{"k":"v"},"a":[1],
             "g":{"__type":"GeoPoint","latitude":1,"longitude":2},"f":{"__type":"File","name":"f.txt","url":"http://x/f.txt"},
             "p":{"__type":"Pointer","className":"Other","objectId":"o1"},"y":{"__type":"Bytes","base64":"AAAA"},
             "poly":{"__type":"Polygon","coordinates":[[0,0],[0,1],[1,1]]},"nothing":null}
            """)
        let fields = server.send("GET", "/schemas/Thing").json["fields"]
        let types: [String: String] = [
            "s": "String", "n": "Number", "b": "Boolean", "d": "Date", "o": "Object", "a": "Array",
            "g": "GeoPoint", "f": "File", "p": "Pointer", "y": "Bytes", "poly": "Polygon",
        ]
        for (name, type) in types { XCTAssertEqual(fields?[name]?["type"], .string(type), name) }
        XCTAssertEqual(fields?["p"]?["targetClass"], .string("Other"))
        XCTAssertNil(fields?["nothing"])
        XCTAssertEqual(
            try server.rows("SELECT s, n, b, d, p, g FROM Thing"),
            [["x", "1.5", "1", "2024-01-31T09:30:00.000Z", "o1", #"{"__type":"GeoPoint","latitude":1,"longitude":2}"#]])
        XCTAssertEqual(try server.rows("SELECT type FROM pragma_table_info('Thing') WHERE name IN ('s','n','b')"), [["TEXT"], ["NUMERIC"], ["INTEGER"]])
    }

    func testTypeMismatches() throws {
        let server = try TestServer()
        let id = server.create("Book", #"{"title":"Emma","genre":{"__type":"Pointer","className":"Genre","objectId":"g"}}"#)
        XCTAssertParseError(
            server.send("PUT", "/classes/Book/\(id)", #"{"title":12}"#), status: 400, code: .incorrectType,
            message: "schema mismatch for Book.title; expected String but got Number")
        XCTAssertParseError(
            server.send("POST", "/classes/Book", #"{"genre":{"__type":"Pointer","className":"Shelf","objectId":"s"}}"#),
            status: 400, code: .incorrectType, message: "schema mismatch for Book.genre; expected Pointer<Genre> but got Pointer<Shelf>")
        XCTAssertParseError(
            server.send("POST", "/classes/Book", #"{"x":{"__type":"Bogus"}}"#), status: 400, code: .incorrectType, message: "This is not a valid Bogus")
        XCTAssertParseError(
            server.send("POST", "/classes/Book", #"{"x":{"__type":"Object","className":"A","objectId":"b"}}"#), status: 400, code: .incorrectType)
        XCTAssertParseError(
            server.send(
                "POST", "/classes/Book", #"{"place":{"__type":"GeoPoint","latitude":1,"longitude":2},"other":{"__type":"GeoPoint","latitude":1,"longitude":2}}"#
            ),
            status: 400, code: .incorrectType)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["1"]])
        XCTAssertEqual(try server.columns(of: "Book"), ["objectId", "createdAt", "updatedAt", "ACL", "title", "genre"], "failed writes add no field")
    }

    func testInvalidNames() throws {
        let server = try TestServer()
        for name in ["_private", "1st", "a-b", "className", "a.b"] {
            XCTAssertParseError(
                server.send("POST", "/classes/Book", #"{"\#(name)":1}"#), status: 400, code: .invalidKeyName, message: "Invalid field name: \(name).")
        }
        XCTAssertParseError(server.send("POST", "/classes/Book", #"{"o":{"constructor":1}}"#), status: 400, code: .invalidKeyName)
        XCTAssertParseError(server.send("POST", "/classes/Book", #"{"o":{"a.b":1}}"#), status: 400, code: .invalidNestedKey)
        // As Parse Server: a class that cannot exist is missing to reads, and creating it is 107 (119 for a client).
        XCTAssertParseError(
            server.send("POST", "/classes/Bad-Name", #"{}"#), status: 400, code: .invalidJSON,
            message: "schema class name does not revalidate")
        XCTAssertParseError(
            server.send("POST", "/classes/Bad-Name", #"{}"#, auth: .anonymous), status: 400, code: .operationForbidden,
            message: "This user is not allowed to access non-existent class: Bad-Name")
        XCTAssertEqual(server.send("GET", "/classes/Bad-Name").json, .parse(#"{"results":[]}"#))
        XCTAssertFalse(try server.tableExists("Book"))
        XCTAssertFalse(try server.tableExists("Bad-Name"))
    }

    func testClassCreationNeedsTheMasterKey() throws {
        let server = try TestServer()
        XCTAssertParseError(
            server.send("POST", "/classes/Book", #"{"title":"Emma"}"#, auth: .anonymous), status: 400, code: .operationForbidden,
            message: "This user is not allowed to access non-existent class: Book")
        XCTAssertParseError(server.send("GET", "/classes/Book", auth: .anonymous), status: 400, code: .operationForbidden)
        XCTAssertEqual(server.send("GET", "/classes/Book").json, .parse(#"{"results":[]}"#), "the master key sees an empty class")
        _ = server.create("Book", #"{"title":"Emma"}"#)
        let reply = server.send("POST", "/classes/Book", #"{"title":"Emma","pages":100}"#, auth: .anonymous)
        XCTAssertEqual(reply.status, 201, "the default CLP lets anyone add fields")
        XCTAssertEqual(server.send("PUT", "/schemas/Book", #"{"classLevelPermissions":{"find":{"*":true},"create":{"*":true}}}"#).status, 200)
        XCTAssertParseError(
            server.send("POST", "/classes/Book", #"{"isbn":"x"}"#, auth: .anonymous), status: 400, code: .operationForbidden,
            message: "Permission denied for action addField on class Book.")
        XCTAssertEqual(server.send("POST", "/classes/Book", #"{"title":"x"}"#, auth: .anonymous).status, 201)
        XCTAssertParseError(
            server.send("PUT", "/classes/Book/\(reply["objectId"]?.text ?? "")", #"{"title":"y"}"#, auth: .anonymous),
            status: 400, code: .operationForbidden, message: "Permission denied for action update on class Book.")
    }

    func testRequiredFieldsAndDefaults() throws {
        let server = try TestServer()
        XCTAssertEqual(
            server.send(
                "POST", "/schemas/Book",
                """
                {"fields":{"title":{"type":"String","required":true},"status":{"type":"String","defaultValue":"draft"},
                           "pages":{"type":"Number","required":true,"defaultValue":1}}}
                """
            ).status, 200)
        XCTAssertParseError(server.send("POST", "/classes/Book", #"{"status":"x"}"#), status: 400, code: .validationError, message: "title is required")
        XCTAssertParseError(server.send("POST", "/classes/Book", #"{"title":null}"#), status: 400, code: .validationError, message: "title is required")
        let id = server.create("Book", #"{"title":"Emma","pages":null}"#)
        XCTAssertEqual(try server.rows("SELECT title, status, pages FROM Book"), [["Emma", "draft", "1"]])
        XCTAssertParseError(server.send("PUT", "/classes/Book/\(id)", #"{"title":{"__op":"Delete"}}"#), status: 400, code: .validationError)
        XCTAssertEqual(server.send("PUT", "/classes/Book/\(id)", #"{"status":null}"#).status, 200, "defaults apply on create only")
    }

    /// What the REST importer asks `allowCustomObjectId` with: an empty objectId (104 when custom
    /// ids are on) and an `id` (105 when they are off), both refused before anything is written.
    static let importerProbe = #"{"objectId":"","id":"parsePorterProbe","parsePorterProbe":{"__type":"ParsePorterProbe"}}"#

    /// The REST importer probes `allowCustomObjectId` with this body and reads the answer.
    func testCustomObjectIdProbeWhenOff() throws {
        let server = try TestServer()
        let probe = #"{"objectId":"x","someField":{"__type":"Bogus"}}"#
        XCTAssertParseError(server.send("POST", "/classes/Probe", probe), status: 400, code: .invalidKeyName, message: "objectId is an invalid field name.")
        XCTAssertParseError(server.send("POST", "/classes/Probe", #"{"id":"x"}"#), status: 400, code: .invalidKeyName, message: "id is an invalid field name.")
        // The probe the importer sends now: Parse Server 7.1.0 answered it so, for a class it did not have.
        XCTAssertParseError(
            server.send("POST", "/classes/Probe", Self.importerProbe), status: 400, code: .invalidKeyName, message: "id is an invalid field name.")
        XCTAssertEqual(try server.rows("SELECT className FROM _SCHEMA"), [])
        XCTAssertFalse(try server.tableExists("Probe"))
    }

    func testCustomObjectIdProbeWhenOn() throws {
        let server = try TestServer { $0.allowCustomObjectId = true }
        XCTAssertParseError(server.send("POST", "/classes/Probe", #"{"objectId":"x","someField":{"__type":"Bogus"}}"#), status: 400, code: .incorrectType)
        XCTAssertParseError(
            server.send("POST", "/classes/Probe", Self.importerProbe), status: 400, code: .missingObjectId,
            message: "objectId must not be empty, null or undefined")
        XCTAssertEqual(try server.rows("SELECT className FROM _SCHEMA"), [], "nothing was written")
        XCTAssertFalse(try server.tableExists("Probe"))

        let created = server.send("POST", "/classes/Book", #"{"objectId":"hobbit-1937","title":"The Hobbit"}"#)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(created["objectId"], .string("hobbit-1937"))
        XCTAssertParseError(
            server.send("POST", "/classes/Book", #"{"objectId":"hobbit-1937"}"#), status: 400, code: .duplicateValue,
            message: "A duplicate value for a field with unique values was provided")
        XCTAssertParseError(server.send("POST", "/classes/Book", #"{"objectId":""}"#), status: 400, code: .missingObjectId)
        XCTAssertParseError(server.send("POST", "/classes/Book", #"{"objectId":null}"#), status: 400, code: .missingObjectId)
        XCTAssertEqual(server.send("POST", "/classes/Book", #"{"title":"generated"}"#).status, 201)
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["2"]])
    }

    func testACLValues() throws {
        let server = try TestServer()
        let id = server.create("Book", #"{"ACL":{"*":{"read":true},"u1":{"read":true,"write":true}}}"#)
        XCTAssertEqual(try server.rows("SELECT ACL FROM Book"), [[#"{"*":{"read":true},"u1":{"read":true,"write":true}}"#]])
        XCTAssertEqual(server.send("GET", "/classes/Book/\(id)")["ACL"], .parse(#"{"*":{"read":true},"u1":{"read":true,"write":true}}"#))
        XCTAssertParseError(server.send("POST", "/classes/Book", #"{"ACL":{"*":{"read":"yes"}}}"#), status: 400, code: .invalidACL)
        XCTAssertEqual(server.send("PUT", "/classes/Book/\(id)", #"{"ACL":null}"#).status, 200)
        XCTAssertEqual(try server.rows("SELECT ACL FROM Book"), [[nil]])
    }
}
