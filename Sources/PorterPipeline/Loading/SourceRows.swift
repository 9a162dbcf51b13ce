/// One numbering for the rows of a class (or join relation) read from several files, one after
/// another: a file's rows are numbered after the previous file's last row, so that a row
/// number (``RowID``, ``KeyIndex``) names one row of one file. With one file, a row's number
/// is its line. Files are numbered as they are read, the same way in every pass.
struct SourceRows {
    private var files: [(name: String, offset: Int)] = []
    /// The number of the last row read so far.
    private var last = 0

    /// Starts the next file: its line `n` is row `offset + n`.
    mutating func begin(_ file: String) -> Int {
        files.append((file, last))
        return last
    }

    /// Notes that `row` was read (a row number of the current file).
    mutating func read(_ row: Int) {
        last = max(last, row)
    }

    /// The file and line of row `row`.
    func location(of row: Int) -> (file: String, line: Int) {
        // The last file that starts before the row: an empty file starts where the next one does.
        guard let entry = files.last(where: { $0.offset < row }) ?? files.first else { return ("", row) }
        return (entry.name, row - entry.offset)
    }
}
