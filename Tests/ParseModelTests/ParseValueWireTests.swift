import XCTest

@testable import ParseModel

/// The Parse REST wire encodings (Docs/ParseServer.md#values-on-the-wire): decoding, typed values and round trips.
final class ParseValueWireTests: XCTestCase {
    // MARK: Helpers

    /// Parses `text` as JSON and decodes it as a Parse wire value.
    private func decode(_ text: String, as type: FieldType? = nil) throws -> (ParseValue, JSONValue) {
        let json = try JSONParser.parse(text)
        let value = try ParseValue(wire: json, as: type)
        return (value, json)
    }

    /// Decodes `text`, checks the typed value, and checks that `wireJSON` gives the parsed input back.
    private func assertRoundTrip(
        _ text: String, as type: FieldType? = nil, equals expected: ParseValue,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (value, json) = try decode(text, as: type)
        XCTAssertEqual(value, expected, "decoded value", file: file, line: line)
        XCTAssertEqual(value.wireJSON.serialized(sortedKeys: true), json.serialized(sortedKeys: true), "round trip", file: file, line: line)
        // The decoded wire JSON decodes to the same value again.
        XCTAssertEqual(try ParseValue(wire: value.wireJSON, as: type), expected, "second decode", file: file, line: line)
    }

    /// Asserts that decoding `text` fails with exactly `message`.
    private func assertWireError(
        _ text: String, as type: FieldType? = nil, _ message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let json = try JSONParser.parse(text)
        do {
            let value = try ParseValue(wire: json, as: type)
            XCTFail("expected an error, decoded \(value)", file: file, line: line)
        } catch {
            XCTAssertEqual(error.message, message, file: file, line: line)
        }
    }

    private func geo(_ latitude: Double, _ longitude: Double) -> GeoPoint {
        try! GeoPoint(latitude: latitude, longitude: longitude)
    }

    // MARK: Each Parse type

