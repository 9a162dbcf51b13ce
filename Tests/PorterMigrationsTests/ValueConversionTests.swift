import ParseModel
import PorterMigrations
import XCTest

final class ValueConversionTests: XCTestCase {
    private func convert(_ value: ParseValue, _ type: FieldType) -> ParseValue? { ValueConversion.convert(value, to: type) }

    func testStringAndNumberConvertOnlyNumericText() {
        XCTAssertEqual(convert(.string("412"), .number), .integer(412))
        XCTAssertEqual(convert(.string("-3.5"), .number), .double(-3.5))
        XCTAssertEqual(convert(.string("1e3"), .number), .double(1000))
        XCTAssertEqual(convert(.string(" 7 "), .number), .integer(7))
        for text in ["four", "", "1,5", "12abc", "0x10", "NaN", "+1", "\"1\""] {
            XCTAssertNil(convert(.string(text), .number), text)
        }
        XCTAssertEqual(convert(.integer(412), .string), .string("412"))
        XCTAssertEqual(convert(.double(3.5), .string), .string("3.5"))
        XCTAssertEqual(convert(.double(3), .string), .string("3"))
    }

    func testBooleansConvertFromTrueFalseTextAndZeroOne() {
        XCTAssertEqual(convert(.string("true"), .boolean), .boolean(true))
        XCTAssertEqual(convert(.string("false"), .boolean), .boolean(false))
        XCTAssertNil(convert(.string("yes"), .boolean))
        XCTAssertNil(convert(.string("True"), .boolean))
        XCTAssertEqual(convert(.boolean(true), .string), .string("true"))
        XCTAssertEqual(convert(.boolean(false), .string), .string("false"))
        XCTAssertEqual(convert(.integer(0), .boolean), .boolean(false))
        XCTAssertEqual(convert(.integer(1), .boolean), .boolean(true))
        XCTAssertEqual(convert(.double(1), .boolean), .boolean(true))
        XCTAssertNil(convert(.integer(2), .boolean))
        XCTAssertNil(convert(.double(0.5), .boolean))
        XCTAssertEqual(convert(.boolean(true), .number), .integer(1))
        XCTAssertEqual(convert(.boolean(false), .number), .integer(0))
    }

    func testDatesConvertFromISOTextAndToCanonicalISO() throws {
        let date = try XCTUnwrap(ParseDate(iso: "1965-08-01T00:00:00.000Z"))
        XCTAssertEqual(convert(.string("1965-08-01"), .date), .date(date))
        XCTAssertEqual(convert(.string("1965-08-01T02:00:00+02:00"), .date), .date(date))
        XCTAssertNil(convert(.string("August 1965"), .date))
        XCTAssertEqual(convert(.date(date), .string), .string("1965-08-01T00:00:00.000Z"))
        XCTAssertNil(convert(.date(date), .number))
        XCTAssertNil(convert(.integer(0), .date))
    }

    func testObjectsAndArraysConvertToJSONTextAndBackWhenItParses() {
        let object = ParseValue.object(["b": .integer(1), "a": .array([.string("x")])])
        XCTAssertEqual(convert(object, .string), .string(#"{"a":["x"],"b":1}"#))
        XCTAssertEqual(convert(.string(#"{"a":["x"],"b":1}"#), .object), object)
        XCTAssertEqual(convert(.array([.integer(1), .string("two")]), .string), .string(#"[1,"two"]"#))
        XCTAssertEqual(convert(.string(#"[1,"two"]"#), .array), .array([.integer(1), .string("two")]))
        XCTAssertNil(convert(.string("[1,"), .array))
        XCTAssertNil(convert(.string("[]"), .object), "an array is not an object")
        XCTAssertNil(convert(.string("{}"), .array))
        XCTAssertNil(convert(object, .array))
    }

    func testPointersConvertToTheirObjectIdAndBackWithTheTargetClass() {
        XCTAssertEqual(convert(.pointer(PointerRef(className: "Genre", objectId: "g1")), .string), .string("g1"))
        XCTAssertEqual(convert(.string("g1"), .pointer(targetClass: "Genre")), .pointer(PointerRef(className: "Genre", objectId: "g1")))
        XCTAssertNil(convert(.string(""), .pointer(targetClass: "Genre")))
        XCTAssertNil(convert(.pointer(PointerRef(className: "Genre", objectId: "g1")), .pointer(targetClass: "Author")))
    }

    func testAValueOfTheTypeItselfIsKeptAndOtherTypesDoNotConvert() throws {
        XCTAssertEqual(convert(.string("Dune"), .string), .string("Dune"))
        let point = ParseValue.geoPoint(try GeoPoint(latitude: 1, longitude: 2))
        XCTAssertNil(convert(point, .string))
        XCTAssertNil(convert(.file(ParseFile(name: "cover.jpg")), .string))
        XCTAssertNil(convert(.bytes(base64: "AAAA"), .string))
        XCTAssertNil(convert(.string("Dune"), .geoPoint))
        XCTAssertNil(convert(.string("Dune"), .relation(targetClass: "Author")))
        XCTAssertNil(convert(.integer(1), .array))
    }
}
