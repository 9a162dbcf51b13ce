import CLibCSV
import ParseModel

/// The functions libcsv calls back. C function pointers cannot capture context, so the
/// `CSVRowCollector` being filled travels through libcsv's `data` pointer.
enum CSVCallbacks {
    /// Receives each field's bytes (not NUL-terminated) when the field ends.
    static let field: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Void = {
        bytes, count, context in
        guard let context else { return }
        context.assumingMemoryBound(to: CSVRowCollector.self).pointee.appendCell(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Called when a row ends (at its line break, or at the end of the file).
    static let row: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        context.assumingMemoryBound(to: CSVRowCollector.self).pointee.completeRow()
    }

    /// Treats no byte as padding, so spaces around unquoted values are kept (RFC 4180);
    /// libcsv's default would trim spaces and tabs.
    static let isSpace: @convention(c) (UInt8) -> Int32 = { _ in 0 }
}

/// The rows libcsv delivers through `CSVCallbacks`, and the line being fed.
struct CSVRowCollector {
    /// The physical line being fed to libcsv.
    var line = 1
    /// The line on which the row under way started.
    var rowStartLine = 1
    var completedRows: [(row: CSVRowStream.Row, invalidCell: Int?)] = []
    /// Where the rows' cells are written (blocks reused from row to row), and where each cell of
    /// the row under way ends (a buffer reused too).
    private var cells = CSVRowWriter()
    private var ends: [Int] = []
    private var firstInvalidCell: Int?
    /// Whether each cell is checked for UTF-8: once the input has held bytes that are not (before,
    /// `CSVRowStream` has checked the text a chunk at a time).
    var checksCells = false
    private var malformation: String?

    /// Cells of the row under way delivered so far.
    var cellCount: Int { ends.count }

    /// Adds a field of the row under way; bytes that are not UTF-8 give an empty cell and
    /// fail the row.
    mutating func appendCell(_ cell: UnsafeRawBufferPointer) {
        if !checksCells || String.isValidUTF8(cell) {
            cells.append(cell)
        } else if firstInvalidCell == nil {
            firstInvalidCell = ends.count
        }
        ends.append(cells.rowLength)
    }

    /// Marks the row under way as not well-formed, for `reason` unless it already is.
    mutating func markMalformed(_ reason: String) {
        if malformation == nil { malformation = reason }
    }

    /// Ends the row under way. A next row in the same line of input starts on that line
    /// (after a lone CR); otherwise `CSVRowStream` moves its start to the line it begins on.
    mutating func completeRow() {
        let row = cells.completeRow(ends: ends)
        completedRows.append((CSVRowStream.Row(line: rowStartLine, cells: row, malformation: malformation), firstInvalidCell))
        ends.removeAll(keepingCapacity: true)
        firstInvalidCell = nil
        malformation = nil
        rowStartLine = line
    }
}
