import XCTest

@testable import ParseModel

/// ISO 8601 parsing and formatting of `ParseDate`, and `DatePattern`.
final class ParseDateTests: XCTestCase {
    /// Asserts that `text` parses and formats as `iso` (UTC, milliseconds).
    private func assertISO(_ text: String, _ iso: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let date = ParseDate(iso: text) else { return XCTFail("\"\(text)\" did not parse", file: file, line: line) }
        XCTAssertEqual(date.iso, iso, "\"\(text)\"", file: file, line: line)
        // The formatted text reads back as the same instant.
        XCTAssertEqual(ParseDate(iso: date.iso), date, "reparse of \(date.iso)", file: file, line: line)
    }

    private func assertNotISO(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(ParseDate(iso: text), "\"\(text)\" should not parse", file: file, line: line)
    }

    private func assertPattern(_ pattern: String, _ text: String, _ iso: String?, file: StaticString = #filePath, line: UInt = #line) {
        guard let parser = DatePattern(pattern) else { return XCTFail("pattern \(pattern) was refused", file: file, line: line) }
        XCTAssertEqual(parser.parse(text)?.iso, iso, "\(pattern) on \"\(text)\"", file: file, line: line)
    }

    // MARK: ISO 8601

    func testFormatIsUTCWithMilliseconds() {
        XCTAssertEqual(ParseDate(millisecondsSince1970: 0).iso, "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(ParseDate(millisecondsSince1970: 1_706_693_400_000).iso, "2024-01-31T09:30:00.000Z")
        XCTAssertEqual(ParseDate(millisecondsSince1970: 1_641_039_825_678).description, "2022-01-01T12:23:45.678Z")
    }

    func testFullRoundTrip() {
        assertISO("2022-01-01T12:23:45.678Z", "2022-01-01T12:23:45.678Z")
        XCTAssertEqual(ParseDate(iso: "2022-01-01T12:23:45.678Z")?.millisecondsSince1970, 1_641_039_825_678)
    }

    func testDateOnlyIsUTCMidnight() {
        assertISO("2024-01-31", "2024-01-31T00:00:00.000Z")
        XCTAssertEqual(ParseDate(iso: "2024-01-31")?.millisecondsSince1970, 1_706_659_200_000)
        XCTAssertEqual(ParseDate(iso: "2024-01-31"), ParseDate(year: 2024, month: 1, day: 31))
    }

    func testTimeWithoutSecondsOrZone() {
        assertISO("2024-01-31T09:30", "2024-01-31T09:30:00.000Z")
        assertISO("2024-01-31T09:30:15", "2024-01-31T09:30:15.000Z")
        assertISO("2024-01-31 09:30:15", "2024-01-31T09:30:15.000Z")
    }

    func testOffsets() {
        assertISO("2024-01-31T09:30:00Z", "2024-01-31T09:30:00.000Z")
        assertISO("2024-01-31T09:30:00z", "2024-01-31T09:30:00.000Z")
        assertISO("2024-01-31T09:30:00+02:00", "2024-01-31T07:30:00.000Z")
        assertISO("2024-01-31T09:30:00-0530", "2024-01-31T15:00:00.000Z")
        assertISO("2024-01-31T09:30:00-05:30", "2024-01-31T15:00:00.000Z")
        assertISO("2024-01-31T09:30:00+01", "2024-01-31T08:30:00.000Z")
        // Offsets move across day, month and year boundaries.
        assertISO("2024-01-01T01:00:00+02:00", "2023-12-31T23:00:00.000Z")
        assertISO("2024-02-28T23:30:00-01:00", "2024-02-29T00:30:00.000Z")
    }

    func testFractionalSeconds() {
        assertISO("2024-01-31T09:30:00.5Z", "2024-01-31T09:30:00.500Z")
        assertISO("2024-01-31T09:30:00.123Z", "2024-01-31T09:30:00.123Z")
        assertISO("2024-01-31T09:30:00.123456Z", "2024-01-31T09:30:00.123Z")
        assertISO("2024-01-31T09:30:00.12+01:00", "2024-01-31T08:30:00.120Z")
        assertISO("2024-01-31T09:30:00,25Z", "2024-01-31T09:30:00.250Z")
        // Digits past milliseconds are cut, not rounded.
        assertISO("2024-01-31T09:30:00.9999Z", "2024-01-31T09:30:00.999Z")
        assertNotISO("2024-01-31T09:30:00.Z")
    }

    func testLeapDays() {
        assertISO("2024-02-29", "2024-02-29T00:00:00.000Z")
        assertISO("2000-02-29T12:00:00Z", "2000-02-29T12:00:00.000Z")
        assertNotISO("2023-02-29")
        assertNotISO("1900-02-29")
        assertNotISO("2024-02-30")
        XCTAssertNil(ParseDate(year: 2023, month: 2, day: 29))
    }

    func testInvalidDates() {
        assertNotISO("2024-13-01")
        assertNotISO("2024-00-10")
        assertNotISO("2024-04-31")
        assertNotISO("2024-01-00")
        assertNotISO("2024-01-31T24:00:00Z")
        assertNotISO("2024-01-31T09:60:00Z")
        assertNotISO("2024-01-31T09:30:00+24:00")
        assertNotISO("2024-1-31")
        assertNotISO("24-01-31")
        assertNotISO("2024/01/31")
        assertNotISO("2024-01-31T09")
        assertNotISO("2024-01-31T09:30:00Zjunk")
        assertNotISO("2024-01-31 ")
        assertNotISO("")
        assertNotISO("31.01.2024")
    }

    func testDatesBefore1970() {
        assertISO("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(ParseDate(iso: "1969-12-31T23:59:59.999Z")?.millisecondsSince1970, -1)
        XCTAssertEqual(ParseDate(millisecondsSince1970: -1).iso, "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(ParseDate(millisecondsSince1970: -86_400_000).iso, "1969-12-31T00:00:00.000Z")
        XCTAssertEqual(ParseDate(millisecondsSince1970: -86_400_001).iso, "1969-12-30T23:59:59.999Z")
        assertISO("1900-01-01", "1900-01-01T00:00:00.000Z")
        XCTAssertEqual(ParseDate(iso: "1900-01-01")?.millisecondsSince1970, -2_208_988_800_000)
        assertISO("1815-12-10T08:00:00+01:00", "1815-12-10T07:00:00.000Z")
        assertISO("0001-01-01", "0001-01-01T00:00:00.000Z")
    }

    func testYearsOutsideFourDigitsAreWrittenAsTheyAre() {
        // 10000-01-01 and the day before year 0's first; what `iso` writes, not what it reads.
        XCTAssertEqual(ParseDate(millisecondsSince1970: 253_402_300_800_000).iso, "10000-01-01T00:00:00.000Z")
        XCTAssertEqual(ParseDate(millisecondsSince1970: -62_167_219_200_001).iso, "-1-12-31T23:59:59.999Z")
        XCTAssertEqual(ParseDate(millisecondsSince1970: -62_167_219_200_000).iso, "0000-01-01T00:00:00.000Z")
    }

    func testTheCanonicalFormIsReadFromItsBytes() {
        func read(_ text: String) -> ParseDate? {
            Array(text.utf8).withUnsafeBytes { ParseDate(canonicalUTF8: $0) }
        }
        XCTAssertEqual(read("2024-01-31T09:30:00.000Z")?.millisecondsSince1970, 1_706_693_400_000)
        XCTAssertNil(read("2024-01-31T09:30:00.000"), "not 24 bytes")
        XCTAssertNil(read("2024-01-31 09:30:00.000Z"), "a space for the T: init(iso:) reads it")
        XCTAssertNil(read("2024-02-30T09:30:00.000Z"), "no such day")
        XCTAssertNil(read("2024-01-31T09:3x:00.000Z"))
    }

    func testOrdering() {
        let dates = ["2024-01-31", "1969-07-20T20:17:40Z", "2024-01-30T23:59:59.999Z"].compactMap { ParseDate(iso: $0) }
        XCTAssertEqual(dates.sorted().map(\.iso), ["1969-07-20T20:17:40.000Z", "2024-01-30T23:59:59.999Z", "2024-01-31T00:00:00.000Z"])
    }

    // MARK: DatePattern

    func testDayMonthYear() {
        assertPattern("dd.MM.yyyy", "31.01.2024", "2024-01-31T00:00:00.000Z")
        assertPattern("dd.MM.yyyy", "29.02.2024", "2024-02-29T00:00:00.000Z")
        assertPattern("dd.MM.yyyy", "29.02.2023", nil)
        assertPattern("dd.MM.yyyy", "32.01.2024", nil)
        assertPattern("dd.MM.yyyy", "31.13.2024", nil)
        assertPattern("dd.MM.yyyy", "1.1.2024", nil)
        assertPattern("dd.MM.yyyy", "31/01/2024", nil)
        assertPattern("dd.MM.yyyy", "2024-01-31", nil)
        assertPattern("dd.MM.yyyy", "31.01.2024 ", nil)
        assertPattern("d.M.yyyy", "1.2.2024", "2024-02-01T00:00:00.000Z")
        assertPattern("d.M.yyyy", "10.12.2024", "2024-12-10T00:00:00.000Z")
    }

    func testTwoDigitYears() {
        assertPattern("MM/dd/yy", "01/31/24", "2024-01-31T00:00:00.000Z")
        assertPattern("MM/dd/yy", "12/31/69", "2069-12-31T00:00:00.000Z")
        assertPattern("MM/dd/yy", "01/01/70", "1970-01-01T00:00:00.000Z")
        assertPattern("MM/dd/yy", "07/04/99", "1999-07-04T00:00:00.000Z")
        assertPattern("MM/dd/yy", "01/31/2024", nil)
        assertPattern("MM/dd/yy", "31/01/24", nil)
    }

    func testDateAndTime() {
        assertPattern("yyyy-MM-dd HH:mm:ss", "2024-01-31 09:30:15", "2024-01-31T09:30:15.000Z")
        assertPattern("yyyy-MM-dd HH:mm:ss", "1965-08-01 23:59:59", "1965-08-01T23:59:59.000Z")
        assertPattern("yyyy-MM-dd HH:mm:ss", "2024-01-31T09:30:15", nil)
        assertPattern("yyyy-MM-dd HH:mm:ss", "2024-01-31 09:30", nil)
        assertPattern("yyyy-MM-dd HH:mm:ss", "2024-01-31 25:30:15", nil)
        assertPattern("yyyy-MM-dd HH:mm:ss.SSS", "2024-01-31 09:30:15.042", "2024-01-31T09:30:15.042Z")
    }

    func testQuotedLiteralAndOffset() {
        let pattern = "yyyy-MM-dd'T'HH:mm:ssXXX"
        assertPattern(pattern, "2024-01-31T09:30:15+02:00", "2024-01-31T07:30:15.000Z")
        assertPattern(pattern, "2024-01-31T09:30:15-05:30", "2024-01-31T15:00:15.000Z")
        assertPattern(pattern, "2024-01-31T09:30:15Z", "2024-01-31T09:30:15.000Z")
        assertPattern(pattern, "2024-01-31T09:30:15", nil)
        assertPattern(pattern, "2024-01-31 09:30:15+02:00", nil)
        assertPattern(pattern, "2024-01-31T09:30:15+0200x", nil)
    }

    func testUnsupportedPatterns() {
        XCTAssertNil(DatePattern("dd.MM"), "a pattern needs a year")
        XCTAssertNil(DatePattern("yyyy-QQ-dd"), "unknown letters are refused")
        XCTAssertNil(DatePattern("yyy-MM-dd"), "three ys are neither yy nor yyyy")
        XCTAssertNil(DatePattern("yyyy-MM-dd'T"), "an unclosed quote is refused")
        XCTAssertNotNil(DatePattern("yyyy"))
        assertPattern("yyyy", "2024", "2024-01-01T00:00:00.000Z")
        XCTAssertNil(DatePattern("yyyy-MM-dd hh:mm"), "a 12-hour clock needs AM/PM")
        XCTAssertNil(DatePattern("yyyy-MM-dd HH:mm a"), "AM/PM needs a 12-hour clock")
        XCTAssertNil(DatePattern("yyyy-MM-dd MMMMM"), "five Ms are no month")
        XCTAssertNil(DatePattern("unix-s"))
    }

    func testMonthNames() {
        assertPattern("dd MMM yyyy", "01 Mar 2024", "2024-03-01T00:00:00.000Z")
        assertPattern("dd MMM yyyy", "15 JAN 2024", "2024-01-15T00:00:00.000Z")
        assertPattern("dd MMM yyyy", "29 feb 2024", "2024-02-29T00:00:00.000Z")
        assertPattern("dd MMM yyyy", "29 feb 2023", nil)
        assertPattern("dd MMM yyyy", "01 March 2024", nil)
        assertPattern("dd MMM yyyy", "01 Mrz 2024", nil)
        assertPattern("MMMM d, yyyy", "September 7, 2023", "2023-09-07T00:00:00.000Z")
        assertPattern("MMMM d, yyyy", "MAY 31, 2024", "2024-05-31T00:00:00.000Z")
        assertPattern("MMMM d, yyyy", "Sep 7, 2023", nil)
        assertPattern("dd-MMM-yy", "31-Dec-99", "1999-12-31T00:00:00.000Z")
    }

    func testTwelveHourTimes() {
        let pattern = "MM/dd/yyyy hh:mm a"
        assertPattern(pattern, "03/01/2024 12:00 AM", "2024-03-01T00:00:00.000Z")
        assertPattern(pattern, "03/01/2024 12:30 pm", "2024-03-01T12:30:00.000Z")
        assertPattern(pattern, "03/01/2024 01:15 Am", "2024-03-01T01:15:00.000Z")
        assertPattern(pattern, "12/31/2023 11:59 PM", "2023-12-31T23:59:00.000Z")
        assertPattern(pattern, "03/01/2024 13:30 PM", nil)
        assertPattern(pattern, "03/01/2024 00:30 AM", nil)
        assertPattern(pattern, "03/01/2024 10:30", nil)
        assertPattern(pattern, "03/01/2024 10:30 XM", nil)
        assertPattern("yyyy-MM-dd h:mma", "2024-03-01 9:05pm", "2024-03-01T21:05:00.000Z")
    }

    func testUnixTimes() {
        assertPattern("unix", "1709251200", "2024-03-01T00:00:00.000Z")
        assertPattern("unix", "1709251200.5", "2024-03-01T00:00:00.500Z")
        assertPattern("unix", "1709251200.1239", "2024-03-01T00:00:00.123Z")
        assertPattern("unix", "0", "1970-01-01T00:00:00.000Z")
        assertPattern("unix", "-86400", "1969-12-31T00:00:00.000Z")
        assertPattern("unix", "-1.5", "1969-12-31T23:59:58.500Z")
        assertPattern("unix-ms", "1709251200123", "2024-03-01T00:00:00.123Z")
        assertPattern("unix-ms", "-1", "1969-12-31T23:59:59.999Z")
        for garbage in ["", "-", "12a", "1.", ".5", "1e9", " 1", "+1", "1709251200 "] {
            assertPattern("unix", garbage, nil)
        }
        assertPattern("unix", "253402300800", nil)
        assertPattern("unix", "1234567890123456", nil)
        assertPattern("unix-ms", "253402300799999", "9999-12-31T23:59:59.999Z")
    }

    func testCommonFormatsForAValue() {
        XCTAssertEqual(DatePattern.commonFormats(parsing: "31/03/2024").prefix(2), ["dd/MM/yyyy", "d/M/yyyy"])
        XCTAssertEqual(Array(DatePattern.commonFormats(parsing: "01/03/2024").prefix(2)), ["dd/MM/yyyy", "MM/dd/yyyy"])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "01.03.2024").first, "dd.MM.yyyy")
        XCTAssertEqual(DatePattern.commonFormats(parsing: "1 Mar 2024"), ["d MMM yyyy"])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "03/01/2024 1:30 PM"), ["MM/dd/yyyy h:mm a", "M/d/yyyy h:mm a"])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "1709251200"), ["unix"])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "1709251200123"), ["unix-ms"])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "20240301"), ["yyyyMMdd"], "a yyyyMMdd day is no Unix time of 1970")
        XCTAssertEqual(DatePattern.commonFormats(parsing: "20240301093000"), ["yyyyMMddHHmmss"])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "202403"), ["yyyyMM"])
        // Numbers alone are dates only when plausible: no 0 or 1 (1970), no code of 8 digits in year 1234.
        XCTAssertEqual(DatePattern.commonFormats(parsing: "0"), [])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "1"), [])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "12340101"), [])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "20241301"), [], "no month 13")
        XCTAssertEqual(DatePattern("yyyyMMdd")?.parse("20250906")?.iso, "2025-09-06T00:00:00.000Z")
        XCTAssertEqual(DatePattern("yyyyMMddHHmmss")?.parse("20250906073005")?.iso, "2025-09-06T07:30:05.000Z")
        XCTAssertNil(DatePattern("yyyyMMdd")?.parse("2025096"), "a digit short")
        XCTAssertEqual(DatePattern.commonFormats.filter { DatePattern($0)!.isDigitsOnly }, ["unix", "unix-ms", "yyyyMMdd", "yyyyMMddHHmmss", "yyyyMM"])
        XCTAssertEqual(DatePattern.commonFormats(parsing: "soon"), [])
        XCTAssertTrue(DatePattern.commonFormats.allSatisfy { DatePattern($0) != nil })
    }
}
