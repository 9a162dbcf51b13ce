import Foundation
import MirrorQuery
import ParseModel
import PorterCore
import PorterPipeline
import PorterSQLite
import PorterTestSupport
import XCTest

/// A small library mirror written by PorterSQLite's `SQLiteMirror`, and helpers to query it.
///
/// Books b1…b6 were created in that order; b4 is readable by user u1 only, b5 by role Admin,
/// b6 by the master key only; genre g2 is readable by u1 only.
class LibraryMirrorTestCase: XCTestCase {
    var directory: URL!
    var database: SQLiteDatabase!
    var reader: MirrorReader!
    var schemas: [String: ClassSchema] = [:]

    static let genre = ClassSchema(className: "Genre", fields: [SchemaField(name: "name", type: .string)])
    static let author = ClassSchema(
        className: "Author",
        fields: [
            SchemaField(name: "name", type: .string), SchemaField(name: "born", type: .date),
        ])
    static let book = ClassSchema(
        className: "Book",
        fields: [
            SchemaField(name: "title", type: .string), SchemaField(name: "year", type: .number),
            SchemaField(name: "price", type: .number), SchemaField(name: "inPrint", type: .boolean),
            SchemaField(name: "released", type: .date), SchemaField(name: "genre", type: .pointer(targetClass: "Genre")),
            SchemaField(name: "tags", type: .array), SchemaField(name: "info", type: .object),
            SchemaField(name: "authors", type: .relation(targetClass: "Author")),
        ])
    static let review = ClassSchema(
        className: "Review",
        fields: [
            SchemaField(name: "text", type: .string), SchemaField(name: "book", type: .pointer(targetClass: "Book")),
        ])

    override func setUpWithError() throws {
        directory = try temporaryFolder("mirror-query")
        let path = directory.appendingPathComponent("library.sqlite").path
        let mirror = SQLiteMirror(path: path)
        try mirror.begin(schemas: [Self.genre, Self.author, Self.book, Self.review], naturalKeys: [:])
        _ = try mirror.write(
            [
                object("g1", day: 1, ["name": .string("Fantasy")]),
                object("g2", day: 1, ["name": .string("Science Fiction")], acl: ["u1": true]),
                object("g3", day: 1, ["name": .string("Horror")]),
            ], className: "Genre", mode: .insert)
        _ = try mirror.write(
            [
                object("a1", day: 1, ["name": .string("Tolkien"), "born": date("1892-01-03")]),
                object("a2", day: 1, ["name": .string("Le Guin"), "born": date("1929-10-21")]),
                object("a3", day: 1, ["name": .string("Herbert"), "born": date("1920-10-08")]),
            ], className: "Author", mode: .insert)
        _ = try mirror.write(
            [
                book(
                    "b1", day: 1, "The Hobbit", 1937, .double(12.5), true, "1937-09-21", "g1", ["classic", "fantasy"],
                    info: .object(["pages": .integer(310), "publisher": .object(["name": .string("Allen & Unwin")])])),
                book(
                    "b2", day: 2, "A Wizard of Earthsea", 1968, .double(9.99), true, "1968-11-01", "g1", ["fantasy", "magic"],
                    info: .object(["pages": .integer(183)])),
                book("b3", day: 3, "Dune", 1965, .integer(15), false, "1965-08-01", "g2", ["scifi", "classic"], acl: ["*": true]),
                book("b4", day: 4, "The Dispossessed", 1974, .null, true, nil, "g2", ["scifi"], acl: ["u1": true]),
                book("b5", day: 5, "The Silmarillion", 1977, .integer(20), false, "1977-09-15", "g1", [], acl: ["role:Admin": true]),
                book("b6", day: 6, "Secret Draft", 2001, .integer(1), false, nil, "g3", ["draft"], acl: [:]),
            ], className: "Book", mode: .insert)
        _ = try mirror.write(
            [
                object("r1", day: 7, ["text": .string("Lovely\nand warm"), "book": pointer("Book", "b1")]),
                object("r2", day: 8, ["text": .string("Spicy"), "book": pointer("Book", "b3")]),
                object("r3", day: 9, ["text": .string("Restricted"), "book": pointer("Book", "b4")]),
                object("r4", day: 9, ["text": .string("Lost"), "book": pointer("Book", "gone")]),
            ], className: "Review", mode: .insert)
        _ = try mirror.link(
            owner: "Book", field: "authors", targetClass: "Author",
            [
                RelationLinks(ownerId: "b1", relatedIds: ["a1"], line: 1), RelationLinks(ownerId: "b2", relatedIds: ["a2"], line: 2),
                RelationLinks(ownerId: "b3", relatedIds: ["a3"], line: 3), RelationLinks(ownerId: "b5", relatedIds: ["a1"], line: 5),
            ], replace: false)
        _ = try mirror.flush()
        try mirror.commit()

        database = try SQLiteDatabase(path: path, create: false)
        reader = try MirrorReader(database: database)
        for row in try database.rows("SELECT schema FROM _SCHEMA") {
            let schema = try ClassSchema(schemaJSON: try JSONParser.parse(row[0] ?? ""))
            schemas[schema.className] = schema
        }
    }

