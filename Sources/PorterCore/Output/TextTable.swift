/// Plain-text tables for summaries: the first columns (text) left-aligned, the others
/// (figures) right-aligned.
package enum TextTable {
    /// `rows[0]` is the header; every row has as many cells. `leftAligned` columns from the first
    /// are left-aligned.
    package static func aligned(_ rows: [[String]], leftAligned: Int = 1) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i < leftAligned
                    ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
