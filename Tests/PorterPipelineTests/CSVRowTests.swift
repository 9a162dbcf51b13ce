import XCTest

@testable import ParseModel
@testable import PorterPipeline

/// The cells an export writes to CSV (CSVRow): quoted exactly when a reader needs it.
final class CSVRowTests: XCTestCase {
    private func line(_ cells: [String?]) -> String {
        var row = CSVRow(bytes: [])
        for cell in cells {
            if let cell { row.cell(cell) } else { row.emptyCell() }
        }
        return String(decoding: row.bytes, as: UTF8.self)
    }

    func testQuotesAreDoubledWhereverTheyAreAndOtherCellsAreLeftAlone() {
        XCTAssertEqual(
            line(["plain", "a,b", "say \"hi\"", "\"", "\"\"x\"", "end\""]),
            #"plain,"a,b","say ""hi""","""","""""x""","end""""#)
    }

    func testLineBreaksAndOuterBlanksAreQuotedAndEmptyCellsAreNull() {
        XCTAssertEqual(
            line(["two\nlines", "cr\r", " lead", "trail\t", nil, "", "é ü"]),
            "\"two\nlines\",\"cr\r\",\" lead\",\"trail\t\",,,é ü")
    }

    /// The bytes that need quotes are found at every position of a cell, eight at a time or
    /// one by one, and bytes that only resemble them (in UTF-8 sequences) need none.
    func testEveryPositionOfAQuotedByteIsFound() {
        for special in ["\n", "\r", "\"", ","] {
            for length in 1...20 {
                for position in 0..<length {
                    var cell = String(repeating: "x", count: length)
                    cell.replaceSubrange(cell.index(cell.startIndex, offsetBy: position)...cell.index(cell.startIndex, offsetBy: position), with: special)
                    let expected = "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    XCTAssertEqual(line([cell]), expected, "\(special.debugDescription) at \(position) of \(length)")
                }
            }
        }
        let noQuotes = "Ĭ̌ĭ-é日本\u{2C00}\u{0A00}\u{220C}+.;:x"
        XCTAssertEqual(line([noQuotes]), noQuotes)
    }

    func testALongQuotedCellIsCopiedWhole() {
        let text = String(repeating: "word \"quoted\", ", count: 2_000)
        let expected = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        XCTAssertEqual(line([text]), expected)
    }
}
