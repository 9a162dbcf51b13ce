import PorterCore
import XCTest

@testable import ParseModel
@testable import PorterMongoFiles

/// The MongoDB layout, fact by fact against Parse Server's Mongo storage adapter
/// (parse-community/parse-server `src/Adapters/Storage/Mongo/MongoTransform.js`,
/// `MongoSchemaCollection.js`, `MongoStorageAdapter.js`, `src/Controllers/DatabaseController.js`):
/// what an export writes, and that reading it back gives the REST object again.
final class MongoLayoutTests: XCTestCase {
    static let fields = [
        SchemaField(name: "title", type: .string), SchemaField(name: "pages", type: .number),
        SchemaField(name: "published", type: .date), SchemaField(name: "genre", type: .pointer(targetClass: "Genre")),
        SchemaField(name: "cover", type: .file), SchemaField(name: "shop", type: .geoPoint), SchemaField(name: "logo", type: .bytes),
        SchemaField(name: "area", type: .polygon), SchemaField(name: "meta", type: .object), SchemaField(name: "tags", type: .array),
        SchemaField(name: "unset", type: .string),
    ]

    func book() throws -> StoredObject {
        let created = ParseDate(iso: "2024-01-31T09:30:00.000Z")!, updated = ParseDate(iso: "2024-02-01T10:00:00.500Z")!
        let area = try ParsePolygon(coordinates: [
            try GeoPoint(latitude: 1, longitude: 2), try GeoPoint(latitude: 3, longitude: 4), try GeoPoint(latitude: 5, longitude: 2),
        ])
        return StoredObject(
            objectId: "b1", createdAt: created, updatedAt: updated,
            acl: ParseACL(["*": .init(read: true, write: false), "u1": .init(read: true, write: true), "role:Staff": .init(read: false, write: true)]),
            values: [
                .string("Dune"), .integer(412), .date(ParseDate(iso: "1965-08-01T00:00:00.000Z")!), .pointer(PointerRef(className: "Genre", objectId: "g1")),
                .file(ParseFile(name: "abc_cover.png", url: "http://files/abc_cover.png")), .geoPoint(try GeoPoint(latitude: 45.5, longitude: 9.25)),
                .bytes(base64: "AAEC"), .polygon(area),
                .object(["when": .date(created), "raw": .bytes(base64: "AAEC"), "by": .pointer(PointerRef(className: "_User", objectId: "u1"))]),
                .array([.date(created), .string("x")]), .null,
            ])
    }

    func document() throws -> JSONValue {
        try MongoLayout.document(try book(), of: "Book", fields: Self.fields, passwordHash: nil)
    }

    /// `parseObjectKeyValueToMongoObjectKeyValue`: objectId is stored as `_id`;
    /// `parseObjectToMongoObjectForCreate`: createdAt/updatedAt as the dates `_created_at`/`_updated_at`.
    func testIdAndTimestamps() throws {
        let doc = try document()
        XCTAssertEqual(doc["_id"], .string("b1"))
        XCTAssertEqual(doc["_created_at"], .object(JSONObject(["$date": .string("2024-01-31T09:30:00.000Z")])))
        XCTAssertEqual(doc["_updated_at"], .object(JSONObject(["$date": .string("2024-02-01T10:00:00.500Z")])))
        XCTAssertNil(doc["objectId"])
        XCTAssertNil(doc["createdAt"])
    }

    /// `DatabaseController.transformObjectACL`: readers in `_rperm`, writers in `_wperm`;
    /// `MongoTransform.addLegacyACL`: `_acl` maps each to `{w: true}` and/or `{r: true}`.
    func testACL() throws {
        let doc = try document()
        XCTAssertEqual(doc["_rperm"], .array([.string("*"), .string("u1")]))
        XCTAssertEqual(doc["_wperm"], .array([.string("role:Staff"), .string("u1")]))
        XCTAssertEqual(doc["_acl"]?["u1"], .object(JSONObject(["w": .bool(true), "r": .bool(true)])))
        XCTAssertEqual(doc["_acl"]?["*"], .object(JSONObject(["r": .bool(true)])))
        XCTAssertEqual(doc["_acl"]?["role:Staff"], .object(JSONObject(["w": .bool(true)])))
        XCTAssertNil(doc["ACL"])
        // No ACL: no _rperm, _wperm nor _acl (transformObjectACL returns the object unchanged).
        var open = try book()
        open.acl = nil
        let openDoc = try MongoLayout.document(open, of: "Book", fields: Self.fields, passwordHash: nil)
        XCTAssertNil(openDoc["_rperm"])
        XCTAssertNil(openDoc["_acl"])
    }

