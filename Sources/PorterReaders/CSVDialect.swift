/// What a CSV file's first line says about the byte between its cells: a `sep=X` line (as
/// spreadsheet programs write it), or the header line itself, from which the delimiter is sniffed.
enum CSVDialect {
    /// The delimiters sniffing chooses from, in the order that settles a tie.
    static let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: "|")]

    /// Whether `byte` can separate cells (it is not the quote or a line break).
    static func isUsable(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\r") && byte != UInt8(ascii: "\n")
    }

    /// When `bytes` start with a line `sep=X` (case-insensitive `sep`, one usable byte X, then a
    /// line break or the end): X, and the line's length with its line break.
    static func separatorLine(_ bytes: UnsafeRawBufferPointer) -> (delimiter: UInt8, length: Int)? {
        guard bytes.count >= 5, bytes[0] | 0x20 == UInt8(ascii: "s"), bytes[1] | 0x20 == UInt8(ascii: "e"),
            bytes[2] | 0x20 == UInt8(ascii: "p"), bytes[3] == UInt8(ascii: "="), isUsable(bytes[4])
        else { return nil }
        var length = 5
        if length < bytes.count, bytes[length] == UInt8(ascii: "\r") { length += 1 }
        if length < bytes.count, bytes[length] == UInt8(ascii: "\n") { length += 1 }
        guard length == bytes.count || bytes[length - 1] == UInt8(ascii: "\n") || bytes[length - 1] == UInt8(ascii: "\r") else { return nil }
        return (bytes[4], length)
    }

    /// The candidate that occurs most often in the first line of `bytes`, counting only
    /// outside quotes; `,` when none occurs.
    static func sniff(_ bytes: UnsafeRawBufferPointer) -> UInt8 {
        var counts = [Int](repeating: 0, count: candidates.count)
        var quoted = false
        for byte in bytes {
            if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if !quoted, byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                break
            } else if !quoted, let index = candidates.firstIndex(of: byte) {
                counts[index] += 1
            }
        }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] || (counts[$0] == counts[$1] && $0 > $1) }), counts[best] > 0 else {
            return candidates[0]
        }
        return candidates[best]
    }
}
