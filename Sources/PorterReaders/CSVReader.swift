import CLibCSV

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams the rows of a CSV file (or TSV, or any one-byte delimiter) through libcsv.
///
/// The first row is the header and names the columns; it must not have empty or
/// duplicate names (compared without surrounding spaces, see ``CSVHeader``). A first line `sep=X`, as spreadsheet programs write it, names the
/// delimiter and is skipped (the header is then line 2). Without a given delimiter or a
/// `sep=` line, the delimiter is the one of `,` `;` tab `|` that the header line holds most
/// often outside quotes (`,` when it holds none). Quoting follows RFC 4180: quoted fields
/// may hold delimiters, doubled quotes and line breaks, and spaces around values are kept.
/// Lines may end in LF or CRLF (a lone CR ends a row too, but only LF counts as a new
/// line), blank lines are skipped, and a UTF-8 byte order mark is ignored. Rows with more
/// or fewer cells than the header are returned as they are (see
/// `SourceRecord.raggedness`). Each record's `line` is the physical line on which it
/// starts. The file is read in chunks, so memory does not grow with its size.
///
/// Faults end the file: an unterminated quoted field (reported at the line where its
/// record starts), a quote inside an unquoted field or text after a closing quote
/// (`misplaced quote`, at its line), and a cell that is not valid UTF-8 (at its record's
/// line, with the column's name and the byte's offset in the file). Text in another encoding
/// than UTF-8 is converted as it is read (``SourceFormat/openReader(path:displayName:encoding:)``).
public struct CSVReader: RecordReader {
    /// The file's name in messages.
    public let displayName: String
    /// The column names from the header row.
    public let header: CSVHeader
    private let rows: CSVRowStream

    /// Opens `path` and reads its header row.
    /// - Parameters:
    ///   - path: The file to read.
    ///   - displayName: The file name used in locations.
    ///   - delimiter: The byte between fields: `,` for CSV, tab for TSV; any byte except
    ///     the quote, CR and LF. `nil`: sniffed from the header line.
    ///   - chunkSize: Bytes read from the file at a time (at least 4).
    public init(
        path: String, displayName: String, delimiter: UInt8? = UInt8(ascii: ","), chunkSize: Int = 1 << 16
    ) throws(ReaderError) {
        try Self.checkDelimiter(delimiter, displayName: displayName)
        try self.init(input: FileInput(path: path, displayName: displayName), displayName: displayName, delimiter: delimiter, chunkSize: chunkSize)
    }

    private static func checkDelimiter(_ delimiter: UInt8?, displayName: String) throws(ReaderError) {
        guard let delimiter, !CSVDialect.isUsable(delimiter) else { return }
        let shown = Character(Unicode.Scalar(delimiter)).debugDescription
        throw ReaderError(file: displayName, line: 0, reason: "unusable CSV delimiter \(shown)")
    }

    /// Reads `input` (a file or an archive entry) as ``init(path:displayName:delimiter:chunkSize:)`` reads a file.
    init(input: any ByteInput, displayName: String, delimiter: UInt8?, chunkSize: Int = 1 << 16) throws(ReaderError) {
        try Self.checkDelimiter(delimiter, displayName: displayName)
        self.displayName = displayName
        rows = CSVRowStream(input: input, displayName: displayName, delimiter: delimiter, chunkSize: chunkSize)
        guard let headerRow = try rows.next() else {
            throw ReaderError(file: displayName, line: rows.headerLine, reason: "no header row")
        }
        var seen = Set<String>()
        for (index, cell) in headerRow.cells.enumerated() {
            let name = CSVHeader.columnName(cell)
            guard !name.isEmpty else {
                throw ReaderError(file: displayName, line: headerRow.line, column: String(index + 1),
                                  reason: "empty column name in header")
            }
            guard seen.insert(name).inserted else {
                throw ReaderError(file: displayName, line: headerRow.line, column: name,
                                  reason: "duplicate column name \"\(name)\" in header")
            }
        }
        header = CSVHeader(names: headerRow.cells)
        rows.columnNames = header.columnNames
    }

