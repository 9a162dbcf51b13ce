import Foundation
import ParseModel
import PorterReaders
import PorterTestSupport
import Testing

/// Bad input never crashes a reader: thousands of mutated files (flipped bytes, stray quotes,
/// line breaks, NULs, invalid UTF-8, truncation), generated from a fixed seed, each end in
/// records or in one `ReaderError` with a sane location.
@Suite struct MalformedInputTests {
    static let nasty: [[UInt8]] = [[34], [10], [13, 10], [13], [0], [0xFF], [0xC3], [0xE2, 0x82], [44], [9], [123], [91], [93], [125], [92], [58]]

    func mutate(_ input: [UInt8], _ random: inout SplitMix) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + random.below(4)) {
            guard !bytes.isEmpty else { break }
            let at = random.below(bytes.count)
            switch random.below(4) {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.insert(contentsOf: Self.nasty[random.below(Self.nasty.count)], at: at)
            case 2: bytes.remove(at: at)
            default: bytes.removeSubrange(at...)
            }
        }
        return bytes
    }

    /// Reads the whole file: records with non-decreasing start lines (a lone CR ends a row
    /// within a line), or one fault with a line.
    func check(_ open: () throws(ReaderError) -> any RecordReader, lineCount: Int) {
        do {
            var reader = try open()
            var previous = 0
            while let record = try reader.next() {
                #expect(record.line >= max(previous, 1) && record.line <= lineCount + 1)
                previous = record.line
            }
        } catch {
            #expect(error.location.line >= 0 && error.location.line <= lineCount + 1, "\(error)")
            #expect(!error.reason.isEmpty)
        }
    }

    @Test func mutatedCSVNeverCrashes() throws {
        let files = TemporaryFiles()
        let original = Array(
            #"""
            title,year,notes
            "Dune",1965,"spice, ""worms""
            and sand"
            Emma,1815,
            Ulysses,1922,"stream ""of"" consciousness"

            """#.utf8)
        var random = SplitMix(seed: 42)
        for round in 0..<1500 {
            let bytes = mutate(original, &random)
            let path = try files.write(bytes: bytes, to: "m\(round).csv")
            let lines = bytes.filter { $0 == 10 }.count + 1
            check({ () throws(ReaderError) -> any RecordReader in try CSVReader(path: path, displayName: "m.csv", chunkSize: 16) }, lineCount: lines)
        }
    }

    @Test func mutatedJSONNeverCrashes() throws {
        let files = TemporaryFiles()
        let array = Array(
            #"""
            {"results": [
              {"title": "Dune", "year": 1965, "tags": ["a", "b"], "at": {"__type": "Date", "iso": "2024-01-31T09:30:00.000Z"}},
              {"title": "Emma \u00e9", "year": 1.5e3, "nested": {"deep": [1, [2, [3]]]}}
            ]}
            """#.utf8)
        let lines = Array("{\"a\": 1}\n{\"b\": [true, false, null]}\n{\"c\": \"\\ud83d\\ude00\"}\n".utf8)
        var random = SplitMix(seed: 7)
        for round in 0..<1500 {
            for (layout, source) in [(JSONLayout.automatic, array), (.lines, lines)] {
                let bytes = mutate(source, &random)
                let path = try files.write(bytes: bytes, to: "m\(round).json")
                let count = bytes.filter { $0 == 10 }.count + 1
                check(
                    { () throws(ReaderError) -> any RecordReader in
                        try JSONRecordReader(path: path, displayName: "m.json", layout: layout, chunkSize: 8)
                    }, lineCount: count)
                // The one-shot parser agrees with itself: it returns a value or a syntax error inside the text.
                do {
                    _ = try JSONParser.parse(bytes: bytes)
                } catch {
                    #expect(error.line >= 1 && error.line <= count)
                }
            }
        }
    }
}