    func testDate() throws {
        let expected = ParseDate(year: 2022, month: 1, day: 1, hour: 12, minute: 23, second: 45, millisecond: 678)!
        XCTAssertEqual(expected.millisecondsSince1970, 1_641_039_825_678)
        try assertRoundTrip(#"{"__type":"Date","iso":"2022-01-01T12:23:45.678Z"}"#, equals: .date(expected))
        XCTAssertEqual(ParseValue.date(expected).fieldType, .date)
    }

    func testDateWithOffsetIsNormalisedToUTC() throws {
        let (value, _) = try decode(#"{"__type":"Date","iso":"2022-01-01T14:23:45.678+02:00"}"#)
        XCTAssertEqual(value.wireJSON.serialized(), #"{"__type":"Date","iso":"2022-01-01T12:23:45.678Z"}"#)
    }

    func testPointer() throws {
        try assertRoundTrip(
            #"{"__type":"Pointer","className":"_User","objectId":"Ed1nuqPvcm"}"#,
            equals: .pointer(PointerRef(className: "_User", objectId: "Ed1nuqPvcm")))
        XCTAssertEqual(ParseValue.pointer(PointerRef(className: "_User", objectId: "x")).fieldType, .pointer(targetClass: "_User"))
    }

    func testIncludedObjectDecodesAsItsPointer() throws {
        let (value, _) = try decode(#"{"__type":"Object","className":"Genre","objectId":"aB3dE5gH7j","name":"Fantasy"}"#)
        XCTAssertEqual(value, .pointer(PointerRef(className: "Genre", objectId: "aB3dE5gH7j")))
        XCTAssertEqual(value.wireJSON.serialized(), #"{"__type":"Pointer","className":"Genre","objectId":"aB3dE5gH7j"}"#)
    }

    func testRelationPlaceholder() throws {
        try assertRoundTrip(#"{"__type":"Relation","className":"Target"}"#, equals: .relation(RelationRef(className: "Target")))
        XCTAssertEqual(ParseValue.relation(RelationRef(className: "Target")).fieldType, .relation(targetClass: "Target"))
    }

    func testFileWithURL() throws {
        try assertRoundTrip(
            #"{"__type":"File","name":"abc123_photo.jpg","url":"https://files.example.com/abc123_photo.jpg"}"#,
            equals: .file(ParseFile(name: "abc123_photo.jpg", url: "https://files.example.com/abc123_photo.jpg")))
    }

    func testFileWithoutURL() throws {
        try assertRoundTrip(#"{"__type":"File","name":"abc123_photo.jpg"}"#, equals: .file(ParseFile(name: "abc123_photo.jpg")))
    }

    func testGeoPoint() throws {
        try assertRoundTrip(#"{"__type":"GeoPoint","latitude":40.0,"longitude":-30.0}"#, equals: .geoPoint(geo(40, -30)))
    }

    func testGeoPointAcceptsIntegersAndExtremes() throws {
        let (value, _) = try decode(#"{"__type":"GeoPoint","latitude":-90,"longitude":180}"#)
        XCTAssertEqual(value, .geoPoint(geo(-90, 180)))
    }

    func testPolygon() throws {
        let text = #"{"__type":"Polygon","coordinates":[[0.0,0.0],[0.0,1.5],[1.5,1.5],[0.0,0.0]]}"#
        try assertRoundTrip(text, equals: .polygon(try ParsePolygon(coordinates: [geo(0, 0), geo(0, 1.5), geo(1.5, 1.5), geo(0, 0)])))
        let (value, _) = try decode(text)
        guard case .polygon(let polygon) = value else { return XCTFail("not a polygon: \(value)") }
        // Pairs are [latitude, longitude].
        XCTAssertEqual(polygon.coordinates[1].latitude, 0)
        XCTAssertEqual(polygon.coordinates[1].longitude, 1.5)
    }

    func testBytes() throws {
        try assertRoundTrip(#"{"__type":"Bytes","base64":"SGVsbG8sIFBhcnNlIQ=="}"#, equals: .bytes(base64: "SGVsbG8sIFBhcnNlIQ=="))
    }

    func testACL() throws {
        let text = #"{"*":{"read":true},"Ed1nuqPvcm":{"read":true,"write":true},"role:Admin":{"read":true,"write":true}}"#
        let expected = ParseACL([
            "*": .init(read: true, write: false),
            "Ed1nuqPvcm": .init(read: true, write: true),
            "role:Admin": .init(read: true, write: true),
        ])
        try assertRoundTrip(text, as: .acl, equals: .acl(expected))
        XCTAssertEqual(ParseValue.acl(expected).fieldType, .acl)
    }

    func testACLFalseFlagsGrantNothingAndAreNotWritten() throws {
        let (value, _) = try decode(#"{"*":{"read":true,"write":false},"u1":{}}"#, as: .acl)
        XCTAssertEqual(value, .acl(ParseACL(["*": .init(read: true, write: false), "u1": .init(read: false, write: false)])))
        XCTAssertEqual(value.wireJSON.serialized(), #"{"*":{"read":true},"u1":{}}"#)
    }

    func testEmptyACLIsMasterOnly() throws {
        let (value, _) = try decode("{}", as: .acl)
        XCTAssertEqual(value, .acl(ParseACL([:])))
        XCTAssertEqual(value.wireJSON.serialized(), "{}")
    }

    func testObjectWithoutACLTypeIsAPlainObject() throws {
        let (value, _) = try decode(#"{"*":{"read":true}}"#)
        XCTAssertEqual(value, .object(["*": .object(["read": .boolean(true)])]))
    }

    func testPrimitives() throws {
        try assertRoundTrip("null", equals: .null)
        try assertRoundTrip("true", equals: .boolean(true))
        try assertRoundTrip("false", equals: .boolean(false))
        try assertRoundTrip("-42", equals: .integer(-42))
        try assertRoundTrip("2.5", equals: .double(2.5))
        try assertRoundTrip(#""héllo \"quoted\"\n""#, equals: .string("héllo \"quoted\"\n"))
        XCTAssertEqual(ParseValue.integer(1).fieldType, .number)
        XCTAssertEqual(ParseValue.double(1).fieldType, .number)
        XCTAssertNil(ParseValue.null.fieldType)
    }

    func testNestedObjectAndArrayKeepTypedValues() throws {
        let text = #"""
            {"count":9007199254740993,"published":{"__type":"Date","iso":"2024-01-31T09:30:00.000Z"},\#
            "tags":["a",1,{"__type":"Pointer","className":"Genre","objectId":"g1"}],\#
            "where":{"__type":"GeoPoint","latitude":1.5,"longitude":2.5},\#
            "inner":{"blob":{"__type":"Bytes","base64":"AAEC"},"list":[[true,null]]}}
            """#
        let expected = ParseValue.object([
            "count": .integer(9_007_199_254_740_993),
            "published": .date(ParseDate(iso: "2024-01-31T09:30:00.000Z")!),
            "tags": .array([.string("a"), .integer(1), .pointer(PointerRef(className: "Genre", objectId: "g1"))]),
            "where": .geoPoint(geo(1.5, 2.5)),
            "inner": .object(["blob": .bytes(base64: "AAEC"), "list": .array([.array([.boolean(true), .null])])]),
        ])
        try assertRoundTrip(text, equals: expected)
        XCTAssertEqual(expected.fieldType, .object)
    }

    func testArrayOfTypedValues() throws {
        try assertRoundTrip(
            #"[{"__type":"Date","iso":"1999-12-31T23:59:59.999Z"},{"__type":"File","name":"f.txt"},[]]"#,
            equals: .array([.date(ParseDate(millisecondsSince1970: 946_684_799_999)), .file(ParseFile(name: "f.txt")), .array([])]))
    }

    func testObjectWireMembersAreSortedByKey() {
        let value = ParseValue.object(["b": .integer(2), "a": .integer(1), "c": .null])
        XCTAssertEqual(value.wireJSON.serialized(), #"{"a":1,"b":2,"c":null}"#)
    }

    func testIntegersAbove2To53StayExact() throws {
        try assertRoundTrip("9007199254740993", equals: .integer(9_007_199_254_740_993))
        let (value, _) = try decode("9007199254740993")
        XCTAssertEqual(value.wireJSON.serialized(), "9007199254740993")
        try assertRoundTrip("-9223372036854775808", equals: .integer(.min))
        try assertRoundTrip("9223372036854775807", equals: .integer(.max))
        let (array, _) = try decode("[9007199254740993,9007199254740992]")
        XCTAssertEqual(array, .array([.integer(9_007_199_254_740_993), .integer(9_007_199_254_740_992)]))
        XCTAssertNotEqual(array, .array([.integer(9_007_199_254_740_992), .integer(9_007_199_254_740_992)]))
    }

    // MARK: Errors

    func testUnknownTypeIsAnError() throws {
        try assertWireError(#"{"__type":"Money","amount":12}"#, "This is not a valid Money")
        // Also when nested: any object with a __type is read as a typed value.
        try assertWireError(#"{"price":{"__type":"Money","amount":12}}"#, "This is not a valid Money")
        try assertWireError(#"[1,{"__type":"Money"}]"#, "This is not a valid Money")
    }

    func testBytesWithEmptyBase64IsAnError() throws {
        try assertWireError(#"{"__type":"Bytes","base64":""}"#, #"This is not a valid Bytes: "base64" must be a non-empty string"#)
        try assertWireError(#"{"__type":"Bytes"}"#, #"This is not a valid Bytes: "base64" must be a non-empty string"#)
        try assertWireError(#"{"__type":"Bytes","base64":"abc"}"#, "not valid base64")
    }

    func testGeoPointOutOfRangeIsAnError() throws {
        try assertWireError(#"{"__type":"GeoPoint","latitude":91,"longitude":0}"#, "latitude 91.0 is out of range -90...90")
        try assertWireError(#"{"__type":"GeoPoint","latitude":0,"longitude":-180.5}"#, "longitude -180.5 is out of range -180...180")
        try assertWireError(
            #"{"__type":"GeoPoint","latitude":"1","longitude":0}"#,
            "This is not a valid GeoPoint: latitude and longitude must be numbers")
    }

    func testPolygonWithTwoDistinctVerticesIsAnError() throws {
        try assertWireError(#"{"__type":"Polygon","coordinates":[[0,0],[1,1],[0,0]]}"#, "a Polygon needs at least 3 distinct vertices")
        try assertWireError(
            #"{"__type":"Polygon","coordinates":[[0,0],[1,1],[2]]}"#,
            "a Polygon vertex must be a [latitude, longitude] pair of numbers")
        try assertWireError(#"{"__type":"Polygon"}"#, "This is not a valid Polygon: coordinates must be an array")
    }

    func testACLFlagThatIsAStringIsAnError() throws {
        try assertWireError(#"{"*":{"read":"true"}}"#, as: .acl, #"invalid ACL: "*".read must be true or false"#)
        try assertWireError(#"{"*":{"delete":true}}"#, as: .acl, #"invalid ACL: unknown permission "delete" (read or write)"#)
        try assertWireError(#"{"*":true}"#, as: .acl, #"invalid ACL: entry "*" must be an object like {"read": true}"#)
    }

    func testPointerAndDateNeedTheirMembers() throws {
        try assertWireError(#"{"__type":"Pointer","className":"Genre"}"#, #"This is not a valid Pointer: "objectId" must be a non-empty string"#)
        try assertWireError(#"{"__type":"Date","iso":"yesterday"}"#, #"not a date: "yesterday""#)
    }

    func testBase64Validation() {
        XCTAssertTrue(Base64.isValid("AAEC"))
        XCTAssertTrue(Base64.isValid("SGVsbG8="))
        XCTAssertTrue(Base64.isValid("SGk+/w=="))
        XCTAssertFalse(Base64.isValid(""))
        XCTAssertFalse(Base64.isValid("SGVsbG8"))
        XCTAssertFalse(Base64.isValid("SG=sbG8="))
        XCTAssertFalse(Base64.isValid("SGVs bG8="))
        XCTAssertFalse(Base64.isValid("S==="))
    }

    /// A value as a server stored it keeps coordinates out of range (Parse Server stores a
    /// latitude of 100), named by `coordinateProblem`; as a source gives it, it is refused.
    func testStoredGeoPointsOutOfRangeAreKeptAndNamed() throws {
        let json = try JSONParser.parse(#"{"__type":"GeoPoint","latitude":100,"longitude":10}"#)
        XCTAssertThrowsError(try ParseValue(wire: json, as: .geoPoint))
        let stored = try ParseValue(stored: json, as: .geoPoint)
        XCTAssertEqual(stored.wireJSON.serialized(), json.serialized())
        XCTAssertEqual(stored.coordinateProblem, "latitude 100.0 is out of range -90...90")
        XCTAssertNil(try ParseValue(stored: JSONParser.parse(#"{"__type":"GeoPoint","latitude":10,"longitude":10}"#)).coordinateProblem)
        let polygon = try ParseValue(stored: JSONParser.parse(#"{"__type":"Polygon","coordinates":[[0,0],[0,200],[1,1]]}"#))
        XCTAssertEqual(polygon.coordinateProblem, "longitude 200.0 is out of range -180...180")
        XCTAssertEqual(
            try ParseValue(stored: JSONParser.parse(#"[{"__type":"GeoPoint","latitude":-91,"longitude":0}]"#)).coordinateProblem,
            "latitude -91.0 is out of range -90...90")
        XCTAssertThrowsError(try GeoPoint(storedLatitude: .nan, longitude: 0))
    }
}