    /// Bytes of the file read so far, for progress.
    public var bytesRead: Int64 { rows.bytesConsumed }

    /// The byte between fields: as given, named by a `sep=` line, or sniffed.
    public var delimiter: UInt8 { rows.delimiter ?? UInt8(ascii: ",") }

    /// The next record, `nil` at the end of the file; a malformed row throws, naming its line.
    public mutating func next() throws(ReaderError) -> SourceRecord? {
        guard let row = try rows.next() else { return nil }
        return SourceRecord(line: row.line, content: .csv(header: header, cells: row.cells))
    }
}

/// Splits a CSV file into rows with libcsv and notes the physical line on which each row
/// starts.
///
/// The file is fed to libcsv one physical line (up to and including its LF) at a time.
/// Before each line the parser's state tells whether a row is under way (a quoted field
/// spans the line break) or the line starts a new one.
final class CSVRowStream {
    struct Row {
        let line: Int
        let cells: [String]
    }

    /// libcsv's `ROW_NOT_BEGUN` state (the constant is private to libcsv.c).
    private static let rowNotBegun: Int32 = 0

    private let input: any ByteInput
    private let displayName: String
    private let parser: UnsafeMutablePointer<csv_parser>
    /// libcsv's `data` pointer: a fixed address, and no reference counting or exclusivity
    /// checks on the per-cell path.
    private let collector: UnsafeMutablePointer<CSVRowCollector>
    private let buffer: UnsafeMutableRawBufferPointer
    /// Bytes of `buffer` that hold input, and how many of them libcsv has been given.
    private var filled = 0
    private var position = 0
    private var bytesBeforeBuffer: Int64 = 0
    private var reachedEnd = false
    private var finished = false
    private var nextCompletedRow = 0
    /// Once a fault is found, every later call reports it again.
    private var failure: ReaderError?
    /// The byte between fields; `nil` until the first line has been seen when it is to be sniffed.
    private(set) var delimiter: UInt8?

    /// Names for cells in error locations; cells beyond these are named by position.
    var columnNames: [String] = [] {
        didSet { collector.pointee.expectedCellCount = columnNames.count }
    }

    /// - Parameter delimiter: `nil`: named by a `sep=` line, or sniffed from the header line.
    init(input: any ByteInput, displayName: String, delimiter: UInt8?, chunkSize: Int) {
        self.input = input
        self.displayName = displayName
        self.delimiter = delimiter
        parser = .allocate(capacity: 1)
        parser.initialize(to: csv_parser())
        csv_init(parser, UInt8(CSV_STRICT | CSV_STRICT_FINI))
        if let delimiter { csv_set_delim(parser, delimiter) }
        csv_set_space_func(parser, CSVCallbacks.isSpace)
        csv_set_blk_size(parser, 1 << 12)
        collector = .allocate(capacity: 1)
        collector.initialize(to: CSVRowCollector())
        buffer = .allocate(byteCount: max(chunkSize, 4), alignment: 1)
    }

    deinit {
        csv_free(parser)
        parser.deallocate()
        collector.deinitialize(count: 1)
        collector.deallocate()
        buffer.deallocate()
    }

    var bytesConsumed: Int64 { (input as? TranscodingInput)?.convertedSourceBytes ?? bytesBeforeBuffer + Int64(position) }

    /// The physical line of the header: 1, or 2 after a `sep=` line.
    private(set) var headerLine = 1

    /// The next row, or `nil` at the end of the file.
    func next() throws(ReaderError) -> Row? {
        if let failure { throw failure }
        do throws(ReaderError) {
            while nextCompletedRow == collector.pointee.completedRows.count {
                collector.pointee.completedRows.removeAll(keepingCapacity: true)
                nextCompletedRow = 0
                if finished { return nil }
                try parseMore()
            }
            let (row, invalidCell) = collector.pointee.completedRows[nextCompletedRow]
            nextCompletedRow += 1
            if let invalidCell {
                let fault = TranscodingInput.firstInvalidUTF8(in: input)
                throw ReaderError(file: displayName, line: row.line, column: columnName(invalidCell),
                                  reason: fault?.description ?? "invalid UTF-8", decodingFault: fault)
            }
            return row
        } catch {
            failure = error
            throw error
        }
    }

