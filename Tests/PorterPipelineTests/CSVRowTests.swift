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
        XCTAssertEqual(line(["plain", "a,b", "say \"hi\"", "\"", "\"\"x\"", "end\""]),
                       #"plain,"a,b","say ""hi""","""","""""x""","end""""#)
    }

    func testLineBreaksAndOuterBlanksAreQuotedAndEmptyCellsAreNull() {
        XCTAssertEqual(line(["two\nlines", "cr\r", " lead", "trail\t", nil, "", "é ü"]),
                       "\"two\nlines\",\"cr\r\",\" lead\",\"trail\t\",,,é ü")
    }

    func testALongQuotedCellIsCopiedWhole() {
        let text = String(repeating: "word \"quoted\", ", count: 2_000)
        let expected = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        XCTAssertEqual(line([text]), expected)
    }
}
