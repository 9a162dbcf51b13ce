import Foundation
import ParseMirrorServer
import ParseModel
import PorterMigrations
import PorterPostgres
import PorterTestSupport
import XCTest

/// ``PostgresDatabaseTarget`` through its Parse API, against the tests' private PostgreSQL: the
/// `/schemas` requests answered with the mirror's checks (the same Parse error codes and
/// messages), and a refused request inside a unit of work undoing only itself.
final class PostgresDatabaseTargetTests: XCTestCase {
    private func json(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

    /// The answer to a request: `ok`, or the Parse error code and message of a refusal.
    private func outcome(_ target: MigrationTarget, _ method: String, _ path: String, _ body: String?) throws -> String {
        let body = try body.map(json)
        do {
            _ = try blocking { try await target.api.send(method, path, body: body) }
            return "ok"
        } catch let error as ParseAPIError {
            guard case .refused(let answer) = error else { return "failed: \(error.porterError("").message)" }
            return "\(answer.code.map { String($0.rawValue) } ?? "-") \(answer.message)"
        }
    }

    func testSchemaRequestsAreAnsweredAsTheMirrorAnswersThem() throws {
        let postgres = try PostgresDatabaseTarget(url: try PostgresCluster.shared().createDatabase())
        let mirror = try MirrorTarget(path: try temporaryFolder("porter").appendingPathComponent("app.sqlite").path, create: true)
        let requests: [(String, String, String?)] = [
            ("POST", "/schemas/Book", #"{"fields": {"title": {"type": "String"}, "where": {"type": "GeoPoint"}}}"#),
            ("POST", "/schemas/Book", #"{"fields": {}}"#),
            ("POST", "/schemas/Other", #"{"className": "Book"}"#),
            ("POST", "/schemas/1Book", nil),
            ("GET", "/schemas/Missing", nil),
            ("PUT", "/schemas/Missing", #"{"fields": {"a": {"type": "String"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"title": {"type": "Number"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"objectId": {"type": "String"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"bad name": {"type": "String"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"pages": {"type": "Integer"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"author": {"type": "Pointer"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"there": {"type": "GeoPoint"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"missing": {"__op": "Delete"}}}"#),
            ("PUT", "/schemas/Book", #"{"indexes": {"m_1": {"missing": 1}}}"#),
            ("PUT", "/schemas/Book", #"{"indexes": {"gone": {"__op": "Delete"}}}"#),
            ("PUT", "/schemas/Book", #"{"classLevelPermissions": {"find": {"*": "yes"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"pages": {"type": "Number", "defaultValue": "many"}}}"#),
            ("PUT", "/schemas/Book", #"{"fields": {"pages": {"type": "Number", "defaultValue": 0}}, "indexes": {"title_1": {"title": 1}}}"#),
            ("PUT", "/schemas/Book", #"{"indexes": {"title_1": {"title": 1}}}"#),
            ("DELETE", "/schemas/Missing", nil),
            ("DELETE", "/schemas/Book", nil),
        ]
        var codes: [String] = []
        for (method, path, body) in requests {
            let answer = try outcome(postgres, method, path, body)
            XCTAssertEqual(answer, try outcome(mirror, method, path, body), "\(method) \(path) \(body ?? "")")
            codes.append(String(answer.prefix { $0 != " " }))
        }
        XCTAssertEqual(
            codes,
            [
                "ok", "103", "103", "103", "103", "103", "255", "136", "105", "111", "135", "111", "255", "102", "102", "107", "111",
                "ok", "102", "ok", "ok",
            ])
        XCTAssertNil(try blocking { try await postgres.api.schema(of: "Book") })
    }

    /// Inside a unit of work each request is a savepoint: a refused one undoes itself and the
    /// transaction goes on; rollback undoes the rest.
    func testARefusedRequestUndoesOnlyItselfAndRollbackUndoesTheUnit() throws {
        let target = try PostgresDatabaseTarget(url: try PostgresCluster.shared().createDatabase())
        XCTAssertEqual(try outcome(target, "POST", "/schemas/Book", #"{"fields": {"title": {"type": "String"}}}"#), "ok")
        try target.begin()
        XCTAssertEqual(try outcome(target, "PUT", "/schemas/Book", #"{"fields": {"pages": {"type": "Number"}}}"#), "ok")
        XCTAssertEqual(
            try outcome(target, "PUT", "/schemas/Book", #"{"indexes": {"m_1": {"missing": 1}}}"#), "102 Field missing does not exist, cannot add index.")
        XCTAssertEqual(try outcome(target, "PUT", "/schemas/Book", #"{"fields": {"year": {"type": "Number"}}}"#), "ok")
        let names = try blocking { try await target.api.schema(of: "Book")?.fields.map(\.name) } ?? []
        XCTAssertTrue(names.contains("pages") && names.contains("year"), "\(names)")
        target.rollback()
        XCTAssertEqual(try blocking { try await target.api.schema(of: "Book")?.fields.contains { $0.name == "pages" || $0.name == "year" } }, false)
        XCTAssertTrue(try outcome(target, "GET", "/functions/hello", nil).contains("failed: "))
        XCTAssertTrue(try outcome(target, "GET", "/functions/hello", nil).contains("GET /functions/hello is not answered on a PostgreSQL database"))
    }

    /// The object requests of migrations: refused as Parse Server refuses them, nothing written
    /// by a refused one; in `/batch` each sub-request stands alone.
    func testObjectRequestsAreRefusedAsParseServerRefusesThem() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let target = try PostgresDatabaseTarget(url: url)
        XCTAssertEqual(
            try outcome(target, "POST", "/schemas/Book", #"{"fields": {"title": {"type": "String"}, "pages": {"type": "Number", "required": true}}}"#), "ok")
        XCTAssertEqual(try outcome(target, "POST", "/schemas/_User", #"{"fields": {}}"#), "ok")
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try connection.execute(
            #"INSERT INTO "Book" ("objectId", "createdAt", "updatedAt", "title", "pages") VALUES ('dune', now(), now(), 'Dune', 412), ('emma', now(), now(), 'Emma', 300)"#
        )
        try connection.execute(
            #"INSERT INTO "_User" ("objectId", "createdAt", "updatedAt", "username") VALUES ('ann', now(), now(), 'ann'), ('bob', now(), now(), 'bob')"#)
        let cases: [(String, String, String?, String)] = [
            ("PUT", "/classes/Book/dune", #"{"pages": "many"}"#, "111 schema mismatch for Book.pages; expected Number but got String"),
            (
                "PUT", "/classes/Book/dune", #"{"shelf": 1}"#,
                "119 Book has no field shelf: fields are not added on write to a PostgreSQL database; add it to the schema first"
            ),
            ("PUT", "/classes/Book/dune", #"{"pages": {"__op": "Delete"}}"#, "142 pages is required"),
            (
                "PUT", "/classes/Book/dune", #"{"pages": {"__op": "Increment", "amount": 1}}"#,
                "108 Book.pages: only values, Delete, AddRelation and RemoveRelation are answered on a PostgreSQL database"
            ),
            ("PUT", "/classes/Book/nope", #"{"pages": 1}"#, "101 Object not found."),
            ("DELETE", "/classes/Book/nope", nil, "101 Object not found."),
            ("PUT", "/classes/_User/bob", #"{"username": "ann"}"#, "137 A duplicate value for a field with unique values was provided"),
            ("POST", "/classes/Book", #"{"title": "Emma"}"#, "108 POST /classes/Book is not answered on a PostgreSQL database"),
            ("GET", "/classes/Book/dune", nil, "108 GET /classes/Book/dune is not answered on a PostgreSQL database"),
        ]
        for (method, path, body, expected) in cases {
            XCTAssertEqual(try outcome(target, method, path, body), expected, "\(method) \(path) \(body ?? "")")
        }
        XCTAssertEqual(try connection.execute(#"SELECT "objectId", pages::text FROM "Book" ORDER BY 1"#), [["dune", "412"], ["emma", "300"]])
        XCTAssertEqual(try connection.execute(#"SELECT username FROM "_User" ORDER BY 1"#), [["ann"], ["bob"]])
        for (query, expected) in [
            (
                [("where", #"{"title": {"$regex": "^D"}}"#)],
                "102 where: title: $regex is not supported when reading a PostgreSQL database (supported: $eq, $ne, $lt, $lte, $gt, $gte, $in, $nin, $exists, $and, $or, $relatedTo)"
            ),
            ([("order", "-pages")], "102 order: only objectId is answered on a PostgreSQL database"),
            ([("where", #"{"pages": {"$gt": 400}}"#), ("keys", "title")], #"[{"objectId":"dune","title":"Dune"}]"#),
        ] {
            do {
                let found = try blocking { try await target.api.send("GET", "/classes/Book", query: query, body: nil) }
                let results = found["results"].map { $0.serialized() } ?? found.serialized()
                XCTAssertEqual(results.replacingOccurrences(of: #","createdAt":"[^"]*","updatedAt":"[^"]*""#, with: "", options: .regularExpression), expected)
            } catch let error as ParseAPIError {
                guard case .refused(let answer) = error else { throw error }
                XCTAssertEqual("\(answer.code?.rawValue ?? 0) \(answer.message)", expected)
            }
        }

        let answer = try blocking {
            try await target.api.send(
                "POST", "/batch",
                body: json(
                    #"""
                    {"requests": [{"method": "PUT", "path": "/parse/classes/Book/dune", "body": {"pages": 500}},
                                  {"method": "PUT", "path": "/parse/classes/Book/emma", "body": {"pages": "many"}},
                                  {"method": "DELETE", "path": "/parse/classes/Book/nope"},
                                  {"method": "DELETE", "path": "/parse/classes/Book/emma"}]}
                    """#))
        }
        guard case .array(let results) = answer, results.count == 4 else { return XCTFail("\(answer.serialized())") }
        XCTAssertNotNil(results[0]["success"]?["updatedAt"])
        XCTAssertEqual(results[1]["error"]?["code"], .integer(111))
        XCTAssertEqual(results[2]["error"]?["code"], .integer(101))
        XCTAssertEqual(results[3]["success"], .object(JSONObject()))
        XCTAssertEqual(try connection.execute(#"SELECT "objectId", pages::text FROM "Book" ORDER BY 1"#), [["dune", "500"]])
    }

    /// Malformed requests, as a hand-written migration tool might send them, are refused
    /// with Parse's codes and change nothing.
    func testMalformedObjectRequestsAreRefused() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let target = try PostgresDatabaseTarget(url: url)
        XCTAssertEqual(try outcome(target, "POST", "/schemas/Book", #"{"fields": {"pages": {"type": "Number"}}}"#), "ok")
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try connection.execute(#"INSERT INTO "Book" ("objectId", "createdAt", "updatedAt", "pages") VALUES ('dune', now(), now(), 412)"#)
        let cases: [(String, String, String?, String)] = [
            ("POST", "/batch", #"{"requests": {"method": "DELETE"}}"#, "107 requests must be an array"),
            ("POST", "/batch", #"{"requests": [{"method": "DELETE"}]}"#, "107 cannot route batch path undefined"),
            ("POST", "/batch", #"{"requests": [{"method": "DELETE", "path": "/classes/Book/dune"}]}"#, "107 cannot route batch path /classes/Book/dune"),
            ("POST", "/batch", #"{"requests": [{"method": "POST", "path": "/parse/batch"}]}"#, "107 cannot route batch path /parse/batch"),
            (
                "POST", "/batch", #"{"requests": [{"method": "GET", "path": "/parse/classes/Book?where=%7B%7D"}]}"#,
                "108 /parse/classes/Book?where=%7B%7D: a query string in a batch path is not answered on a PostgreSQL database; send the GET on its own"
            ),
            ("PUT", "/classes/Book/dune", #"{"pages": {"__op": "Nonsense"}}"#, "108 The Nonsense operator is not supported yet."),
            (
                "PUT", "/classes/Book/dune", #"{"pages": {"__type": "Pointer", "className": "Book", "objectId": "dune"}}"#,
                "111 schema mismatch for Book.pages; expected Number but got Pointer<Book>"
            ),
            ("PUT", "/classes/Book/dune", #"{"ACL": "everyone"}"#, "123 invalid ACL: expected an object like {\"*\":{\"read\":true}}"),
            ("PUT", "/classes/Book/dune", #"{"a.b": 1}"#, "105 Invalid field name: a.b."),
            ("PUT", "//classes/Book/dune/", #"{"pages": "many"}"#, "111 schema mismatch for Book.pages; expected Number but got String"),
            ("PATCH", "/classes/Book/dune", #"{"pages": 1}"#, "108 PATCH /classes/Book/dune is not answered on a PostgreSQL database"),
        ]
        for (method, path, body, expected) in cases {
            XCTAssertEqual(try outcome(target, method, path, body), expected, "\(method) \(path) \(body ?? "")")
        }
        for query in [[("where", "not json")], [("limit", "-1")], [("limit", "many")], [("skip", "5")]] {
            XCTAssertThrowsError(try blocking { try await target.api.send("GET", "/classes/Book", query: query, body: nil) }, "\(query)") { error in
                guard case .refused(let answer)? = error as? ParseAPIError else { return XCTFail("\(query): \(error)") }
                XCTAssertTrue(answer.code == .invalidJSON || answer.code == .invalidQuery, "\(query): \(answer)")
            }
        }
        XCTAssertEqual(try connection.execute(#"SELECT "objectId", pages::text, "_rperm"::text FROM "Book""#), [["dune", "412", nil]])
    }

    /// A user deleted through the target goes with its `_Session` rows, as `serve` ends them;
    /// another user's sessions stay.
    func testADeletedUserTakesItsSessions() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let target = try PostgresDatabaseTarget(url: url)
        XCTAssertEqual(try outcome(target, "POST", "/schemas/_User", #"{"fields": {}}"#), "ok")
        XCTAssertEqual(try outcome(target, "POST", "/schemas/_Session", #"{"fields": {}}"#), "ok")
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try connection.execute(
            #"INSERT INTO "_User" ("objectId", "createdAt", "updatedAt", "username") VALUES ('ann', now(), now(), 'ann'), ('bob', now(), now(), 'bob')"#)
        try connection.execute(
            #"""
            INSERT INTO "_Session" ("objectId", "createdAt", "updatedAt", "user", "sessionToken") VALUES
              ('s1', now(), now(), 'ann', 'r:1'), ('s2', now(), now(), 'ann', 'r:2'), ('s3', now(), now(), 'bob', 'r:3')
            """#)
        XCTAssertEqual(try outcome(target, "DELETE", "/classes/_User/ann", nil), "ok")
        XCTAssertEqual(try connection.execute(#"SELECT "objectId" FROM "_User""#), [["bob"]])
        XCTAssertEqual(try connection.execute(#"SELECT "objectId", "user" FROM "_Session""#), [["s3", "bob"]])
    }
}