    /// The name of the cell at `index` of a row: the header's, or its position.
    private func columnName(_ index: Int) -> String {
        index < columnNames.count ? columnNames[index] : String(index + 1)
    }

    /// Feeds libcsv the rest of the current line, or reads the next chunk, or ends the input.
    private func parseMore() throws(ReaderError) {
        guard position < filled else {
            if reachedEnd {
                try finishParsing()
            } else {
                try readChunk()
            }
            return
        }
        let line = collector.pointee.line
        if parser.pointee.pstate == CSVRowStream.rowNotBegun { collector.pointee.rowStartLine = line }
        let start = buffer.baseAddress! + position
        let remaining = filled - position
        let lineFeed = memchr(start, Int32(UInt8(ascii: "\n")), remaining)
        let length = lineFeed.map { $0 - start + 1 } ?? remaining
        let parsed = csv_parse(parser, start, length, CSVCallbacks.field, CSVCallbacks.row, collector)
        guard parsed == length else {
            let status = csv_error(parser)
            let reason = status == CSV_EPARSE ? "misplaced quote" : String(cString: csv_strerror(status))
            throw ReaderError(file: displayName, line: line, reason: reason)
        }
        position += length
        if lineFeed != nil { collector.pointee.line = line + 1 }
    }

    private func readChunk() throws(ReaderError) {
        bytesBeforeBuffer += Int64(filled)
        position = 0
        do throws(InputReadFailure) {
            filled = try input.readChunk(into: buffer)
        } catch {
            filled = 0
            guard let fault = error.decoding else {
                throw ReaderError(file: displayName, line: collector.pointee.line, reason: "cannot read file: \(error.message)")
            }
            // The text before the fault has been parsed: a row under way holds the byte, in the cell after its last.
            let rowBegun = parser.pointee.pstate != CSVRowStream.rowNotBegun
            throw ReaderError(file: displayName, line: rowBegun ? collector.pointee.rowStartLine : fault.line,
                              column: columnNames.isEmpty ? nil : columnName(collector.pointee.cellCount),
                              reason: fault.description, decodingFault: fault)
        }
        if filled == 0 {
            reachedEnd = true
        } else if bytesBeforeBuffer == 0 {
            if filled >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { position = 3 }
            try beginFile()
        }
    }

    /// Skips a `sep=X` first line, taking X as the delimiter, and sniffs the delimiter from
    /// the header line when none is given.
    private func beginFile() throws(ReaderError) {
        let start = UnsafeRawBufferPointer(rebasing: buffer[position..<filled])
        if let separator = CSVDialect.separatorLine(start) {
            if let delimiter, delimiter != separator.delimiter {
                let named = Character(Unicode.Scalar(separator.delimiter)).debugDescription
                let given = Character(Unicode.Scalar(delimiter)).debugDescription
                throw ReaderError(file: displayName, line: 1, reason: "the first line names the delimiter \(named), but the delimiter given is \(given)")
            }
            delimiter = separator.delimiter
            position += separator.length
            headerLine = 2
            collector.pointee.line = 2
            collector.pointee.rowStartLine = 2
        }
        if delimiter == nil { delimiter = CSVDialect.sniff(UnsafeRawBufferPointer(rebasing: buffer[position..<filled])) }
        csv_set_delim(parser, delimiter!)
    }

    /// Lets libcsv deliver a last row that has no line break after it.
    private func finishParsing() throws(ReaderError) {
        guard csv_fini(parser, CSVCallbacks.field, CSVCallbacks.row, collector) == 0 else {
            throw ReaderError(file: displayName, line: collector.pointee.rowStartLine, reason: "unterminated quoted field")
        }
        finished = true
    }
}
