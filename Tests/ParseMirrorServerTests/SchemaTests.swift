import ParseMirrorServer
import ParseModel
import XCTest

/// `/schemas`: the lifecycle of a class and every refusal, with the mirror's tables checked.
final class SchemaTests: XCTestCase {
    func testLifecycle() throws {
        let server = try TestServer()
        let created = server.send(
            "POST", "/schemas/Book",
            """
            {"className":"Book","fields":{"title":{"type":"String","required":true},"genre":{"type":"Pointer","targetClass":"Genre"},
             "authors":{"type":"Relation","targetClass":"Author"},"year":{"type":"Number","defaultValue":2000}}}
            """)
        XCTAssertEqual(created.status, 200)
        let expected = ClassSchema(
            className: "Book",
            fields: [
                SchemaField(name: "title", type: .string, required: true), SchemaField(name: "genre", type: .pointer(targetClass: "Genre")),
                SchemaField(name: "authors", type: .relation(targetClass: "Author")), SchemaField(name: "year", type: .number, defaultValue: .integer(2000)),
            ])
        XCTAssertEqual(created.json, expected.schemaJSON)
        XCTAssertEqual(server.send("GET", "/schemas/Book").json, expected.schemaJSON)
        XCTAssertEqual(try server.columns(of: "Book"), ["objectId", "createdAt", "updatedAt", "ACL", "title", "genre", "year"])
        XCTAssertTrue(try server.tableExists("_Join:authors:Book"))
        XCTAssertEqual(try server.rows("SELECT schema FROM _SCHEMA WHERE className = 'Book'"), [[expected.schemaJSON.serialized()]])

        XCTAssertEqual(server.send("POST", "/schemas", #"{"className":"Genre"}"#).status, 200)
        XCTAssertEqual(
            server.send("GET", "/schemas").json,
            .object(
                JSONObject([
                    "results": .array([
                        expected.schemaJSON, ClassSchema(className: "Genre", fields: []).schemaJSON,
                    ])
                ])))

        let changed = server.send("PUT", "/schemas/Book", #"{"fields":{"pages":{"type":"Number"},"genre":{"__op":"Delete"},"authors":{"__op":"Delete"}}}"#)
        XCTAssertEqual(changed.status, 200)
        XCTAssertEqual(changed.json["fields"]?["pages"], .parse(#"{"type":"Number"}"#))
        XCTAssertNil(changed.json["fields"]?["genre"])
        XCTAssertEqual(try server.columns(of: "Book"), ["objectId", "createdAt", "updatedAt", "ACL", "title", "year", "pages"])
        XCTAssertFalse(try server.tableExists("_Join:authors:Book"))

        let id = server.create("Book", #"{"title":"Emma"}"#)
        XCTAssertParseError(
            server.send("DELETE", "/schemas/Book"), status: 400, code: .invalidSchemaOperation,
            message: "Class Book is not empty, contains 1 objects, cannot drop schema.")
        XCTAssertEqual(server.send("DELETE", "/classes/Book/\(id)").status, 200)
        XCTAssertEqual(server.send("DELETE", "/schemas/Book").json, .parse("{}"))
        XCTAssertFalse(try server.tableExists("Book"))
        XCTAssertParseError(server.send("GET", "/schemas/Book"), status: 400, code: .invalidClassName, message: "Class Book does not exist.")
        XCTAssertEqual(server.send("DELETE", "/schemas/Book").json, .parse("{}"), "dropping a missing class is {} as in Parse Server")
    }

    func testRefusals() throws {
        let server = try TestServer()
        XCTAssertEqual(server.send("POST", "/schemas/Book", #"{"fields":{"title":{"type":"String"}}}"#).status, 200)
        XCTAssertParseError(server.send("POST", "/schemas/Book", "{}"), status: 400, code: .invalidClassName, message: "Class Book already exists.")
        XCTAssertParseError(
            server.send("POST", "/schemas/Book", #"{"className":"Other"}"#), status: 400, code: .invalidClassName,
            message: "Class name mismatch between Other and Book.")
        XCTAssertParseError(server.send("POST", "/schemas", "{}"), status: 400, code: .missingRequiredFieldError)
        XCTAssertParseError(server.send("POST", "/schemas/9lives", "{}"), status: 400, code: .invalidClassName)
        XCTAssertParseError(
            server.send("POST", "/schemas/A", #"{"fields":{"x":{"type":"Money"}}}"#), status: 400, code: .incorrectType, message: "invalid field type: Money")
        XCTAssertParseError(
            server.send("POST", "/schemas/A", #"{"fields":{"x":{"type":"Pointer"}}}"#), status: 400, code: .missingRequiredFieldError,
            message: "type Pointer needs a class name")
        XCTAssertParseError(
            server.send("POST", "/schemas/A", #"{"fields":{"x":{"type":"Number","defaultValue":"one"}}}"#), status: 400, code: .incorrectType,
            message: "schema mismatch for A.x default value; expected Number but got String")
        XCTAssertParseError(
            server.send("POST", "/schemas/A", #"{"fields":{"x":{"type":"Relation","targetClass":"B","required":true}}}"#),
            status: 400, code: .incorrectType)
        XCTAssertParseError(
            server.send("POST", "/schemas/A", #"{"fields":{"objectId":{"type":"String"}}}"#), status: 400, code: .changedImmutableFieldError,
            message: "field objectId cannot be added")
        XCTAssertParseError(server.send("POST", "/schemas/A", #"{"classLevelPermissions":{"find":{"*":false}}}"#), status: 400, code: .invalidJSON)
        XCTAssertParseError(
            server.send("PUT", "/schemas/Book", #"{"fields":{"title":{"type":"Number"}}}"#), status: 400, code: .invalidSchemaOperation,
            message: "Field title exists, cannot update.")
        XCTAssertParseError(
            server.send("PUT", "/schemas/Book", #"{"fields":{"ACL":{"__op":"Delete"}}}"#), status: 400, code: .changedImmutableFieldError,
            message: "field ACL cannot be changed")
        XCTAssertParseError(
            server.send("PUT", "/schemas/Book", #"{"fields":{"missing":{"__op":"Delete"}}}"#), status: 400, code: .invalidSchemaOperation,
            message: "Field missing does not exist, cannot delete.")
        XCTAssertParseError(server.send("PUT", "/schemas/Nope", "{}"), status: 400, code: .invalidClassName, message: "Class Nope does not exist.")
        XCTAssertEqual(server.send("GET", "/schemas", auth: .anonymous).json, .parse(#"{"error":"unauthorized: master key is required"}"#))
        XCTAssertEqual(server.send("GET", "/schemas", auth: .anonymous).status, 403)
        XCTAssertEqual(try server.rows("SELECT className FROM _SCHEMA"), [["Book"]], "no refused request left a class behind")
        XCTAssertEqual(try server.columns(of: "Book"), ["objectId", "createdAt", "updatedAt", "ACL", "title"])
    }

    func testFieldOptionsChangeWithTheSameType() throws {
        let server = try TestServer()
        XCTAssertEqual(server.send("POST", "/schemas/Book", #"{"fields":{"title":{"type":"String"}}}"#).status, 200)
        let reply = server.send("PUT", "/schemas/Book", #"{"fields":{"title":{"type":"String","required":true}}}"#)
        XCTAssertEqual(reply.json["fields"]?["title"], .parse(#"{"type":"String","required":true}"#))
    }

    func testSystemClassesGetTheirDefaultFields() throws {
        let server = try TestServer()
        let reply = server.send("POST", "/schemas/_User", "{}")
        XCTAssertEqual(reply.status, 200)
        let fields = try XCTUnwrap(reply.json["fields"])
        XCTAssertEqual(fields["username"], .parse(#"{"type":"String"}"#))
        XCTAssertEqual(fields["emailVerified"], .parse(#"{"type":"Boolean"}"#))
        XCTAssertEqual(fields["authData"], .parse(#"{"type":"Object"}"#))
        XCTAssertParseError(server.send("PUT", "/schemas/_User", #"{"fields":{"email":{"type":"String"}}}"#), status: 400, code: .changedImmutableFieldError)
    }

    func testClassLevelPermissionsAndIndexes() throws {
        let server = try TestServer()
        let reply = server.send(
            "POST", "/schemas/Book",
            """
            {"fields":{"title":{"type":"String"}},"classLevelPermissions":{"find":{"*":true},"get":{"requiresAuthentication":true}},
             "indexes":{"title_1":{"title":1}}}
            """)
        XCTAssertEqual(
            reply.json["classLevelPermissions"],
            .parse(
                """
                {"find":{"*":true},"count":{},"get":{"requiresAuthentication":true},"create":{},"update":{},"delete":{},"addField":{},"protectedFields":{}}
                """))
        XCTAssertEqual(reply.json["indexes"], .parse(#"{"title_1":{"title":1}}"#))
        XCTAssertParseError(server.send("PUT", "/schemas/Book", #"{"indexes":{"title_1":{"title":1}}}"#), status: 400, code: .invalidQuery)
        XCTAssertParseError(
            server.send("PUT", "/schemas/Book", #"{"indexes":{"x_1":{"x":1}}}"#), status: 400, code: .invalidQuery,
            message: "Field x does not exist, cannot add index.")
        XCTAssertNil(server.send("PUT", "/schemas/Book", #"{"indexes":{"title_1":{"__op":"Delete"}}}"#).json["indexes"])

        let id = server.create("Book", #"{"title":"Emma"}"#)
        XCTAssertParseError(
            server.send("POST", "/classes/Book", #"{"title":"x"}"#, auth: .anonymous), status: 400, code: .operationForbidden,
            message: "Permission denied for action create on class Book.")
        XCTAssertEqual(server.send("GET", "/classes/Book", auth: .anonymous).results.count, 1)
        XCTAssertParseError(
            server.send("GET", "/classes/Book/\(id)", auth: .anonymous), status: 404, code: .objectNotFound,
            message: "Permission denied, user needs to be authenticated.")
        let (_, token) = server.signUp("ann")
        XCTAssertEqual(server.send("GET", "/classes/Book/\(id)", auth: .session(token)).status, 200)
    }
}