    override func tearDownWithError() throws {
        reader = nil
        database = nil
    }

    // MARK: Building objects

    func date(_ iso: String) -> ParseValue { .date(ParseDate(iso: iso)!) }
    func pointer(_ className: String, _ objectId: String) -> ParseValue { .pointer(PointerRef(className: className, objectId: objectId)) }

    func object(_ id: String, day: Int, _ fields: KeyValuePairs<String, ParseValue>, acl: [String: Bool]? = nil) -> ResolvedObject {
        let created = ParseDate(year: 2024, month: 1, day: day)!
        return ResolvedObject(
            objectId: id, line: day, fields: fields.map { FieldValue($0.key, $0.value) },
            acl: acl.map { ParseACL($0.mapValues { ParseACL.Permission(read: $0, write: false) }) },
            createdAt: created, updatedAt: created)
    }

    func book(
        _ id: String, day: Int, _ title: String, _ year: Int64, _ price: ParseValue, _ inPrint: Bool, _ released: String?,
        _ genre: String, _ tags: [String], info: ParseValue = .null, acl: [String: Bool]? = nil
    ) -> ResolvedObject {
        object(
            id, day: day,
            [
                "title": .string(title), "year": .integer(year), "price": price, "inPrint": .boolean(inPrint),
                "released": released.map(date) ?? .null, "genre": pointer("Genre", genre), "tags": .array(tags.map(ParseValue.string)),
                "info": info,
            ], acl: acl)
    }

    // MARK: Querying

    /// Parameters as a JSON object text, e.g. `#"{"where":{"year":1937},"order":"-year"}"#`.
    func query(_ className: String, _ parameters: String) throws -> ParseQuery {
        guard case .object(let object) = try JSONParser.parse(parameters) else { throw ParseValueError("not an object") }
        return try ParseQuery(className: className, parameters: object)
    }

    func find(_ className: String, _ parameters: String = "{}", access: ReadAccess = .master) throws -> (results: [JSONObject], count: Int?) {
        try reader.find(try query(className, parameters), schemas: schemas, access: access)
    }

    /// The objectIds a query returns, in order.
    func ids(_ className: String, _ parameters: String = "{}", access: ReadAccess = .master, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            return try find(className, parameters, access: access).results.map { $0["objectId"]?.javaScriptText ?? "?" }
        } catch {
            XCTFail("\(parameters): \(error)", file: file, line: line)
            return []
        }
    }

    /// The objectIds of Books matching `where` (JSON text), master key, insertion order.
    func books(where constraints: String, access: ReadAccess = .master, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        ids("Book", #"{"where":\#(constraints)}"#, access: access, file: file, line: line)
    }

    /// `body` throws a bad-request `PorterError` with Parse's error `code` and `message` under it.
    func assertError(_ code: ParseErrorCode, _ message: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .invalidRequest, "\(error)", file: file, line: line)
            XCTAssertEqual((error as? PorterError)?.parseError, ParseError(code, message), file: file, line: line)
        }
    }

    func json(_ text: String) -> JSONValue { try! JSONParser.parse(text) }
}

extension JSONValue {
    var javaScriptText: String? { if case .string(let s) = self { s } else { nil } }
}
