import XCTest

@testable import ParseModel
@testable import PorterPipeline
@testable import PorterReaders

/// Coercion of source cells into Parse values (FieldCoercer, ReferenceParser, ClassMapper).
final class CoercionTests: XCTestCase {
    // MARK: Helpers

    /// A CSV record with the given header and cells.
    private func csv(_ pairs: KeyValuePairs<String, String>, line: Int = 2) -> SourceRecord {
        SourceRecord(line: line, content: .csv(header: CSVHeader(names: pairs.map(\.key)), cells: pairs.map(\.value)))
    }

    /// A JSON record.
    private func json(_ text: String, line: Int = 1) -> SourceRecord {
        guard case .object(let object) = try! JSONParser.parse(text) else { fatalError("not an object: \(text)") }
        return SourceRecord(line: line, content: .json(object))
    }

    private func field(
        _ type: FieldType, column: String = "c", columns: [String]? = nil, defaultValue: ParseValue? = nil,
        format: String? = nil, split: String? = nil, values: [String: ParseValue]? = nil, null: Set<String> = []
    ) -> FieldMapping {
        FieldMapping(
            name: "f", type: type, column: column, columns: columns, defaultValue: defaultValue, formats: format.map { [$0] } ?? [],
            split: split, values: values, nullTokens: null)
    }

    private func coercer(_ field: FieldMapping, references: ReferenceParser? = nil) -> FieldCoercer {
        FieldCoercer(field: field, references: references)
    }

    /// The value of `field` for a CSV cell `text` in column `c`.
    private func value(_ field: FieldMapping, _ text: String, references: ReferenceParser? = nil) -> Result<MappedValue, CoercionError> {
        value(field, csv([field.column: text]), references: references)
    }

    private func value(_ field: FieldMapping, _ record: SourceRecord, references: ReferenceParser? = nil) -> Result<MappedValue, CoercionError> {
        Result { () throws(CoercionError) in try Self.value(of: coercer(field, references: references), in: record) }
    }

    /// `coercer`'s value in `record`, a Relation's references in the value (a class's drafts keep them in their store).
    private static func value(of coercer: FieldCoercer, in record: SourceRecord) throws(CoercionError) -> MappedValue {
        var store: [ObjectReference] = []
        let value = try coercer.value(in: record, references: &store)
        guard case .links(let range) = value else { return value }
        return .relation(Array(store[range]))
    }

    private func assertValue(_ field: FieldMapping, _ text: String, _ expected: ParseValue, file: StaticString = #filePath, line: UInt = #line) {
        assertValue(field, csv([field.column: text]), expected, file: file, line: line)
    }

    private func assertValue(_ field: FieldMapping, _ record: SourceRecord, _ expected: ParseValue, file: StaticString = #filePath, line: UInt = #line) {
        switch value(field, record) {
        case .success(let mapped):
            XCTAssertEqual(
                mapped, .value(expected), "\(field.type) from \(record.cell(ColumnPath(field.column)).map { "\($0)" } ?? "nothing")", file: file, line: line)
        case .failure(let error):
            XCTFail("\(field.type) from \(record.cell(ColumnPath(field.column)).map { "\($0)" } ?? "nothing"): \(error.reason)", file: file, line: line)
        }
    }

    /// Asserts that the cell is refused with a reason starting with `reason`.
    private func assertRefused(_ field: FieldMapping, _ text: String, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        assertRefused(field, csv([field.column: text]), reason, file: file, line: line)
    }

    private func assertRefused(
        _ field: FieldMapping, _ record: SourceRecord, _ reason: String, column: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        switch value(field, record) {
        case .success(let mapped): XCTFail("\(field.type): accepted as \(mapped)", file: file, line: line)
        case .failure(let error):
            XCTAssertTrue(error.reason.hasPrefix(reason), "reason: \(error.reason)\nexpected prefix: \(reason)", file: file, line: line)
            if let column { XCTAssertEqual(error.column, column, file: file, line: line) }
        }
    }

    private func geo(_ latitude: Double, _ longitude: Double) -> ParseValue { .geoPoint(try! GeoPoint(latitude: latitude, longitude: longitude)) }

    private func date(_ iso: String) -> ParseValue { .date(ParseDate(iso: iso)!) }

    // MARK: Cells as bytes

    /// A CSV cell is coerced from its bytes (numbers, booleans, keys, null tokens); what it gives
    /// must be what the same cell gives as text, at the edges of every shortcut.
    func testCSVCellBytesCoerceAsTheirText() {
        let cells = [
            "", "0", "-0", "+7", "-", "+", "-12", "123456789012345678", "-123456789012345678", "1234567890123456789",
            "99999999999999999999", " 12", "12 ", "1.5", "1e3", "0x10", "\u{FF10}", "TRUE", "True", "yes", "YES", "Y", "n", "F", "0", "1",
            "maybe", "true ", " no", "\u{212A}", "K", "NA", "na", "\\N", "é", "e\u{301}", "a b", "2024-01-31", "{\"x\": 1}",
            #"{"__type":"Pointer","className":"Shelf","objectId":"abc"}"#, "{not json",
        ]
        let key = FieldCoercer(field: field(.string, column: "code"), references: nil)
        let shelves = ReferenceParser(targetClass: "Shelf", keyParts: [key])
        let fields = [
            field(.string), field(.number), field(.boolean), field(.date), field(.string, null: ["NA", "K"]),
            field(.number, null: ["\\N"]), field(.string, null: ["é"]), field(.boolean, defaultValue: .boolean(true)),
            field(.pointer(targetClass: "Shelf")), field(.relation(targetClass: "Shelf"), split: ";"),
        ]
        for field in fields {
            let coercer = coercer(field, references: field.type.targetClass != nil ? shelves : nil)
            for cell in cells {
                let asText = Result { () throws(CoercionError) -> MappedValue in
                    guard !coercer.isNull(.text(cell)) else { return field.type.isRelation ? .relation([]) : .value(field.defaultValue ?? .null) }
                    return try coercer.coerce(.text(cell))
                }
                let asBytes = Result { () throws(CoercionError) in try Self.value(of: coercer, in: csv(["c": cell])) }
                switch (asBytes, asText) {
                case (.success(let bytes), .success(let text)):
                    XCTAssertEqual(bytes, text, "\(field.type) \(field.nullTokens) \(cell.debugDescription)")
                case (.failure(let bytes), .failure(let text)):
                    XCTAssertEqual(bytes.reason, text.reason, "\(field.type) \(cell.debugDescription)")
                default:
                    XCTFail("\(field.type) \(field.nullTokens) \(cell.debugDescription): \(asBytes) from bytes, \(asText) from text")
                }
            }
        }
    }