    /// `parseObjectKeyValueToMongoObjectKeyValue` renames a Pointer field `_p_<field>` and
    /// `transformTopLevelAtom` stores `Class$objectId`; `transformInteriorAtom` keeps a pointer
    /// inside an Object as its REST JSON.
    func testPointers() throws {
        let doc = try document()
        XCTAssertEqual(doc["_p_genre"], .string("Genre$g1"))
        XCTAssertNil(doc["genre"])
        XCTAssertEqual(doc["meta"]?["by"], .object(JSONObject(["__type": .string("Pointer"), "className": .string("_User"), "objectId": .string("u1")])))
    }

    /// `transformTopLevelAtom` with `GeoPointCoder.JSONToDatabase` ([longitude, latitude]),
    /// `FileCoder.JSONToDatabase` (the name), `BytesCoder.JSONToDatabase` (BSON binary),
    /// `DateCoder.JSONToDatabase` (a BSON date), `PolygonCoder.JSONToDatabase` (a closed GeoJSON
    /// ring of [lng, lat]); an unset field is left out.
    func testTypedValues() throws {
        let doc = try document()
        XCTAssertEqual(doc["shop"], .array([.double(9.25), .double(45.5)]))
        XCTAssertEqual(doc["cover"], .string("abc_cover.png"))
        XCTAssertEqual(doc["logo"], .object(JSONObject(["$binary": .object(JSONObject(["base64": .string("AAEC"), "subType": .string("00")]))])))
        XCTAssertEqual(
            doc["published"]?["$date"],
            .object(JSONObject(["$numberLong": .string(String(ParseDate(iso: "1965-08-01T00:00:00.000Z")!.millisecondsSince1970))])),
            "relaxed Extended JSON writes a date before 1970 as $numberLong")
        XCTAssertEqual(doc["area"]?["type"], .string("Polygon"))
        XCTAssertEqual(
            doc["area"]?["coordinates"],
            .array([
                .array([
                    .array([.double(2), .double(1)]), .array([.double(4), .double(3)]),
                    .array([.double(2), .double(5)]), .array([.double(2), .double(1)]),
                ])
            ]))
        XCTAssertNil(doc["unset"])
    }

    /// `transformInteriorValue`: a Date or Bytes inside an Object or Array becomes its BSON value;
    /// a nested key with `$` or `.` is refused (`INVALID_NESTED_KEY`).
    func testInteriorValues() throws {
        let doc = try document()
        XCTAssertEqual(doc["meta"]?["when"], .object(JSONObject(["$date": .string("2024-01-31T09:30:00.000Z")])))
        XCTAssertNotNil(doc["meta"]?["raw"]?["$binary"])
        XCTAssertEqual(doc["tags"], .array([.object(JSONObject(["$date": .string("2024-01-31T09:30:00.000Z")])), .string("x")]))
        var bad = try book()
        bad.values[8] = .object(["a.b": .integer(1)])
        XCTAssertThrowsError(try MongoLayout.document(bad, of: "Book", fields: Self.fields, passwordHash: nil)) { error in
            XCTAssertTrue("\(error)".contains("Book b1 meta"), "\(error)")
        }
    }

    /// `parseObjectKeyValueToMongoObjectKeyValue` keeps `_hashed_password` under its own name.
    func testPasswordHash() throws {
        let hash = "$2b$10$" + String(repeating: "a", count: 53)
        let user = StoredObject(
            objectId: "u1", createdAt: nil, updatedAt: nil, acl: nil,
            values: [.string("ada"), .object(["anonymous": .object(["id": .string("a1")]), "gone": .null])])
        let doc = try MongoLayout.document(
            user, of: "_User", fields: [SchemaField(name: "username", type: .string), SchemaField(name: "authData", type: .object)],
            passwordHash: hash)
        XCTAssertEqual(doc["_hashed_password"], .string(hash))
        XCTAssertNil(doc["password"])
        // DatabaseController.transformAuthData: one `_auth_data_<provider>` key per provider, no authData.
        XCTAssertEqual(doc["_auth_data_anonymous"], .object(JSONObject(["id": .string("a1")])))
        XCTAssertNil(doc["_auth_data_gone"])
        XCTAssertNil(doc["authData"])
    }

