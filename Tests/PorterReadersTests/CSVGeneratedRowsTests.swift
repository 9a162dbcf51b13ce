import Foundation
import ParseModel
import PorterReaders
import PorterTestSupport
import Testing

/// Generated CSV files read back against the cells they were written from: blanks around values,
/// quoted fields with delimiters, doubled quotes and line breaks, empty and non-ASCII cells, and
/// cells longer than the reader's blocks and chunks. Records are held as a reader's caller holds
/// them (a window of recent ones, a few for good) while later rows are read into reused memory,
/// and every held record is read again before it is let go.
@Suite struct CSVGeneratedRowsTests {
    let files = TemporaryFiles()

    private static let words = ["a", "Zürich", "book", "42", "x-y", "日本語", "😀", "O'Neil", "3.5", "—", "é"]

    /// A cell's text and how the file spells it.
    private static func cell(_ random: inout SplitMix, delimiter: Character) -> (text: String, written: String) {
        let blanks = delimiter == "\t" ? [" ", "  "] : [" ", "\t", " \t "]
        func words(_ count: Int) -> String { (0..<count).map { _ in random.pick(Self.words) }.joined(separator: " ") }
        switch random.below(12) {
        case 0:
            return ("", "")
        case 1, 2:
            let text = random.pick(blanks) + words(1 + random.below(3)) + (random.below(2) == 0 ? random.pick(blanks) : "")
            return (text, text)
        case 3:
            let text = random.pick(blanks)
            return (text, text)
        case 4, 5:
            let parts = [words(1 + random.below(2)), "\"", String(delimiter), "\n", "\r\n", "\r", random.pick(blanks), "\"\""]
            let text = (0..<(1 + random.below(6))).map { _ in random.pick(parts) }.joined()
            return (text, "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
        case 6:
            return ("", "\"\"")
        case 7 where random.below(30) == 0:
            let text = String(repeating: random.pick(["x", "é", "日本 "]), count: 4_000 + random.below(30_000))
            return random.below(2) == 0 ? (text, text) : (text + "\n", "\"" + text + "\n\"")
        default:
            let text = words(1 + random.below(5))
            return (text, text)
        }
    }

    @Test func generatedRowsReadBackAsWritten() throws {
        var random = SplitMix(seed: 37)
        for round in 0..<40 {
            let delimiter = random.pick([",", ";", "\t"] as [Character])
            let columns = 2 + random.below(6)
            let lineBreak = random.pick(["\n", "\r\n"])
            var text = random.below(4) == 0 ? "\u{FEFF}" : ""
            text += (0..<columns).map { "c\($0)" }.joined(separator: String(delimiter)) + lineBreak
            var expected: [(line: Int, cells: [String])] = []
            var line = 2
            for _ in 0..<(50 + random.below(600)) {
                let cells = (0..<columns).map { _ in Self.cell(&random, delimiter: delimiter) }
                let written = cells.map(\.written).joined(separator: String(delimiter))
                expected.append((line, cells.map(\.text)))
                text += written + lineBreak
                line += written.utf8.filter { $0 == UInt8(ascii: "\n") }.count + 1
            }
            // The last row without its line break, at times ("\r\n" is one Character).
            if random.below(2) == 0 { text.removeLast() }
            let chunkSize = random.pick([5, 17, 64, 1_000, 1 << 16])
            let path = try files.write(text, to: "generated-\(round).csv")
            var reader = try CSVReader(
                path: path, displayName: "generated.csv", delimiter: delimiter.asciiValue!, chunkSize: chunkSize)
            #expect(reader.header.names == (0..<columns).map { "c\($0)" })

            func check(_ record: SourceRecord, _ index: Int) {
                guard case .csv(_, let cells) = record.content else {
                    Issue.record("round \(round), row \(index): not CSV")
                    return
                }
                #expect(record.line == expected[index].line, "round \(round), row \(index)")
                #expect(cells == expected[index].cells, "round \(round), row \(index), line \(expected[index].line)")
                #expect(record.malformation == nil)
            }
            var window: [(SourceRecord, Int)] = []
            var keptForGood: [(SourceRecord, Int)] = []
            var index = 0
            while let record = try reader.next() {
                try #require(index < expected.count, "round \(round): more rows than written")
                check(record, index)
                window.append((record, index))
                if index % 97 == 0 { keptForGood.append((record, index)) }
                if window.count > 300 {
                    let (old, oldIndex) = window.removeFirst()
                    check(old, oldIndex)
                }
                index += 1
            }
            #expect(index == expected.count, "round \(round)")
            for (record, recordIndex) in window + keptForGood { check(record, recordIndex) }
        }
    }
}
