import Foundation
import ParseModel
import PorterMigrations
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
            guard case .refused(_, let code, let message) = error else { return "failed: \(error.porterError("").message)" }
            return "\(code.map { String($0.rawValue) } ?? "-") \(message)"
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
        XCTAssertEqual(codes, ["ok", "103", "103", "103", "103", "103", "255", "136", "105", "111", "135", "111", "255", "102", "102", "107", "111",
                               "ok", "102", "ok", "ok"])
        XCTAssertNil(try blocking { try await postgres.api.schema(of: "Book") })
    }

    /// Inside a unit of work each request is a savepoint: a refused one undoes itself and the
    /// transaction goes on; rollback undoes the rest.
    func testARefusedRequestUndoesOnlyItselfAndRollbackUndoesTheUnit() throws {
        let target = try PostgresDatabaseTarget(url: try PostgresCluster.shared().createDatabase())
        XCTAssertEqual(try outcome(target, "POST", "/schemas/Book", #"{"fields": {"title": {"type": "String"}}}"#), "ok")
        try target.begin()
        XCTAssertEqual(try outcome(target, "PUT", "/schemas/Book", #"{"fields": {"pages": {"type": "Number"}}}"#), "ok")
        XCTAssertEqual(try outcome(target, "PUT", "/schemas/Book", #"{"indexes": {"m_1": {"missing": 1}}}"#), "102 Field missing does not exist, cannot add index.")
        XCTAssertEqual(try outcome(target, "PUT", "/schemas/Book", #"{"fields": {"year": {"type": "Number"}}}"#), "ok")
        let names = try blocking { try await target.api.schema(of: "Book")?.fields.map(\.name) } ?? []
        XCTAssertTrue(names.contains("pages") && names.contains("year"), "\(names)")
        target.rollback()
        XCTAssertEqual(try blocking { try await target.api.schema(of: "Book")?.fields.contains { $0.name == "pages" || $0.name == "year" } }, false)
        XCTAssertEqual(try outcome(target, "GET", "/classes/Book", nil).hasPrefix("failed: "), true)
        XCTAssertTrue(try outcome(target, "GET", "/classes/Book", nil).contains("not supported on a PostgreSQL database yet"))
    }
}
