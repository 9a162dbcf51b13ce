/// Splitting cells that hold several values (`split:`), without Foundation's slower paths.
enum CellText {
    /// The parts of `text` between occurrences of `separator`, each trimmed of spaces and tabs.
    static func split(_ text: String, by separator: String) -> [String] {
        if separator.utf8.count == 1, let byte = separator.utf8.first {
            return text.utf8.split(separator: byte, omittingEmptySubsequences: false).map { trimmed(Substring($0)) }
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

    static func trimmed(_ text: Substring) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }) else { return "" }
        let last = text.lastIndex(where: { !isBlank($0) })!
        return String(text[first...last])
    }
}