    /// `MongoSchemaCollection.parseFieldTypeToMongoFieldType` and `mongoFieldToParseSchemaField`
    /// are inverses: `*Target`, `relation<Target>`, and lower-case type names.
    func testFieldTypeStrings() {
        let types: [FieldType] = [
            .string, .number, .boolean, .date, .object, .array, .geoPoint, .file, .bytes, .polygon,
            .pointer(targetClass: "_User"), .relation(targetClass: "Book"),
        ]
        let strings = types.map(MongoLayout.typeString)
        XCTAssertEqual(strings, ["string", "number", "boolean", "date", "object", "array", "geopoint", "file", "bytes", "polygon", "*_User", "relation<Book>"])
        XCTAssertEqual(strings.map(MongoDumpLayout.fieldType), types)
        XCTAssertEqual(MongoDumpLayout.fieldType("map"), .object, "mongoFieldToParseSchemaField reads the old `map` as Object")
        XCTAssertNil(MongoDumpLayout.fieldType("decimal"))
    }

    /// `MongoStorageAdapter.mongoSchemaFromFieldsAndClassNameAndCLP`: `_id` is the class, the
    /// default fields are `objectId: string` and the timestamps `date`, options go to
    /// `_metadata.fields_options`, CLPs to `_metadata.class_permissions`, indexes to
    /// `_metadata.indexes`; `convertSchemaToAdapterSchema` drops ACL and `_User`'s password.
    func testSchemaDocument() throws {
        let clp = JSONValue.object(JSONObject(["find": .object(JSONObject(["*": .bool(true)]))]))
        let indexes = JSONValue.object(JSONObject(["_id_": .object(JSONObject(["_id": .integer(1)])), "title_1": .object(JSONObject(["title": .integer(1)]))]))
        let schema = ClassSchema(
            className: "Book",
            fields: [
                SchemaField(name: "ACL", type: .acl), SchemaField(name: "title", type: .string, required: true, defaultValue: .string("Untitled")),
                SchemaField(name: "genre", type: .pointer(targetClass: "Genre")), SchemaField(name: "readers", type: .relation(targetClass: "_User")),
            ], classLevelPermissions: clp, indexes: indexes)
        let doc = MongoLayout.schemaDocument(schema)
        XCTAssertEqual(doc["_id"], .string("Book"))
        XCTAssertEqual(doc["objectId"], .string("string"))
        XCTAssertEqual(doc["createdAt"], .string("date"))
        XCTAssertEqual(doc["updatedAt"], .string("date"))
        XCTAssertNil(doc["ACL"])
        XCTAssertEqual(doc["genre"], .string("*Genre"))
        XCTAssertEqual(doc["readers"], .string("relation<_User>"))
        XCTAssertEqual(doc["_metadata"]?["fields_options"]?["title"], .object(JSONObject(["required": .bool(true), "defaultValue": .string("Untitled")])))
        XCTAssertEqual(doc["_metadata"]?["class_permissions"], clp)
        XCTAssertEqual(doc["_metadata"]?["indexes"], indexes)
        let user = MongoLayout.schemaDocument(
            ClassSchema(className: "_User", fields: [SchemaField(name: "password", type: .string), SchemaField(name: "username", type: .string)]))
        XCTAssertNil(user["password"])
        XCTAssertNil(user["_metadata"], "no options, permissions nor indexes: no _metadata")

        // mongoSchemaToParseSchema: fields_options merged into the field, class_permissions over
        // emptyCLPS (an operation left out is allowed to nobody), indexes kept.
        guard case .object(let stored) = doc else { return XCTFail() }
        let entry = try MongoDumpLayout.schemaEntry(stored)
        XCTAssertEqual(entry.className, "Book")
        XCTAssertEqual(
            entry.entry["fields"]?["title"], .object(JSONObject(["type": .string("String"), "required": .bool(true), "defaultValue": .string("Untitled")])))
        XCTAssertEqual(entry.entry["fields"]?["genre"], .object(JSONObject(["type": .string("Pointer"), "targetClass": .string("Genre")])))
        XCTAssertNil(entry.entry["fields"]?["objectId"])
        XCTAssertEqual(entry.entry["classLevelPermissions"]?["find"], .object(JSONObject(["*": .bool(true)])))
        XCTAssertEqual(entry.entry["classLevelPermissions"]?["delete"], .object(JSONObject()))
        XCTAssertEqual(entry.entry["indexes"], indexes)
    }

