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

    /// Bytes that are not UTF-8 in one cell of a generated file, read in chunks of 4 to 40 bytes
    /// (so that characters and faults are cut by the chunks' ends): the rows before it read back,
    /// and the fault names the cell's line and column and the first bad byte's offset.
    @Test func bytesThatAreNotUTF8NameTheirCell() throws {
        var random = SplitMix(seed: 38)
        let faults: [[UInt8]] = [[0xFF], [0x80], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE6, 0x97], [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98]]
        for round in 0..<400 {
            let rows = (0..<(2 + random.below(10))).map { _ in (0..<3).map { _ in (0..<(1 + random.below(3))).map { _ in random.pick(Self.words) }.joined() } }
            let (faultRow, faultColumn) = (random.below(rows.count), random.below(3))
            let fault = random.pick(faults)
            var bytes = Array("c0,c1,c2\n".utf8)
            var offset = 0
            for (index, row) in rows.enumerated() {
                for (column, cell) in row.enumerated() {
                    if column > 0 { bytes.append(UInt8(ascii: ",")) }
                    guard index == faultRow, column == faultColumn else {
                        bytes += Array(cell.utf8)
                        continue
                    }
                    let cut = random.below(cell.count + 1)
                    bytes += Array(cell.prefix(cut).utf8)
                    offset = bytes.count
                    bytes += fault + Array(cell.dropFirst(cut).utf8) + Array("x".utf8)
                }
                bytes.append(UInt8(ascii: "\n"))
            }
            let path = try files.write(bytes: bytes, to: "not-utf8-\(round).csv")
            var reader = try CSVReader(path: path, displayName: "data.csv", chunkSize: 4 + round % 37)
            var read: [[String]] = []
            let error = readerError {
                while let record = try reader.next() {
                    guard case .csv(_, let cells) = record.content else { return }
                    read.append(cells)
                }
            }
            #expect(read == Array(rows.prefix(faultRow)), "round \(round)")
            #expect(error?.location.line == faultRow + 2, "round \(round)")
            #expect(error?.location.column == "c\(faultColumn)", "round \(round)")
            // glibc's iconv, which finds the offset for the message, reads F4 90 80 80 (above
            // U+10FFFF) as a character: that message has no offset.
            let reason = fault.first == 0xF4 ? "invalid UTF-8" : "invalid UTF-8 at byte offset \(offset) (0x\(String(fault[0], radix: 16, uppercase: true)))"
            #expect(error?.reason == reason, "round \(round), fault \(fault), chunks of \(4 + round % 37)")
        }
    }
}