    /// A CSV row's cells kept as bytes read back as the text they were made of.
    func testCSVCellsKeepTheirText() {
        let cells = ["", "a", "é日本語😀", "", "quoted, with \"quotes\"\r\nand a line break", String(repeating: "x", count: 300), ""]
        let record = SourceRecord(line: 3, content: .csv(header: CSVHeader(names: ["a", "b", "c", "d", "e", "f", "g"]), cells: cells))
        guard case .csv(_, let back) = record.content else { return XCTFail("not CSV") }
        XCTAssertEqual(back, cells)
        XCTAssertEqual(record.cell(ColumnPath("c")), .text("é日本語😀"))
        XCTAssertEqual(record.cell(ColumnPath("g")), .text(""))
        XCTAssertNil(record.raggedness)
        let empty = SourceRecord(line: 1, content: .csv(header: CSVHeader(names: ["a"]), cells: []))
        XCTAssertEqual(empty.raggedness?.actual, 0)
    }

    // MARK: Numbers

    func testNumbers() {
        let number = field(.number)
        assertValue(number, "12", .integer(12))
        assertValue(number, "-3.5", .double(-3.5))
        assertValue(number, "1e3", .double(1000))
        assertValue(number, "2.5E-1", .double(0.25))
        assertValue(number, "+4", .integer(4))
        assertValue(number, ".5", .double(0.5))
        assertValue(number, "007", .integer(7))
        assertValue(number, " 7 ", .integer(7))
        assertValue(number, "\t8", .integer(8))
        assertValue(number, "9007199254740993", .integer(9_007_199_254_740_993))
        assertValue(number, "-9223372036854775808", .integer(.min))
        assertValue(number, "9223372036854775808", .double(9_223_372_036_854_775_808))
        assertValue(number, json(#"{"c": 9007199254740993}"#), .integer(9_007_199_254_740_993))
        assertValue(number, json(#"{"c": 1.25}"#), .double(1.25))
        assertValue(number, json(#"{"c": "42"}"#), .integer(42))
        for bad in ["1,5", "12abc", "0x10", "inf", "nan", "Infinity", "-", ".", "1e", "1e+", "1 2", "--1", "1e400", "   "] {
            assertRefused(number, bad, "not a number")
        }
        assertRefused(number, json(#"{"c": true}"#), "not a number")
        assertRefused(number, json(#"{"c": [1]}"#), "not a number")
        // An empty cell is null, not an error.
        assertValue(number, "", .null)
        XCTAssertNil(NumberText.parse(""))
    }

    /// `decimal: ","` and `thousands: "."`, as much of Europe writes numbers, and the other way round.
    func testNumbersWithDecimalCommaAndThousandsSeparator() {
        var european = field(.number)
        european.numberFormat = NumberFormat(decimal: UInt8(ascii: ","), thousands: UInt8(ascii: "."))
        assertValue(european, "1.234,50", .double(1234.5))
        assertValue(european, "-1.234.567,125", .double(-1_234_567.125))
        assertValue(european, "1.000.000", .integer(1_000_000))
        assertValue(european, "1234,5", .double(1234.5))
        assertValue(european, "25,50", .double(25.5))
        assertValue(european, ",5", .double(0.5))
        assertValue(european, "12", .integer(12))
        assertValue(european, "1,5e3", .double(1500))
        assertValue(european, json(#"{"c": 2.5}"#), .double(2.5))
        // Grouped digits take no exponent: 1.234e3 reads as neither 1234000 nor 1.234.
        for bad in ["1,2,3", "1.23,4", "1.2345", "12345.678", "1.", ".123", "1..234", "1.234,5.6", "1,5.0", "1.234e3", "1.5", "abc"] {
            assertRefused(european, bad, #"not a number with decimal ",", thousands ".""#)
        }
        var commaOnly = field(.number)
        commaOnly.numberFormat = NumberFormat(decimal: UInt8(ascii: ","), thousands: nil)
        assertValue(commaOnly, "3,75", .double(3.75))
        assertRefused(commaOnly, "1.234,5", #"not a number with decimal ",""#)
        var english = field(.number)
        english.numberFormat = NumberFormat(decimal: UInt8(ascii: "."), thousands: UInt8(ascii: ","))
        assertValue(english, "1,234.5", .double(1234.5))
        assertRefused(english, "1,23", "not a number")
        var swiss = field(.number)
        swiss.numberFormat = NumberFormat(decimal: UInt8(ascii: "."), thousands: UInt8(ascii: "'"))
        assertValue(swiss, "1'234'567.8", .double(1_234_567.8))
    }

    func testGeoPointColumnsWithDecimalCommas() {
        var point = field(.geoPoint, columns: ["lat", "lng"])
        point.numberFormat = NumberFormat(decimal: UInt8(ascii: ","), thousands: nil)
        assertValue(point, csv(["lat": "48,1374", "lng": "-4,4214"]), geo(48.1374, -4.4214))
        assertRefused(point, csv(["lat": "48.1374", "lng": "1"]), "latitude is not a number", column: "lat")
    }

    // MARK: Booleans

    func testBooleans() {
        let boolean = field(.boolean)
        for text in ["true", "TRUE", "True", "yes", "YES", "Yes", "1", "t", "T", "y", "Y"] {
            assertValue(boolean, text, .boolean(true))
        }
        for text in ["false", "FALSE", "False", "no", "NO", "No", "0", "f", "F", "n", "N"] {
            assertValue(boolean, text, .boolean(false))
        }
        assertValue(boolean, json(#"{"c": true}"#), .boolean(true))
        assertValue(boolean, json(#"{"c": 0}"#), .boolean(false))
        assertValue(boolean, json(#"{"c": "yes"}"#), .boolean(true))
        for bad in ["maybe", "2", "on", "ja", "truth"] {
            assertRefused(boolean, bad, "not a boolean (true/false, yes/no, 1/0, t/f, y/n)")
        }
        assertRefused(boolean, json(#"{"c": 2}"#), "not a boolean")
    }

    // MARK: Dates

    func testISODates() {
        let dateField = field(.date)
        assertValue(dateField, "2024-01-31", date("2024-01-31T00:00:00.000Z"))
        assertValue(dateField, "2024-01-31T09:30:00Z", date("2024-01-31T09:30:00.000Z"))
        assertValue(dateField, "2024-01-31T09:30:00.123+02:00", date("2024-01-31T07:30:00.123Z"))
        assertValue(dateField, "2024-01-31 09:30", date("2024-01-31T09:30:00.000Z"))
        assertValue(dateField, "1815-12-10", date("1815-12-10T00:00:00.000Z"))
        assertValue(dateField, json(#"{"c": {"__type": "Date", "iso": "2022-01-01T12:23:45.678Z"}}"#), date("2022-01-01T12:23:45.678Z"))
        assertValue(dateField, json(#"{"c": "2022-01-01T12:23:45.678Z"}"#), date("2022-01-01T12:23:45.678Z"))
        assertRefused(dateField, "31.01.2024", "not a date (ISO 8601")
        assertRefused(dateField, "2023-02-29", "not a date (ISO 8601")
        assertRefused(dateField, json(#"{"c": {"__type": "Pointer", "className": "A", "objectId": "b"}}"#), "expected a Date, got Pointer<A>")
        assertRefused(dateField, json(#"{"c": 1706693400}"#), "expected a Date")
    }

    func testDateFormat() {
        let german = field(.date, format: "dd.MM.yyyy")
        assertValue(german, "31.01.2024", date("2024-01-31"))
        assertRefused(german, "2024-01-31", #"not a date in format "dd.MM.yyyy""#)
        assertRefused(german, "31.02.2024", #"not a date in format "dd.MM.yyyy""#)
        let stamped = field(.date, format: "yyyy-MM-dd'T'HH:mm:ssXXX")
        assertValue(stamped, "2024-01-31T09:30:00-05:30", date("2024-01-31T15:00:00Z"))
        // A Parse Date object in a JSON source is taken as it is, whatever the format.
        assertValue(german, json(#"{"c": {"__type": "Date", "iso": "2024-01-31T00:00:00.000Z"}}"#), date("2024-01-31"))
    }

    func testDateFormatListsAndHints() {
        var mixed = field(.date)
        mixed.formats = ["yyyy-MM-dd", "dd/MM/yyyy"]
        assertValue(mixed, "2024-03-01", date("2024-03-01"))
        assertValue(mixed, "01/03/2024", date("2024-03-01"))
        // The first format that reads a value wins; a format is suggested only when a common one reads it.
        assertRefused(mixed, "03.01.2024", #"not a date in format "yyyy-MM-dd" or "dd/MM/yyyy"; add "dd.MM.yyyy" to the format list of f"#)
        assertRefused(mixed, "soon", #"not a date in format "yyyy-MM-dd" or "dd/MM/yyyy""#)
        assertRefused(
            field(.date), "01/03/2024",
            #"not a date (ISO 8601, e.g. 2024-01-31 or 2024-01-31T09:30:00Z); add format: "dd/MM/yyyy" (reads it as 2024-03-01) or "MM/dd/yyyy" (2024-01-03) to f"#
        )
        assertRefused(field(.date), "1709251200", #"not a date (ISO 8601, e.g. 2024-01-31 or 2024-01-31T09:30:00Z); add format: "unix" to f"#)
        // A Unix time may be a JSON number; other formats take no numbers.
        var epoch = field(.date)
        epoch.formats = ["unix"]
        assertValue(epoch, json(#"{"c": 1709251200}"#), date("2024-03-01"))
        assertValue(epoch, json(#"{"c": 1709251200.5}"#), date("2024-03-01T00:00:00.500Z"))
        assertRefused(field(.date, format: "dd.MM.yyyy"), json(#"{"c": 1709251200}"#), "expected a Date")
    }

    // MARK: Arrays and objects

    func testArrays() {
        let array = field(.array)
        assertValue(
            array, #"["a", 1, 2.5, true, null, {"__type":"Date","iso":"2024-01-31T00:00:00.000Z"}]"#,
            .array([.string("a"), .integer(1), .double(2.5), .boolean(true), .null, date("2024-01-31")]))
        assertValue(array, "[]", .array([]))
        assertValue(
            array, json(#"{"c": [{"quantity": "2", "description": "eggs"}]}"#),
            .array([.object(["quantity": .string("2"), "description": .string("eggs")])]))
        assertRefused(array, #"{"a": 1}"#, "expected a JSON array, got object")
        assertRefused(array, "a|b", "invalid JSON:")
        assertRefused(array, "[1,", "invalid JSON:")
        assertRefused(array, #"[{"__type":"Money"}]"#, "This is not a valid Money")

        let split = field(.array, split: "|")
        assertValue(split, " fantasy | classic |epic||  ", .array([.string("fantasy"), .string("classic"), .string("epic")]))
        assertValue(split, "one", .array([.string("one")]))
        assertValue(split, "2|3", .array([.string("2"), .string("3")]))
        // A JSON source array is used as is even when the field splits text.
        assertValue(split, json(#"{"c": ["x", "y"]}"#), .array([.string("x"), .string("y")]))
    }

    /// Splitting at one byte trims each part as splitting by `Character` does, including
    /// blanks that a combining or prepended mark joins into one grapheme with a letter.
    func testSplittingAtOneByteTrimsAsCharactersDo() {
        func byCharacter(_ text: String, _ separator: Character) -> [String] {
            text.split(separator: separator, omittingEmptySubsequences: false).map(CellText.trimmed)
        }
        let cells = [
            "", ";", " ; ", "a", "\t a \t", "Ann;Bob", " Ann ;\tBob\t; ", "Zoë ; Åsa", " é", "é ", " \u{301}x; y",
            "x\u{600} ;y", "  \u{301}", "a;;b", "日本;  中国 ", "\u{1F600} ; \u{1F600}", "a\r\n;b",
        ]
        for cell in cells {
            XCTAssertEqual(CellText.split(cell, by: ";"), byCharacter(cell, ";"), "cell \(cell.debugDescription)")
        }
        XCTAssertEqual(CellText.split(" \u{301}x; y", by: ";"), [" \u{301}x", "y"], "a blank that starts a grapheme stays")
        XCTAssertEqual(CellText.split("a, b ,c", by: ", "), ["a", "b ,c"])
    }

    func testObjects() {
        let object = field(.object)
        assertValue(
            object, #"{"calories": "200", "when": {"__type": "Date", "iso": "2024-01-31T09:30:00.000Z"}, "n": 2, "deep": {"list": [1]}}"#,
            .object([
                "calories": .string("200"), "when": date("2024-01-31T09:30:00Z"), "n": .integer(2),
                "deep": .object(["list": .array([.integer(1)])]),
            ]))
        assertValue(object, "{}", .object([:]))
        assertValue(object, json(#"{"c": {"k": "v"}}"#), .object(["k": .string("v")]))
        assertRefused(object, "[1]", "expected a JSON object, got array")
        assertRefused(object, "plain text", "invalid JSON:")
        assertRefused(object, #"{"__type":"Pointer","className":"Genre","objectId":"x"}"#, "expected a plain JSON object, got a Pointer<Genre>")
    }

    // MARK: Geo

    func testGeoPointFromJSON() {
        let point = field(.geoPoint)
        assertValue(point, #"{"latitude": 40.0, "longitude": -30.0}"#, geo(40, -30))
        assertValue(point, #"{"__type": "GeoPoint", "latitude": 40, "longitude": -30}"#, geo(40, -30))
        assertValue(point, "[48.8566, 2.3522]", geo(48.8566, 2.3522))
        assertValue(point, json(#"{"c": {"latitude": -90, "longitude": 180}}"#), geo(-90, 180))
        assertRefused(point, #"{"latitude": 91, "longitude": 0}"#, "latitude 91.0 is out of range -90...90")
        assertRefused(point, "[0, 181]", "longitude 181.0 is out of range -180...180")
        assertRefused(point, #"{"latitude": "north", "longitude": 0}"#, "This is not a valid GeoPoint")
        assertRefused(point, #""here""#, "expected a GeoPoint")
        assertRefused(point, "48.8,2.3", "invalid JSON")
    }

    func testGeoPointFromTwoColumns() {
        let point = field(.geoPoint, columns: ["lat", "lng"])
        assertValue(point, csv(["lat": "40.5", "lng": "-30.25"]), geo(40.5, -30.25))
        assertValue(point, csv(["lat": " 1 ", "lng": "2"]), geo(1, 2))
        assertValue(point, csv(["lat": "", "lng": ""]), .null)
        assertValue(point, json(#"{"lat": 10, "lng": 20.5}"#), geo(10, 20.5))
        assertRefused(point, csv(["lat": "91", "lng": "0"]), "latitude 91.0 is out of range -90...90", column: "lat")
        assertRefused(point, csv(["lat": "0", "lng": "-181"]), "longitude -181.0 is out of range -180...180", column: "lng")
        assertRefused(point, csv(["lat": "north", "lng": "0"]), "latitude is not a number", column: "lat")
        assertRefused(point, csv(["lat": "1", "lng": ""]), "longitude is not a number", column: "lng")
        let defaulted = field(.geoPoint, columns: ["lat", "lng"], defaultValue: geo(0, 0))
        assertValue(defaulted, csv(["lat": "", "lng": ""]), geo(0, 0))
    }

    func testPolygon() throws {
        let polygon = field(.polygon)
        let expected = ParseValue.polygon(
            try ParsePolygon(coordinates: [
                try GeoPoint(latitude: 0, longitude: 0), try GeoPoint(latitude: 0, longitude: 1), try GeoPoint(latitude: 1, longitude: 1),
            ]))
        assertValue(polygon, "[[0,0],[0,1],[1,1]]", expected)
        assertValue(polygon, #"{"__type":"Polygon","coordinates":[[0,0],[0,1],[1,1]]}"#, expected)
        assertRefused(polygon, "[[0,0],[0,1],[0,0]]", "a Polygon needs at least 3 distinct vertices")
        assertRefused(polygon, "[[0,0],[0,1],[91,1]]", "latitude 91.0 is out of range")
        assertRefused(polygon, "[[0,0],[0,1],[1]]", "a Polygon vertex must be a [latitude, longitude] pair of numbers")
        assertRefused(polygon, #"{"__type":"GeoPoint","latitude":1,"longitude":2}"#, "expected a Polygon, got GeoPoint")
    }

    // MARK: Files, bytes, ACLs

    func testFiles() {
        let file = field(.file)
        assertValue(file, "photo.jpg", .file(ParseFile(name: "photo.jpg")))
        assertValue(
            file, #"{"name": "photo.jpg", "url": "https://files.example.com/photo.jpg"}"#,
            .file(ParseFile(name: "photo.jpg", url: "https://files.example.com/photo.jpg")))
        assertValue(file, #"{"__type": "File", "name": "a.png"}"#, .file(ParseFile(name: "a.png")))
        assertValue(file, json(#"{"c": {"__type": "File", "name": "b.png", "url": "u"}}"#), .file(ParseFile(name: "b.png", url: "u")))
        assertValue(file, json(#"{"c": "c.png"}"#), .file(ParseFile(name: "c.png")))
        assertRefused(file, #"{"url": "https://x"}"#, #"This is not a valid File: "name" must be a non-empty string"#)
        assertRefused(file, json(#"{"c": 12}"#), "expected a file name or a File object")
    }

    func testBytes() {
        let bytes = field(.bytes)
        assertValue(bytes, "SGVsbG8=", .bytes(base64: "SGVsbG8="))
        assertValue(bytes, json(#"{"c": {"__type": "Bytes", "base64": "AAEC"}}"#), .bytes(base64: "AAEC"))
        assertRefused(bytes, "SGVsbG8", "not valid base64")
        assertRefused(bytes, "SGV$bG8=", "not valid base64")
        assertRefused(bytes, "SGVs bG8=", "not valid base64")
        assertRefused(bytes, json(#"{"c": {"__type": "Bytes", "base64": ""}}"#), "This is not a valid Bytes")
    }

    func testACL() {
        let acl = field(.acl)
        assertValue(
            acl, #"{"*": {"read": true}, "role:Admin": {"read": true, "write": true}}"#,
            .acl(ParseACL(["*": .init(read: true, write: false), "role:Admin": .init(read: true, write: true)])))
        assertValue(acl, json(#"{"c": {"u1": {"write": true}}}"#), .acl(ParseACL(["u1": .init(read: false, write: true)])))
        assertRefused(acl, #"{"*": {"read": "yes"}}"#, #"invalid ACL: "*".read must be true or false"#)
        assertRefused(acl, "[1]", "invalid ACL: expected a JSON object")
    }

    func testStrings() {
        let string = field(.string)
        assertValue(string, "  kept as is  ", .string("  kept as is  "))
        assertValue(string, json(#"{"c": "x"}"#), .string("x"))
        assertRefused(string, json(#"{"c": 12}"#), "expected a String, got number")
        // Dotted columns reach into JSON objects.
        let nested = field(.string, column: "address.city")
        assertValue(nested, json(#"{"address": {"city": "Lyon"}}"#), .string("Lyon"))
    }

    // MARK: Enums, defaults, null tokens

    func testEnumValues() {
        let category = field(.number, values: ["breakfast": .integer(0), "lunch": .integer(1), "dinner": .integer(2)])
        assertValue(category, "lunch", .integer(1))
        assertValue(category, "DINNER", .integer(2))
        assertValue(category, "Breakfast", .integer(0))
        assertValue(category, "1", .integer(1))
        assertValue(category, json(#"{"c": 2}"#), .integer(2))
        assertRefused(category, "brunch", "not one of breakfast, lunch, dinner")
        assertRefused(category, "7", "not one of breakfast, lunch, dinner")
        let flag = field(.string, values: ["Y": .string("yes"), "N": .string("no")])
        assertValue(flag, "y", .string("yes"))
        assertValue(flag, "no", .string("no"))
    }

    func testDefaultsAndNullTokens() {
        let year = field(.number, defaultValue: .integer(0), null: ["n/a", "-"])
        assertValue(year, "", .integer(0))
        assertValue(year, "n/a", .integer(0))
        assertValue(year, "-", .integer(0))
        assertValue(year, "1999", .integer(1999))
        assertRefused(year, "N/A", "not a number")
        assertValue(year, csv(["other": "x"]), .integer(0))
        assertValue(year, json(#"{"c": null}"#), .integer(0))
        assertValue(year, json(#"{"c": "n/a"}"#), .integer(0))
        assertValue(year, json("{}"), .integer(0))
        let plain = field(.string, null: ["NULL"])
        assertValue(plain, "NULL", .null)
        assertValue(plain, "", .null)
        assertValue(plain, "null", .string("null"))
    }

    // MARK: Through ClassMapper

    /// `record` mapped as an import maps it, into drafts of its own: the draft and its values, or the faults.
    private func mapped(_ mapper: ClassMapper, _ record: SourceRecord) -> Result<(draft: ObjectDraft, values: [MappedValue]), MappingFailure> {
        var drafts = mapper.drafts()
        mapper.map(record, into: &drafts)
        return drafts[0].map { ($0, drafts.detachedValues(of: 0)) }
    }

    private func manifest(_ classes: [ClassMapping]) -> DatasetManifest {
        DatasetManifest(directory: "/tmp", fileName: "dataset.yml", classes: classes, relations: [])
    }

    private let genreClass = ClassMapping(
        className: "Genre", source: "genres.csv", key: ["name"],
        fields: [FieldMapping(name: "name", type: .string, required: true)])

    func testRequiredFieldIsMissing() {
        let book = ClassMapping(
            className: "Book", source: "books.csv", key: ["title"],
            fields: [
                FieldMapping(name: "title", type: .string, required: true),
                FieldMapping(name: "year", type: .number, column: "publishing_year", required: true, nullTokens: ["?"]),
                FieldMapping(name: "pages", type: .number, required: true, defaultValue: .integer(100)),
            ])
        let mapper = ClassMapper(mapping: book, manifest: manifest([book]))
        guard case .failure(let failure) = mapped(mapper, csv(["title": "Dune", "publishing_year": "?", "pages": ""], line: 7)) else {
            return XCTFail("a missing required field was accepted")
        }
        XCTAssertEqual(
            failure.diagnostics.map(\.description),
            [#"books.csv:7: column "publishing_year" (Book.year): value "?": required field is missing"#])
        guard case .success(let (draft, values)) = mapped(mapper, csv(["title": "Dune", "publishing_year": "1965", "pages": ""], line: 8)) else {
            return XCTFail("a valid row was refused")
        }
        XCTAssertEqual(values, [.value(.string("Dune")), .value(.integer(1965)), .value(.integer(100))])
        XCTAssertEqual(draft.key, "Dune")
        XCTAssertEqual(draft.objectId, KeyHash(className: "Book", key: "Dune").objectId)
        XCTAssertFalse(draft.hasSourceObjectId)
        XCTAssertEqual(draft.line, 8)
    }

    /// Drafts mapped a batch at a time share one storage, and drafts emptied record after record
    /// reuse theirs: with optional values present and absent in turn, each draft holds its own.
    func testDraftsHoldEachRecordsOwnValues() {
        let book = ClassMapping(
            className: "Book", source: "books.csv", key: ["title"],
            fields: [
                FieldMapping(name: "title", type: .string, required: true), FieldMapping(name: "year", type: .number),
                FieldMapping(name: "genre", type: .pointer(targetClass: "Genre")), FieldMapping(name: "note", type: .string),
            ])
        let mapper = ClassMapper(mapping: book, manifest: manifest([genreClass, book]))
        let count = 600
        func record(_ n: Int) -> SourceRecord {
            csv(
                ["title": "Book \(n)", "year": n % 2 == 0 ? "\(n)" : "", "genre": n % 3 == 0 ? "Fantasy" : "", "note": n % 4 == 1 ? "note \(n)" : ""],
                line: n + 1)
        }
        func values(_ n: Int) -> [MappedValue] {
            [
                .value(.string("Book \(n)")), .value(n % 2 == 0 ? .integer(Int64(n)) : .null),
                n % 3 == 0 ? .pointer(ObjectReference(targetClass: "Genre", identity: .key("Fantasy"))) : .value(.null),
                .value(n % 4 == 1 ? .string("note \(n)") : .null),
            ]
        }
        var batch = mapper.drafts(capacity: count), alone = mapper.drafts()
        for n in 1...count {
            mapper.map(record(n), into: &batch)
            alone.removeAll()
            mapper.map(record(n), into: &alone)
            XCTAssertEqual(alone.count, 1)
            XCTAssertEqual(Array(alone.values(of: 0)), values(n))
        }
        XCTAssertEqual(batch.count, count)
        for n in 1...count {
            XCTAssertEqual(Array(batch.values(of: n - 1)), values(n))
            guard case .success(let draft) = batch[n - 1] else { return XCTFail("record \(n) refused") }
            XCTAssertEqual(draft.line, n + 1)
            XCTAssertEqual(draft.key, "Book \(n)")
        }
    }

    /// Each Relation cell's references go into its class's drafts' store (no array per cell):
    /// every draft names its own there, in a batch's drafts and in drafts emptied between
    /// records, and the store holds no more than the record being mapped alone.
    func testRelationReferencesStayWithTheirRecord() {
        let book = ClassMapping(
            className: "Book", source: "books.csv", key: ["title"],
            fields: [
                FieldMapping(name: "title", type: .string, required: true),
                FieldMapping(name: "genres", type: .relation(targetClass: "Genre"), split: ";"),
                FieldMapping(name: "shelf", type: .pointer(targetClass: "Genre")),
                FieldMapping(name: "also", type: .relation(targetClass: "Genre"), split: "|"),
            ])
        let mapper = ClassMapper(mapping: book, manifest: manifest([genreClass, book]))
        let count = 600
        // Empty, one, several with a repeat, and (every 7th) a part that is bad pointer JSON, after a good one.
        func genres(_ n: Int) -> [String] {
            switch n % 4 {
            case 0: []
            case 1: ["G\(n)"]
            case 2: ["G\(n)", "H\(n)", "G\(n)", "I\(n)"]
            default: ["J\(n % 10)", "K\(n)"]
            }
        }
        func also(_ n: Int) -> String { n % 7 == 0 ? #"X\#(n)|{"__type":x}"# : n % 5 == 0 ? "" : "Y\(n)|Z\(n)" }
        func record(_ n: Int) -> SourceRecord {
            csv(["title": "Book \(n)", "genres": genres(n).joined(separator: ";"), "shelf": n % 2 == 0 ? "S\(n)" : "", "also": also(n)], line: n + 1)
        }
        func reference(_ key: String) -> ObjectReference { ObjectReference(targetClass: "Genre", identity: .key(key)) }
        func values(_ n: Int) -> [MappedValue] {
            var unique: [String] = []
            for key in genres(n) where !unique.contains(key) { unique.append(key) }
            return [
                .value(.string("Book \(n)")), .relation(unique.map(reference)),
                n % 2 == 0 ? .pointer(reference("S\(n)")) : .value(.null),
                n % 7 == 0 ? .value(.null) : .relation(n % 5 == 0 ? [] : [reference("Y\(n)"), reference("Z\(n)")]),
            ]
        }
        func references(_ n: Int) -> Int { values(n).reduce(0) { if case .relation(let found) = $1 { $0 + found.count } else { $0 } } }
        var batch = mapper.drafts(capacity: count), alone = mapper.drafts()
        for n in 1...count {
            mapper.map(record(n), into: &batch)
            alone.removeAll()
            mapper.map(record(n), into: &alone)
            XCTAssertEqual(alone.detachedValues(of: 0), values(n), "record \(n) alone")
            XCTAssertEqual(alone.references.count, references(n), "record \(n) alone: the store holds this record's references only")
        }
        XCTAssertEqual(batch.references.count, (1...count).reduce(0) { $0 + references($1) })
        for n in 1...count {
            XCTAssertEqual(batch.detachedValues(of: n - 1), values(n), "record \(n) in its batch")
            switch batch[n - 1] {
            case .success(let draft): XCTAssertEqual(draft.key, "Book \(n)")
            case .failure(let failure):
                XCTAssertEqual(n % 7, 0, "record \(n) refused: \(failure.diagnostics)")
                XCTAssertEqual(failure.values, values(n), "a refused record's values hold their references")
            }
        }
    }

    func testMapperReportsEveryFaultOfARow() {
        let book = ClassMapping(
            className: "Book", source: "books.csv", key: ["title"],
            fields: [
                FieldMapping(name: "title", type: .string, required: true),
                FieldMapping(name: "year", type: .number),
                FieldMapping(name: "done", type: .boolean),
            ])
        let mapper = ClassMapper(mapping: book, manifest: manifest([book]))
        guard case .failure(let failure) = mapped(mapper, csv(["title": "", "year": "12abc", "done": "maybe"], line: 3)) else {
            return XCTFail("a faulty row was accepted")
        }
        XCTAssertEqual(
            failure.diagnostics.map(\.description),
            [
                #"books.csv:3: column "title" (Book.title): value "": required field is missing"#,
                #"books.csv:3: column "year" (Book.year): value "12abc": not a number"#,
                #"books.csv:3: column "done" (Book.done): value "maybe": not a boolean (true/false, yes/no, 1/0, t/f, y/n)"#,
            ])
    }

    func testGeoPointColumnFaultNamesTheColumn() {
        let place = ClassMapping(
            className: "Place", source: "places.csv", key: ["name"],
            fields: [
                FieldMapping(name: "name", type: .string),
                FieldMapping(name: "at", type: .geoPoint, columns: ["lat", "lng"]),
            ])
        let mapper = ClassMapper(mapping: place, manifest: manifest([place]))
        guard case .failure(let failure) = mapped(mapper, csv(["name": "Pole", "lat": "0", "lng": "200"], line: 4)) else {
            return XCTFail("an out-of-range longitude was accepted")
        }
        XCTAssertEqual(
            failure.diagnostics.map(\.description),
            [#"places.csv:4: column "lng" (Place.at): value "200": longitude 200.0 is out of range -180...180"#])
    }

    func testSourceObjectIdIsKept() {
        let mapper = ClassMapper(mapping: genreClass, manifest: manifest([genreClass]))
        guard case .success(let (draft, _)) = mapped(mapper, csv(["objectId": "abcDEF1234", "name": "Fantasy"])) else {
            return XCTFail("refused")
        }
        XCTAssertEqual(draft.objectId, "abcDEF1234")
        XCTAssertTrue(draft.hasSourceObjectId)
        XCTAssertEqual(draft.key, "Fantasy")
    }

    func testKeyAndRowFaults() {
        let genre = ClassMapping(className: "Genre", source: "genres.csv", key: ["name"], fields: [FieldMapping(name: "name", type: .string)])
        let mapper = ClassMapper(mapping: genre, manifest: manifest([genre]))
        func faults(_ record: SourceRecord) -> [String] {
            guard case .failure(let failure) = mapped(mapper, record) else { return ["accepted"] }
            return failure.diagnostics.map(\.description)
        }
        XCTAssertEqual(faults(csv(["name": ""], line: 5)), [#"genres.csv:5: column "name" (Genre.name): value "": key field is missing"#])
        XCTAssertEqual(
            faults(SourceRecord(line: 6, content: .csv(header: CSVHeader(names: ["name"]), cells: ["a", "b"]))),
            ["genres.csv:6: row has 2 cells, the header has 1"])
        XCTAssertEqual(faults(csv(["name": "x", "createdAt": "yesterday"], line: 7)), [#"genres.csv:7: column "createdAt": value "yesterday": not a date"#])
        XCTAssertEqual(faults(csv(["name": "x", "ACL": "[]"], line: 8)), [#"genres.csv:8: column "ACL": value "[]": invalid ACL: not a JSON object"#])

        let keyless = ClassMapping(className: "Note", source: "notes.json", key: [], fields: [FieldMapping(name: "text", type: .string)])
        let keylessMapper = ClassMapper(mapping: keyless, manifest: manifest([keyless]))
        guard case .failure(let failure) = mapped(keylessMapper, json(#"{"text": "hi"}"#, line: 3)) else { return XCTFail("accepted") }
        XCTAssertEqual(failure.diagnostics.map(\.description), [#"notes.json:3: column "objectId": Note has no key, so each record needs an objectId"#])
        guard
            case .success(let (draft, _)) = mapped(
                keylessMapper,
                json(#"{"objectId": "n1", "text": "hi", "createdAt": {"__type": "Date", "iso": "2024-01-31T09:30:00.000Z"}}"#))
        else {
            return XCTFail("refused")
        }
        XCTAssertEqual(draft.objectId, "n1")
        XCTAssertNil(draft.key)
        XCTAssertEqual(draft.createdAt, ParseDate(iso: "2024-01-31T09:30:00Z"))
    }

    // MARK: References

    func testPointerByNaturalKey() {
        let book = ClassMapping(
            className: "Book", source: "books.csv", key: ["title"],
            fields: [
                FieldMapping(name: "title", type: .string), FieldMapping(name: "genre", type: .pointer(targetClass: "Genre")),
            ])
        let data = manifest([genreClass, book])
        let mapper = ClassMapper(mapping: book, manifest: data)
        guard case .success(let (_, values)) = mapped(mapper, csv(["title": "Dune", "genre": "Science Fiction"])) else { return XCTFail("refused") }
        XCTAssertEqual(values[1], .pointer(ObjectReference(targetClass: "Genre", identity: .key("Science Fiction"))))
        // The key is hashed where it is read, as the target's key index hashes it.
        guard case .pointer(let reference) = values[1] else { return XCTFail("no pointer") }
        XCTAssertEqual(reference.keyHash, KeyHash(className: "Genre", key: "Science Fiction"))
        guard case .success(let (_, empty)) = mapped(mapper, csv(["title": "Untitled", "genre": ""])) else { return XCTFail("refused") }
        XCTAssertEqual(empty[1], .value(.null))
    }

    func testPointerKeyIsCanonicalText() throws {
        let shelf = ClassMapping(className: "Shelf", source: "shelves.csv", key: ["number"], fields: [FieldMapping(name: "number", type: .number)])
        let field = FieldMapping(name: "shelf", type: .pointer(targetClass: "Shelf"))
        let references = ClassMapper.referenceParser(for: field.type, manifest: manifest([shelf]))
        for text in ["7", "007", "7.0", "0.7e1", " 7 "] {
            XCTAssertEqual(
                try value(field, csv(["shelf": text]), references: references).get(),
                .pointer(ObjectReference(targetClass: "Shelf", identity: .key("7"))), text)
        }
        XCTAssertEqual(
            try value(field, json(#"{"shelf": 7}"#), references: references).get(),
            .pointer(ObjectReference(targetClass: "Shelf", identity: .key("7"))))
        guard case .failure(let error) = value(field, csv(["shelf": "seven"]), references: references) else { return XCTFail("accepted") }
        XCTAssertEqual(error.reason, "not a number")
    }

    /// A chain of classes each keyed by a Pointer to the next, as long as the manifest check
    /// allows: the cell's text is coerced by the last class's Number key, as each link is keyed
    /// by the text that names the next.
    func testAChainOfPointerKeysIsReadThroughToItsEnd() throws {
        let count = ReferenceChains.depthLimit + 1
        let chain = (0..<count).map { index in
            ClassMapping(
                className: "C\(index)", source: "c.csv", key: ["k"],
                fields: [FieldMapping(name: "k", type: index + 1 < count ? .pointer(targetClass: "C\(index + 1)") : .number)])
        }
        XCTAssertEqual(manifest(chain).faults(), [])
        let field = FieldMapping(name: "first", type: .pointer(targetClass: "C0"))
        let references = ClassMapper.referenceParser(for: field.type, manifest: manifest(chain))
        XCTAssertEqual(
            try value(field, csv(["first": "007"]), references: references).get(),
            .pointer(ObjectReference(targetClass: "C0", identity: .key("7"))))
        guard case .failure(let error) = value(field, csv(["first": "seven"]), references: references) else { return XCTFail("accepted") }
        XCTAssertEqual(error.reason, "not a number")
    }

    func testCompositeKeyAsJSONArray() throws {
        let author = ClassMapping(
            className: "Author", source: "authors.csv", key: ["name", "born", "since"],
            fields: [
                FieldMapping(name: "name", type: .string), FieldMapping(name: "born", type: .number), FieldMapping(name: "since", type: .date),
            ])
        let field = FieldMapping(name: "author", type: .pointer(targetClass: "Author"))
        let references = ClassMapper.referenceParser(for: field.type, manifest: manifest([author]))
        let expected = MappedValue.pointer(ObjectReference(targetClass: "Author", identity: .key("Tolkien\u{1F}1892\u{1F}1937-09-21T00:00:00.000Z")))
        XCTAssertEqual(try value(field, csv(["author": #"["Tolkien", 1892, "1937-09-21"]"#]), references: references).get(), expected)
        XCTAssertEqual(try value(field, csv(["author": #"["Tolkien", "1892.0", "1937-09-21T00:00:00Z"]"#]), references: references).get(), expected)
        XCTAssertEqual(try value(field, json(#"{"author": ["Tolkien", 1892, "1937-09-21"]}"#), references: references).get(), expected)
        if case .pointer(let reference) = expected { XCTAssertEqual(reference.sourceText, "Tolkien, 1892, 1937-09-21T00:00:00.000Z") }

        for (text, reason) in [
            ("Tolkien", "Author has a composite key: give its parts as a JSON array"),
            (#"["Tolkien", 1892]"#, "Author's key has 3 parts, got 2"),
            (#"["Tolkien", "soon", "1937-09-21"]"#, "not a number"),
        ] {
            guard case .failure(let error) = value(field, csv(["author": text]), references: references) else { XCTFail("accepted \(text)"); continue }
            XCTAssertEqual(error.reason, reason, text)
        }
    }

    /// A class whose key includes a pointer keys its objects by the pointer's source text
    /// (ClassMapper); a reference to it must build the same key.
    func testPointerToAClassKeyedByAPointer() throws {
        let book = ClassMapping(className: "Book", source: "books.csv", key: ["title"], fields: [FieldMapping(name: "title", type: .string)])
        let edition = ClassMapping(
            className: "Edition", source: "editions.csv", key: ["book", "number"],
            fields: [
                FieldMapping(name: "book", type: .pointer(targetClass: "Book")), FieldMapping(name: "number", type: .number),
            ])
        let data = manifest([book, edition])
        guard case .success(let (draft, _)) = mapped(ClassMapper(mapping: edition, manifest: data), csv(["book": "The Hobbit", "number": "2"])) else {
            return XCTFail("refused")
        }
        XCTAssertEqual(draft.key, "The Hobbit\u{1F}2")
        let field = FieldMapping(name: "edition", type: .pointer(targetClass: "Edition"))
        let references = ClassMapper.referenceParser(for: field.type, manifest: data)
        XCTAssertEqual(
            try value(field, csv(["edition": #"["The Hobbit", 2]"#]), references: references).get(),
            .pointer(ObjectReference(targetClass: "Edition", identity: .key("The Hobbit\u{1F}2"))))
    }

    func testParsePointerJSON() throws {
        let field = FieldMapping(name: "genre", type: .pointer(targetClass: "Genre"))
        let references = ClassMapper.referenceParser(for: field.type, manifest: manifest([genreClass]))
        let expected = MappedValue.pointer(ObjectReference(targetClass: "Genre", identity: .objectId("aB3dE5gH7j")))
        XCTAssertEqual(
            try value(field, csv(["genre": #"{"__type":"Pointer","className":"Genre","objectId":"aB3dE5gH7j"}"#]), references: references).get(), expected)
        XCTAssertEqual(
            try value(field, json(#"{"genre": {"__type": "Pointer", "className": "Genre", "objectId": "aB3dE5gH7j"}}"#), references: references).get(), expected
        )
        guard case .failure(let mismatch) = value(field, csv(["genre": #"{"__type":"Pointer","className":"Author","objectId":"x1"}"#]), references: references)
        else {
            return XCTFail("a pointer to another class was accepted")
        }
        XCTAssertEqual(mismatch.reason, "expected a Pointer<Genre>, got a Pointer<Author>")
        guard case .failure(let notPointer) = value(field, json(#"{"genre": {"__type": "Date", "iso": "2024-01-31"}}"#), references: references) else {
            return XCTFail("a date was accepted as a pointer")
        }
        XCTAssertEqual(notPointer.reason, "expected a Pointer to Genre")
    }

    func testReferenceToAClassOutsideTheDatasetIsAnObjectId() throws {
        let field = FieldMapping(name: "owner", type: .pointer(targetClass: "_User"))
        let references = ClassMapper.referenceParser(for: field.type, manifest: manifest([genreClass]))
        XCTAssertEqual(
            try value(field, csv(["owner": "Ed1nuqPvcm"]), references: references).get(),
            .pointer(ObjectReference(targetClass: "_User", identity: .objectId("Ed1nuqPvcm"))))
    }

    func testRelationSplitIntoReferences() throws {
        let field = FieldMapping(name: "genres", type: .relation(targetClass: "Genre"), split: ";")
        let references = ClassMapper.referenceParser(for: field.type, manifest: manifest([genreClass]))
        let keys = { (names: [String]) in MappedValue.relation(names.map { ObjectReference(targetClass: "Genre", identity: .key($0)) }) }
        XCTAssertEqual(
            try value(field, csv(["genres": "Fantasy; Horror ;Fantasy;;Epic"]), references: references).get(),
            keys(["Fantasy", "Horror", "Epic"]))
        XCTAssertEqual(try value(field, csv(["genres": "Fantasy"]), references: references).get(), keys(["Fantasy"]))
        XCTAssertEqual(
            try value(field, json(#"{"genres": ["Horror", "Horror", "Fantasy"]}"#), references: references).get(),
            keys(["Horror", "Fantasy"]))
        let unsplit = FieldMapping(name: "genres", type: .relation(targetClass: "Genre"))
        XCTAssertEqual(
            try value(unsplit, csv(["genres": #"["Fantasy","Epic","Fantasy"]"#]), references: references).get(),
            keys(["Fantasy", "Epic"]))
        XCTAssertEqual(try value(unsplit, csv(["genres": "Fantasy;Epic"]), references: references).get(), keys(["Fantasy;Epic"]))
        XCTAssertEqual(try value(field, csv(["genres": ""]), references: references).get(), .relation([]), "an empty cell is an empty set of links")
    }
}