    /// `mongoObjectToParseObject` and `untransformObjectACL` read the document back into the
    /// object's REST form: `_id`, ISO timestamps, the ACL from `_rperm`/`_wperm` (`_acl` unread),
    /// `transformPointerString`, and the coders' `databaseToJSON`.
    func testReadBack() throws {
        guard case .object(let doc) = try document() else { return XCTFail() }
        let types = Dictionary(Self.fields.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
        let rest = JSONValue.object(try MongoDocumentDecoder(className: "Book", fields: types).restObject(doc))
        var expected = try book()
        expected.values[7] = .polygon(
            try ParsePolygon(coordinates: try [(1.0, 2.0), (3, 4), (5, 2), (1, 2)].map { try GeoPoint(latitude: $0.0, longitude: $0.1) }))
        if case .file(var file) = expected.values[4] { file.url = nil; expected.values[4] = .file(file) }
        let wire = expected.wireJSON(Self.fields)
        for key in ["objectId", "createdAt", "updatedAt", "title", "pages", "published", "genre", "cover", "shop", "logo", "area", "tags"] {
            XCTAssertEqual(rest[key], wire[key], key)
        }
        XCTAssertEqual(try ParseValue(wire: rest["ACL"]!, as: .acl), .acl(try book().acl!))
        XCTAssertEqual(try ParseValue(wire: rest["meta"]!, as: .object), try book().values[8])
        XCTAssertEqual(Set(rest.objectKeys), Set(wire.objectKeys).subtracting(["unset"]))
    }

    /// Faults name the key: `transformPointerString` needs `Class$objectId` of the field's
    /// target class; a `$date` must hold a date; an unknown `_` key is refused as
    /// `mongoObjectToParseObject` refuses it ("bad key in untransform").
    func testReadFaults() {
        let decoder = MongoDocumentDecoder(className: "Book", fields: ["genre": .pointer(targetClass: "Genre"), "published": .date])
        let cases: [(String, JSONValue, String)] = [
            ("_p_genre", .string("g1"), "Genre$<objectId>"),
            ("_p_genre", .string("Author$a1"), "points at Author"),
            ("_p_shelf", .string("Shelf$s1"), "no Pointer field shelf"),
            ("published", .object(JSONObject(["$date": .string("last week")])), "not a date"),
            ("published", .string("1965-08-01"), "not a date"),
            ("_created_at", .object(JSONObject(["$date": .bool(true)])), "not a date"),
            ("_email", .string("x"), "not a key of Parse Server's layout"),
            ("_rperm", .string("*"), "must be a list"),
        ]
        for (key, value, reason) in cases {
            XCTAssertThrowsError(try decoder.restObject(JSONObject([JSONMember("_id", .string("b1")), JSONMember(key, value)])), key) { error in
                guard let fault = error as? MongoDocumentFault else { return XCTFail("\(error)") }
                XCTAssertEqual(fault.key, key)
                XCTAssertTrue(fault.reason.contains(reason), "\(key): \(fault.reason)")
            }
        }
    }

    /// A `_p_` value is split at its `$` as Parse Server 7.1.0's `transformPointerString`
    /// (`MongoTransform.js`) splits it, by code unit; a second `$` is refused, since Parse Server
    /// would read only the part before it; a class name with another letter is another class.
    func testPointerText() throws {
        let decoder = MongoDocumentDecoder(className: "Book", fields: ["genre": .pointer(targetClass: "Genre")])
        func pointer(_ text: String) throws -> JSONValue? {
            try decoder.restObject(JSONObject([JSONMember("_id", .string("b1")), JSONMember("_p_genre", .string(text))]))["genre"]
        }
        let genre = { (id: String) in JSONValue.object(JSONObject(["__type": .string("Pointer"), "className": .string("Genre"), "objectId": .string(id)])) }
        XCTAssertEqual(try pointer("Genre$g1"), genre("g1"))
        XCTAssertEqual(try pointer("Genre$\u{E9}1"), genre("\u{E9}1"))
        XCTAssertEqual(try pointer("Genre$\r\n"), genre("\r\n"))
        // Split at the `$` itself, as Parse Server's `split('$')` splits: not at a character
        // boundary, which a combining mark after it would move.
        XCTAssertEqual(try pointer("Genre$\u{301}g1"), genre("\u{301}g1"))
        for (text, reason) in [
            ("Genre$", "is stored as"), ("G\u{E9}nre$g1", "points at G\u{E9}nre"),
            ("Genre$g$1", "holds more than one $: Parse Server reads the objectId only up to the second"),
        ] {
            XCTAssertThrowsError(try pointer(text), text) { error in
                XCTAssertTrue((error as? MongoDocumentFault)?.reason.contains(reason) == true, "\(text): \(error)")
            }
        }
    }

    /// `mongoObjectToParseObject`: a null `_p_` is no pointer; canonical Extended JSON
    /// (`$numberLong` dates and numbers) reads as the relaxed form does; `_session_token` and the
    /// other server-kept `_User` keys are handed on as they are (no field reads them, so the import
    /// names and counts them); `_auth_data_<provider>` becomes `authData`.
    func testReadLeniency() throws {
        let decoder = MongoDocumentDecoder(className: "_User", fields: ["boss": .pointer(targetClass: "_User"), "age": .number])
        let rest = try decoder.restObject(
            JSONObject([
                JSONMember("_id", .string("u1")), JSONMember("_p_boss", .null),
                JSONMember("_created_at", .object(JSONObject(["$date": .object(JSONObject(["$numberLong": .string("1706693400000")]))]))),
                JSONMember("age", .object(JSONObject(["$numberLong": .string("42")]))), JSONMember("_session_token", .string("r:x")),
                JSONMember("_auth_data_facebook", .object(JSONObject(["id": .string("f1")]))),
            ]))
        XCTAssertNil(rest["boss"])
        XCTAssertEqual(rest["createdAt"], .string("2024-01-31T09:30:00.000Z"))
        XCTAssertEqual(rest["age"], .integer(42))
        XCTAssertNil(rest["sessionToken"])
        XCTAssertEqual(rest["_session_token"], .string("r:x"))
        XCTAssertEqual(rest["authData"], .object(JSONObject(["facebook": .object(JSONObject(["id": .string("f1")]))])))
    }

    /// The script loads `_SCHEMA` first and each collection by `mongoimport`, upserting links on
    /// both ids, and creates the indexes `DatabaseController.performInitialization` asks for:
    /// `ensureUniqueness` (unique, sparse) on `_User` username and email and `_Role` name, and
    /// `ensureIndex` `case_insensitive_username`/`case_insensitive_email` with
    /// `MongoCollection.caseInsensitiveCollation` (`en_US`, strength 2).
    func testScript() {
        var script = MongoImportScript(schemas: [
            ClassSchema(className: "_User", fields: []), ClassSchema(className: "_Role", fields: []),
            ClassSchema(
                className: "Book", fields: [],
                indexes: .object(
                    JSONObject([
                        "_id_": .object(JSONObject(["_id": .integer(1)])),
                        "title_1": .object(JSONObject(["title": .integer(1)])),
                    ]))),
        ])
        script.collections = [("_SCHEMA", "_SCHEMA.json"), ("_Role", "_Role.json"), ("_Join:users:_Role", "_Join:users:_Role.json")]
        script.joinCollections = ["_Join:users:_Role"]
        let text = script.text
        XCTAssertTrue(
            text.contains(#"mongoimport --uri "$MONGODB_URI" --collection "${PARSE_COLLECTION_PREFIX}"'_SCHEMA' --file '_SCHEMA.json' --mode upsert"#), text)
        XCTAssertTrue(
            text.contains(
                #"--collection "${PARSE_COLLECTION_PREFIX}"'_Join:users:_Role' --file '_Join:users:_Role.json' --mode upsert --upsertFields owningId,relatedId"#
            ), text)
        XCTAssertLessThan(text.range(of: "'_SCHEMA'")!.lowerBound, text.range(of: "'_Role'")!.lowerBound)
        XCTAssertTrue(text.contains(#"db.getCollection(prefix + "_User").createIndex({"username":1}, {"unique":true,"background":true,"sparse":true});"#), text)
        XCTAssertTrue(
            text.contains(
                #"db.getCollection(prefix + "_User").createIndex({"email":1}, {"background":true,"sparse":true,"name":"case_insensitive_email","collation":{"locale":"en_US","strength":2}});"#
            ), text)
        XCTAssertTrue(text.contains(#"db.getCollection(prefix + "_Role").createIndex({"name":1}, {"unique":true,"background":true,"sparse":true});"#), text)
        XCTAssertTrue(text.contains(#"db.getCollection(prefix + "Book").createIndex({"title":1}, {"name":"title_1","background":true});"#), text)
        XCTAssertFalse(text.contains("_id_"))
        XCTAssertFalse(text.contains("mongodb://user:"), "no credentials in the script")
    }
}

private extension JSONValue {
    var objectKeys: [String] { if case .object(let object) = self { object.keys } else { [] } }
}
