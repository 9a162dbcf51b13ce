#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splitting cells that hold several values (`split:`), without Foundation's slower paths.
enum CellText {
    /// The parts of `text` between occurrences of `separator`, each trimmed of spaces and tabs.
    static func split(_ text: String, by separator: String) -> [String] {
        if separator.utf8.count == 1, let byte = separator.utf8.first {
            var text = text
            return text.withUTF8 { split($0, by: byte) }
        }
        var parts: [String] = []
        var rest = Substring(text)
        while let range = rest.range(of: separator) {
            parts.append(trimmed(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(trimmed(rest))
        return parts
    }

    /// ``split(_:by:)`` on the bytes of valid UTF-8 text, at an ASCII byte (a one-byte separator
    /// is one): each part is found with `memchr` and trimmed byte by byte. Called per cell of
    /// every row of a split column, where splitting by `Character` cost a tenth of a validate.
    static func split(_ text: UnsafeBufferPointer<UInt8>, by separator: UInt8) -> [String] {
        var parts: [String] = []
        forEachPart(of: text, by: separator) { parts.append(String(decoding: $0, as: UTF8.self)) }
        return parts
    }

    /// The UTF-8 of the parts ``split(_:by:)`` gives, handed to `body` one at a time instead of
    /// in an array, without a `String` for each.
    static func forEachPart<Failure: Error>(
        of text: UnsafeBufferPointer<UInt8>, by separator: UInt8, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        guard let base = text.baseAddress else { return try body(text) }
        var start = 0
        while true {
            let rest = text.count - start
            let found = memchr(base + start, Int32(separator), rest)
            let end = found.map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? text.count
            try trimmed(UnsafeBufferPointer(rebasing: text[start..<end]), body)
            guard found != nil else { return }
            start = end + 1
        }
    }

    /// Hands `body` a part without the spaces and tabs around it. A blank that starts a grapheme
    /// cluster with the non-ASCII character after it (a combining mark), or ends one with the
    /// character before it (a prepended mark), is not trimmed as a `Character` is not: such
    /// parts take the `Character` path.
    private static func trimmed<Failure: Error>(
        _ part: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        var first = 0, end = part.count
        while first < end, isBlank(part[first]) { first += 1 }
        while end > first, isBlank(part[end - 1]) { end -= 1 }
        let mayJoin =
            (first > 0 && first < part.count && part[first] >= 0x80)
            || (end < part.count && end > 0 && part[end - 1] >= 0x80)
        guard !mayJoin else {
            return try Array(trimmed(Substring(String(decoding: part, as: UTF8.self))).utf8).withUnsafeBufferPointer(body)
        }
        try body(UnsafeBufferPointer(rebasing: part[first..<end]))
    }

    static func trimmed(_ text: Substring) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }) else { return "" }
        let last = text.lastIndex(where: { !isBlank($0) })!
        return String(text[first...last])
    }
}
