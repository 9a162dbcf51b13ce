import XCTest

@testable import ParseModel

/// Class schemas in `/schemas` JSON, Parse's naming rules, and object identity.
final class SchemaAndNamesTests: XCTestCase {
    private func json(_ text: String) -> JSONValue { try! JSONParser.parse(text) }

    private let city = ClassSchema(
        className: "City",
        fields: [
            SchemaField(name: "name", type: .string, required: true, defaultValue: .string("n/a")),
            SchemaField(name: "country", type: .pointer(targetClass: "Country")),
            SchemaField(name: "residents", type: .relation(targetClass: "_User")),
            SchemaField(name: "population", type: .number, defaultValue: .integer(0)),
            SchemaField(name: "founded", type: .date, defaultValue: .date(ParseDate(iso: "1200-01-01")!)),
            SchemaField(name: "center", type: .geoPoint),
            SchemaField(name: "tags", type: .array),
        ])

    // MARK: ClassSchema

    func testSchemaJSONHasDefaultFieldsAndDefaultCLP() {
        let schema = city.schemaJSON
        XCTAssertEqual(schema["className"], .string("City"))
        XCTAssertEqual(schema["fields"]?["objectId"], json(#"{"type":"String"}"#))
        XCTAssertEqual(schema["fields"]?["createdAt"], json(#"{"type":"Date"}"#))
        XCTAssertEqual(schema["fields"]?["updatedAt"], json(#"{"type":"Date"}"#))
        XCTAssertEqual(schema["fields"]?["ACL"], json(#"{"type":"ACL"}"#))
        XCTAssertEqual(schema["fields"]?["name"], json(#"{"type":"String","required":true,"defaultValue":"n/a"}"#))
        XCTAssertEqual(schema["fields"]?["country"], json(#"{"type":"Pointer","targetClass":"Country"}"#))
        XCTAssertEqual(schema["fields"]?["residents"], json(#"{"type":"Relation","targetClass":"_User"}"#))
        XCTAssertEqual(schema["fields"]?["population"], json(#"{"type":"Number","defaultValue":0}"#))
        XCTAssertEqual(schema["fields"]?["founded"], json(#"{"type":"Date","defaultValue":{"__type":"Date","iso":"1200-01-01T00:00:00.000Z"}}"#))
        XCTAssertEqual(schema["fields"]?["center"], json(#"{"type":"GeoPoint"}"#))
        XCTAssertEqual(schema["fields"]?["tags"], json(#"{"type":"Array"}"#))
        // Docs/ParseServer.md#schemas: what a class with no CLP set returns.
        let expectedCLP = json(
            #"""
            {"find":{"*":true},"count":{"*":true},"get":{"*":true},"create":{"*":true},
             "update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}}
            """#)
        XCTAssertEqual(schema["classLevelPermissions"]?.serialized(sortedKeys: true), expectedCLP.serialized(sortedKeys: true))
        XCTAssertEqual(ClassSchema.defaultCLP.serialized(sortedKeys: true), expectedCLP.serialized(sortedKeys: true))
        XCTAssertNil(schema["indexes"], "indexes is omitted when there are none")
    }

    func testEmptyIndexesAreOmittedAndOthersKept() {
        var schema = city
        schema.indexes = .object(JSONObject())
        XCTAssertNil(schema.schemaJSON["indexes"])
        schema.indexes = json(#"{"name_1":{"name":1}}"#)
        XCTAssertEqual(schema.schemaJSON["indexes"], json(#"{"name_1":{"name":1}}"#))
        schema.classLevelPermissions = json(#"{"find":{"role:Admin":true}}"#)
        XCTAssertEqual(schema.schemaJSON["classLevelPermissions"], json(#"{"find":{"role:Admin":true}}"#))
    }

    func testSchemaJSONRoundTrip() throws {
        let decoded = try ClassSchema(schemaJSON: city.schemaJSON)
        XCTAssertEqual(decoded.className, "City")
        XCTAssertEqual(decoded.fields, city.fields)
        XCTAssertEqual(decoded.field(named: "country")?.type.targetClass, "Country")
        XCTAssertEqual(decoded.field(named: "residents")?.type, .relation(targetClass: "_User"))
        XCTAssertEqual(decoded.field(named: "name")?.required, true)
        XCTAssertEqual(decoded.field(named: "name")?.defaultValue, .string("n/a"))
        XCTAssertEqual(decoded.field(named: "founded")?.defaultValue, .date(ParseDate(iso: "1200-01-01")!))
        XCTAssertNil(decoded.field(named: "objectId"), "default fields are dropped")
        XCTAssertEqual(decoded.classLevelPermissions, ClassSchema.defaultCLP)
        // Encoding again gives the same JSON.
        XCTAssertEqual(decoded.schemaJSON.serialized(sortedKeys: true), city.schemaJSON.serialized(sortedKeys: true))
    }

    func testDecodesTheDocumentedSchema() throws {
        let text = #"""
            {"className":"City",
             "fields":{"objectId":{"type":"String"},"createdAt":{"type":"Date"},"updatedAt":{"type":"Date"},"ACL":{"type":"ACL"},
                       "name":{"type":"String","required":true,"defaultValue":"n/a"},
                       "country":{"type":"Pointer","targetClass":"Country"},
                       "residents":{"type":"Relation","targetClass":"_User"}},
             "classLevelPermissions":{"find":{"*":true},"count":{"*":true},"get":{"*":true},"create":{"*":true},
                                      "update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}},
             "indexes":{"_id_":{"_id":1},"name_1":{"name":1}}}
            """#
        let schema = try ClassSchema(schemaJSON: json(text))
        XCTAssertEqual(
            schema.fields,
            [
                SchemaField(name: "name", type: .string, required: true, defaultValue: .string("n/a")),
                SchemaField(name: "country", type: .pointer(targetClass: "Country")),
                SchemaField(name: "residents", type: .relation(targetClass: "_User")),
            ])
        XCTAssertEqual(schema.indexes, json(#"{"_id_":{"_id":1},"name_1":{"name":1}}"#))
        XCTAssertEqual(schema.schemaJSON.serialized(sortedKeys: true), json(text).serialized(sortedKeys: true))
    }

    func testSchemaErrors() {
        func message(_ text: String) -> String? {
            do {
                _ = try ClassSchema(schemaJSON: json(text))
                return nil
            } catch {
                return error.message
            }
        }
        XCTAssertEqual(message(#"{"className":"X","fields":{"a":{"type":"Money"}}}"#), "invalid field type: Money")
        XCTAssertEqual(message(#"{"className":"X","fields":{"a":{"type":"Pointer"}}}"#), "invalid field type: Pointer")
        XCTAssertEqual(message(#"{"className":"X","fields":{"a":{"type":"Relation"}}}"#), "invalid field type: Relation")
        XCTAssertEqual(message(#"{"className":"X","fields":{"a":{"required":true}}}"#), "X.a has no type")
        XCTAssertEqual(message(#"{"fields":{}}"#), "schema has no className")
        XCTAssertEqual(message(#"{"className":"X","fields":{"d":{"type":"Date","defaultValue":{"__type":"Date","iso":"no"}}}}"#), #"not a date: "no""#)
    }

    func testFieldTypeNamesAndSpellings() {
        XCTAssertEqual(FieldType(spelling: "Pointer<Genre>"), .pointer(targetClass: "Genre"))
        XCTAssertEqual(FieldType(spelling: "Relation<_User>"), .relation(targetClass: "_User"))
        XCTAssertEqual(FieldType(spelling: "GeoPoint"), .geoPoint)
        XCTAssertNil(FieldType(spelling: "Pointer"))
        XCTAssertNil(FieldType(spelling: "Pointer<>"))
        XCTAssertNil(FieldType(spelling: "String<Genre>"))
        XCTAssertNil(FieldType(spelling: "string"))
        XCTAssertEqual(FieldType.pointer(targetClass: "Genre").description, "Pointer<Genre>")
        XCTAssertEqual(FieldType.acl.name, "ACL")
        for type in [FieldType.string, .number, .boolean, .date, .object, .array, .geoPoint, .file, .bytes, .polygon, .acl] {
            XCTAssertEqual(FieldType(name: type.name, targetClass: nil), type)
        }
    }

    // MARK: ParseNames

    func testClassNames() {
        XCTAssertNil(ParseNames.classNameProblem("_User"))
        XCTAssertNil(ParseNames.classNameProblem("_Role"))
        XCTAssertNil(ParseNames.classNameProblem("Book"))
        XCTAssertNil(ParseNames.classNameProblem("Book_2"))
        XCTAssertNil(ParseNames.classNameProblem("b"))
        for bad in ["1Book", "a-b", "_Custom", "", "Bo ok", "Bücher", "_"] {
            XCTAssertEqual(
                ParseNames.classNameProblem(bad),
                "invalid class name: class names can only have alphanumeric characters and _, and must start with a letter", bad)
        }
    }

    func testFieldNames() {
        XCTAssertNil(ParseNames.fieldNameProblem("title"))
        XCTAssertNil(ParseNames.fieldNameProblem("publishing_year2"))
        for reserved in ["objectId", "createdAt", "updatedAt", "ACL"] {
            XCTAssertEqual(ParseNames.fieldNameProblem(reserved), "reserved field name: every class has \(reserved)")
        }
        XCTAssertEqual(ParseNames.fieldNameProblem("className"), "reserved field name: Parse rejects className")
        XCTAssertEqual(ParseNames.fieldNameProblem("length"), "reserved field name: Parse rejects length")
        for bad in ["a-b", "1st", "_private", "", "a.b"] {
            XCTAssertEqual(
                ParseNames.fieldNameProblem(bad),
                "invalid field name: field names can only have alphanumeric characters and _, and must start with a letter", bad)
        }
    }

    // MARK: KeyHash and NaturalKey

    func testObjectIdIsTenAlphanumericCharacters() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        for key in ["", "Fantasy", "a much longer natural key with spaces and ünïcödé", "Tolkien\u{1F}1892"] {
            let id = KeyHash(className: "Genre", key: key).objectId
            XCTAssertEqual(id.count, 10, key)
            XCTAssertTrue(id.allSatisfy(allowed.contains), "\(id) for \(key)")
        }
    }

    func testObjectIdIsDeterministic() {
        XCTAssertEqual(KeyHash(className: "Genre", key: "Fantasy"), KeyHash(className: "Genre", key: "Fantasy"))
        XCTAssertEqual(KeyHash(className: "Genre", key: "Fantasy").objectId, KeyHash(className: "Genre", key: "Fantasy").objectId)
        // Pinned: ids must stay the same across versions, or re-imports would duplicate objects.
        XCTAssertEqual(KeyHash(className: "Genre", key: "Fantasy").objectId, Self.pinnedFantasyId)
    }

    static let pinnedFantasyId = "fzzvYmt2Ta"

    func testObjectIdDiffersBetweenClassesAndKeys() {
        let ids = [
            KeyHash(className: "Genre", key: "Fantasy"), KeyHash(className: "Author", key: "Fantasy"),
            KeyHash(className: "Genre", key: "Horror"), KeyHash(className: "Genre", key: "fantasy"),
            KeyHash(className: "GenreF", key: "antasy"), KeyHash(className: "Genr", key: "eFantasy"),
        ].map(\.objectId)
        XCTAssertEqual(Set(ids).count, ids.count, "\(ids)")
    }

    func testNoCollisionOver100000Keys() {
        var ids = Set<String>()
        var hashes = Set<KeyHash>()
        for i in 0..<100_000 {
            let hash = KeyHash(className: "Book", key: "book-\(i)")
            hashes.insert(hash)
            ids.insert(hash.objectId)
        }
        XCTAssertEqual(hashes.count, 100_000)
        XCTAssertEqual(ids.count, 100_000)
    }

    func testNaturalKeyCanonicalText() {
        XCTAssertEqual(NaturalKey.text(of: [.string("Fantasy")]), "Fantasy")
        XCTAssertEqual(NaturalKey.text(of: [.integer(42)]), "42")
        XCTAssertEqual(NaturalKey.text(of: [.integer(-7)]), "-7")
        XCTAssertEqual(NaturalKey.text(of: [.integer(9_007_199_254_740_993)]), "9007199254740993")
        XCTAssertEqual(NaturalKey.text(of: [.double(3.5)]), "3.5")
        XCTAssertEqual(NaturalKey.text(of: [.double(2.0)]), "2", "an integral double keys like the integer")
        XCTAssertEqual(NaturalKey.text(of: [.double(-0.25)]), "-0.25")
        XCTAssertEqual(NaturalKey.text(of: [.boolean(true)]), "true")
        XCTAssertEqual(NaturalKey.text(of: [.date(ParseDate(iso: "2024-01-31T10:30:00+01:00")!)]), "2024-01-31T09:30:00.000Z")
        XCTAssertEqual(NaturalKey.text(of: [.pointer(PointerRef(className: "Genre", objectId: "aB3dE5gH7j"))]), "aB3dE5gH7j")
        XCTAssertEqual(NaturalKey.text(of: [.object(["b": .integer(1), "a": .string("x")])]), #"{"a":"x","b":1}"#)
        XCTAssertEqual(NaturalKey.text(of: [.array([.integer(1), .string("two")])]), #"[1,"two"]"#)
        XCTAssertEqual(NaturalKey.text(of: [.string("Tolkien"), .integer(1892)]), "Tolkien\u{1F}1892")
        XCTAssertEqual(NaturalKey.text(of: [.string("a"), .double(1.5), .boolean(false)]), "a\u{1F}1.5\u{1F}false")
        XCTAssertEqual(NaturalKey.separator, "\u{1F}")
        XCTAssertNil(NaturalKey.text(of: [.string("Tolkien"), .null]), "a key with a null part is no key")
        XCTAssertEqual(NaturalKey.text(of: [.integer(2)]), NaturalKey.text(of: [.double(2)]))
    }
}
