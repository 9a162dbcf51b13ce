import Testing

@testable import ParseModel

/// `String.isValidUTF8` against the standard library's validation of the same bytes.
@Suite struct ValidUTF8Tests {
    private static func agrees(_ bytes: [UInt8]) -> Bool {
        let expected = String(validating: bytes, as: UTF8.self) != nil
        return bytes.withUnsafeBytes { String.isValidUTF8($0) } == expected
    }

    /// Every sequence of one and two bytes, each after 0 to 9 ASCII bytes (the eight-byte steps).
    @Test func everyShortSequence() {
        var failures: [[UInt8]] = []
        for first in 0...255 {
            for second in -1...255 {
                let tail = second < 0 ? [UInt8(first)] : [UInt8(first), UInt8(second)]
                for lead in 0...9 where !Self.agrees(Array(repeating: UInt8(ascii: "a"), count: lead) + tail) {
                    failures.append(tail)
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }

    /// Random text near the edges of the well-formed ranges: valid characters of every length,
    /// truncated and overlong ones, surrogates, bytes above F4, between ASCII runs.
    @Test func randomSequences() {
        var state: UInt64 = 37
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let edges: [UInt8] = [
            0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        let characters = ["é", "日", "😀", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}"].map { Array($0.utf8) }
        var failures: [[UInt8]] = []
        for _ in 0..<200_000 {
            var bytes: [UInt8] = []
            for _ in 0..<(1 + next(6)) {
                switch next(4) {
                case 0: bytes += Array(repeating: UInt8(ascii: "x"), count: next(12))
                case 1: bytes += characters[next(characters.count)]
                case 2: bytes.append(edges[next(edges.count)])
                default: bytes += characters[next(characters.count)].prefix(1 + next(3)).map { next(5) == 0 ? edges[next(edges.count)] : $0 }
                }
            }
            if !Self.agrees(bytes) { failures.append(bytes) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
    }
}
