import ParseMirrorServer
import ParseModel
import PorterSQLite
import XCTest

/// A mirror filled through the server has the importer's layout and column encoding
/// (``MirrorLayout`` and ``SQLiteStatement/bind(_:at:)``), so the two compare row by row.
final class MirrorLayoutTests: XCTestCase {
    func testServerRowsMatchTheImportersEncoding() throws {
        let server = try TestServer()
        let values: [(String, String)] = [
            ("title", #""Emma""#), ("year", "1815"), ("price", "12.5"), ("inPrint", "true"),
            ("released", #"{"__type":"Date","iso":"1815-12-23T00:00:00.000Z"}"#),
            ("genre", #"{"__type":"Pointer","className":"Genre","objectId":"g1"}"#),
            ("tags", #"["novel",{"k":1}]"#), ("info", #"{"b":2,"a":"x"}"#),
            ("place", #"{"__type":"GeoPoint","latitude":51.5,"longitude":-0.12}"#),
            ("cover", #"{"__type":"File","name":"emma.jpg","url":"http://files/emma.jpg"}"#),
            ("raw", #"{"__type":"Bytes","base64":"AQID"}"#),
            ("area", #"{"__type":"Polygon","coordinates":[[0,0],[0,1],[1,1]]}"#),
        ]
        let body = "{" + values.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + #","ACL":{"*":{"read":true}}}"#
        let id = server.create("Book", body)

        let expectedPath = server.directory.appendingPathComponent("expected.sqlite").path
        let expected = try SQLiteDatabase(path: expectedPath, create: true)
        defer { expected.close() }
        for sql in MirrorLayout.bookkeepingTablesSQL { try expected.execute(sql) }
        let schema = try XCTUnwrap(ClassSchema(schemaJSON: server.send("GET", "/schemas/Book").json))
        try expected.execute(MirrorLayout.createClassTableSQL("Book"))
        for field in schema.fields { try expected.execute(MirrorLayout.addFieldSQL(className: "Book", field)) }
        let stored = try server.rows("SELECT createdAt, updatedAt FROM Book")[0]
        let columns = ["objectId", "createdAt", "updatedAt", "ACL"] + values.map(\.0)
        let insert = try expected.prepare(
            "INSERT INTO Book (\(columns.map(quoted).joined(separator: ", "))) VALUES (\(columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))")
        insert.bind(text: id, at: 1)
        insert.bind(text: stored[0]!, at: 2)
        insert.bind(text: stored[1]!, at: 3)
        insert.bind(.acl(ParseACL(["*": .init(read: true, write: false)])), at: 4)
        for (i, (name, json)) in values.enumerated() {
            insert.bind(try ParseValue(wire: .parse(json), as: schema.field(named: name)?.type), at: i + 5)
        }
        try insert.run()

        let dump = "SELECT " + columns.map { "typeof(\(quoted($0))) || ':' || quote(\(quoted($0)))" }.joined(separator: ", ") + " FROM Book"
        XCTAssertEqual(try server.rows(dump), try expected.rows(dump))
        let ddl = "SELECT sql FROM sqlite_master WHERE name = 'Book'"
        XCTAssertEqual(try server.rows(ddl), try expected.rows(ddl))
    }

    func testAnEmptyMirrorIsCreatedWithTheBookkeepingTables() throws {
        let server = try TestServer()
        let tables = try server.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0] }
        XCTAssertEqual(tables, ["_PorterMigrations", "_SCHEMA"])
        XCTAssertEqual(try server.rows("PRAGMA journal_mode"), [["wal"]])
    }

    func testSchemaChangesFromAnotherConnectionAreSeen() throws {
        let server = try TestServer()
        _ = server.create("Book", #"{"title":"Emma"}"#)
        let other = try SQLiteDatabase(path: server.path, create: false)
        defer { other.close() }
        try other.execute(MirrorLayout.addFieldSQL(className: "Book", SchemaField(name: "pages", type: .number)))
        let schema = ClassSchema(className: "Book", fields: [SchemaField(name: "title", type: .string), SchemaField(name: "pages", type: .number)])
        let save = try other.prepare(MirrorLayout.saveSchemaSQL)
        save.bind(text: "Book", at: 1)
        save.bind(text: schema.schemaJSON.serialized(), at: 2)
        try save.run()
        XCTAssertEqual(server.send("GET", "/schemas/Book").json, schema.schemaJSON)
        XCTAssertParseError(server.send("POST", "/classes/Book", #"{"pages":"many"}"#), status: 400, code: .incorrectType)
    }
}
