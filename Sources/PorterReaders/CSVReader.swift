import CLibCSV

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a CSV file's quotes are read (the manifest's `quotes:`).
public enum CSVQuotes: String, Hashable, Sendable {
    /// RFC 4180: a quote inside an unquoted field, or text after a closing quote, makes the
    /// row malformed.
    case strict
    /// A quote inside an unquoted field (`5" disk`) is text, as libcsv reads it outside its
    /// strict mode; text after a closing quote still makes the row malformed.
    case lenient
}

/// Streams the rows of a CSV file (or TSV, or any one-byte delimiter) through libcsv.
///
/// The first row is the header and names the columns, unless the names are given (`header`):
/// then the first row is a record. The names must not be empty or repeat (compared without
/// surrounding spaces, see ``CSVHeader``). A first line `sep=X`, as spreadsheet programs write it, names the
/// delimiter and is skipped (the header is then line 2). Without a given delimiter or a
/// `sep=` line, the delimiter is the one of `,` `;` tab `|` that the first line holds most
/// often outside quotes (`,` when it holds none). Quoting follows RFC 4180: quoted fields
/// may hold delimiters, doubled quotes and line breaks, and spaces around values are kept.
/// Lines may end in LF or CRLF (a lone CR ends a row too, but only LF counts as a new
/// line), blank lines are skipped, and a UTF-8 byte order mark is ignored. Rows with more
/// or fewer cells than the header are returned as they are (see
/// `SourceRecord.raggedness`). Each record's `line` is the physical line on which it
/// starts. The file is read in chunks, so memory does not grow with its size.
///
/// A row with a misplaced quote is returned with its ``SourceRecord/malformation`` and the
/// reading goes on: a quote inside an unquoted field is kept as text (with ``CSVQuotes/lenient``
/// that is no fault), and after text that follows a closing quote the rest of the line is
/// skipped, the next line starting a new row. A misplaced quote in the header row, an
/// unterminated quoted field (reported at the line where its record starts) and a cell that is
/// not valid UTF-8 (at its record's line, with the column's name and the byte's offset in the
/// file) end the file. Text in another encoding
/// than UTF-8 is converted as it is read (``SourceFormat/openReader(path:displayName:encoding:header:quotes:)``).
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
    ///     the quote, CR and LF. `nil`: sniffed from the first line.
    ///   - header: The column names of a file without a header row, whose first row is a record.
    ///   - quotes: How quotes inside unquoted fields are read.
    ///   - chunkSize: Bytes read from the file at a time (at least 4).
    public init(
        path: String, displayName: String, delimiter: UInt8? = UInt8(ascii: ","), header: [String]? = nil, quotes: CSVQuotes = .strict,
        chunkSize: Int = 1 << 16
    ) throws(ReaderError) {
        try Self.checkDelimiter(delimiter, displayName: displayName)
        try self.init(
            input: FileInput(path: path, displayName: displayName), displayName: displayName, delimiter: delimiter, header: header,
            quotes: quotes, chunkSize: chunkSize)
    }

    private static func checkDelimiter(_ delimiter: UInt8?, displayName: String) throws(ReaderError) {
        guard let delimiter, !CSVDialect.isUsable(delimiter) else { return }
        let shown = Character(Unicode.Scalar(delimiter)).debugDescription
        throw ReaderError(file: displayName, line: 0, reason: "unusable CSV delimiter \(shown)")
    }

    /// Reads `input` (a file or an archive entry) as ``init(path:displayName:delimiter:header:quotes:chunkSize:)`` reads a file.
    init(
        input: any ByteInput, displayName: String, delimiter: UInt8?, header names: [String]? = nil, quotes: CSVQuotes = .strict,
        chunkSize: Int = 1 << 16
    ) throws(ReaderError) {
        try Self.checkDelimiter(delimiter, displayName: displayName)
        self.displayName = displayName
        rows = CSVRowStream(input: input, displayName: displayName, delimiter: delimiter, quotes: quotes, chunkSize: chunkSize)
        if let names {
            try Self.checkNames(names, line: 0, displayName: displayName, in: "the given header")
            header = CSVHeader(names: names)
        } else {
            guard let headerRow = try rows.next() else {
                throw ReaderError(file: displayName, line: rows.headerLine, reason: "no header row")
            }
            if let malformation = headerRow.malformation {
                throw ReaderError(file: displayName, line: headerRow.line, reason: malformation)
            }
            let names = (0..<headerRow.cells.count).map(headerRow.cells.text(at:))
            try Self.checkNames(names, line: headerRow.line, displayName: displayName, in: "header")
            header = CSVHeader(names: names)
        }
        rows.columnNames = header.columnNames
    }

    /// Column names are neither empty nor repeated, once trimmed; `line` is where they are (0: given).
    private static func checkNames(_ cells: [String], line: Int, displayName: String, in place: String) throws(ReaderError) {
        var seen = Set<String>()
        for (index, cell) in cells.enumerated() {
            let name = CSVHeader.columnName(cell)
            guard !name.isEmpty else {
                throw ReaderError(file: displayName, line: line, column: String(index + 1), reason: "empty column name in \(place)")
            }
            guard seen.insert(name).inserted else {
                throw ReaderError(file: displayName, line: line, column: name, reason: "duplicate column name \"\(name)\" in \(place)")
            }
        }
    }

    /// Whether `error` is a header row's empty or repeated column name, which says the first
    /// line may be a record rather than a header.
    package static func isHeaderNameFault(_ error: ReaderError) -> Bool {
        error.reason.hasSuffix(" in header") && error.reason.contains("column name")
    }

    /// The ``SourceRecord/malformation`` of a row with a quote inside an unquoted field, which
    /// ``CSVQuotes/lenient`` reads as text.
    package static let strayQuoteFault = "misplaced quote: a quote inside an unquoted field (quotes: lenient reads such quotes as text)"

    /// Lines where ``CSVQuotes/lenient`` read a quote inside an unquoted field as text: how many,
    /// and the first of them.
    package var strayQuoteLines: (count: Int, first: [Int]) { (rows.strayQuoteLineCount, rows.firstStrayQuoteLines) }

    /// Bytes of the file read so far, for progress.
    public var bytesRead: Int64 { rows.bytesConsumed }

    /// The byte between fields: as given, named by a `sep=` line, or sniffed.
    public var delimiter: UInt8 { rows.delimiter ?? UInt8(ascii: ",") }

    /// The next record, `nil` at the end of the file; a malformed row throws, naming its line.
    public mutating func next() throws(ReaderError) -> SourceRecord? {
        guard let row = try rows.next() else { return nil }
        return SourceRecord(line: row.line, header: header, row: row.cells, malformation: row.malformation)
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
        let cells: CSVCells
        /// Why the row is not well-formed; see ``SourceRecord/malformation``.
        var malformation: String? = nil
    }

    /// libcsv's `ROW_NOT_BEGUN` and `FIELD_BEGUN` states (the constants are private to libcsv.c).
    private static let rowNotBegun: Int32 = 0
    private static let fieldBegun: Int32 = 2
    /// Lines kept of those where a stray quote was read as text.
    private static let keptStrayQuoteLines = 10

    private let input: any ByteInput
    private let displayName: String
    private let parser: UnsafeMutablePointer<csv_parser>
    /// libcsv's `data` pointer: a fixed address, and no reference counting or exclusivity
    /// checks on the per-cell path.
    private let collector: UnsafeMutablePointer<CSVRowCollector>
    private let buffer: UnsafeMutableRawBufferPointer
    /// Bytes of `buffer` that hold input, and how many of them libcsv has been given.
    @exclusivity(unchecked) private var filled = 0
    @exclusivity(unchecked) private var position = 0
    private var bytesBeforeBuffer: Int64 = 0
    @exclusivity(unchecked) private var reachedEnd = false
    @exclusivity(unchecked) private var finished = false
    @exclusivity(unchecked) private var nextCompletedRow = 0
    /// Once a fault is found, every later call reports it again.
    @exclusivity(unchecked) private var failure: ReaderError?
    /// The byte between fields; `nil` until the first line has been seen when it is to be sniffed.
    @exclusivity(unchecked) private(set) var delimiter: UInt8?
    private let quotes: CSVQuotes
    /// Lines where a quote inside an unquoted field was read as text (``CSVQuotes/lenient``).
    private(set) var strayQuoteLineCount = 0
    private(set) var firstStrayQuoteLines: [Int] = []

    /// The bytes that end the chunks read so far when they start a character the chunk cuts off
    /// (see ``checkUTF8(_:)``).
    private var cutCharacter: [UInt8] = []

    /// Names for cells in error locations; cells beyond these are named by position.
    var columnNames: [String] = []

    /// - Parameter delimiter: `nil`: named by a `sep=` line, or sniffed from the first line.
    init(input: any ByteInput, displayName: String, delimiter: UInt8?, quotes: CSVQuotes, chunkSize: Int) {
        self.input = input
        self.displayName = displayName
        self.delimiter = delimiter
        self.quotes = quotes
        parser = .allocate(capacity: 1)
        parser.initialize(to: csv_parser())
        Self.start(parser, delimiter: delimiter)
        collector = .allocate(capacity: 1)
        collector.initialize(to: CSVRowCollector())
        buffer = .allocate(byteCount: max(chunkSize, 4), alignment: 1)
    }

    /// Sets libcsv up: strict, so that misplaced quotes stop it where they are (``parseLine(_:length:line:)``).
    private static func start(_ parser: UnsafeMutablePointer<csv_parser>, delimiter: UInt8?) {
        csv_init(parser, UInt8(CSV_STRICT | CSV_STRICT_FINI))
        if let delimiter { csv_set_delim(parser, delimiter) }
        csv_set_space_func(parser, CSVCallbacks.isSpace)
        csv_set_blk_size(parser, 1 << 12)
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
                throw ReaderError(
                    file: displayName, line: row.line, column: columnName(invalidCell),
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
        try parseLine(UnsafeRawPointer(start), length: length, line: line)
        position += length
        if lineFeed != nil { collector.pointee.line = line + 1 }
    }

    /// Feeds libcsv `length` bytes of one physical line. Where it stops at a misplaced quote: a
    /// quote inside an unquoted field is fed again as text (libcsv's quote character set aside
    /// for that byte), the row marked malformed unless quotes are lenient; after text that
    /// follows a closing quote, the row ends malformed with the cells read so far and the rest of
    /// the line is skipped.
    private func parseLine(_ start: UnsafeRawPointer, length: Int, line: Int) throws(ReaderError) {
        var offset = 0
        while offset < length {
            offset += csv_parse(parser, start + offset, length - offset, CSVCallbacks.field, CSVCallbacks.row, collector)
            guard offset < length else { return }
            let status = csv_error(parser)
            guard status == CSV_EPARSE else { throw ReaderError(file: displayName, line: line, reason: String(cString: csv_strerror(status))) }
            let quote = UInt8(ascii: "\"")
            if parser.pointee.pstate == Self.fieldBegun && start.load(fromByteOffset: offset, as: UInt8.self) == quote {
                csv_set_quote(parser, 0)
                _ = csv_parse(parser, start + offset, 1, CSVCallbacks.field, CSVCallbacks.row, collector)
                csv_set_quote(parser, quote)
                offset += 1
                if quotes == .lenient {
                    noteStrayQuote(line)
                } else {
                    collector.pointee.markMalformed(CSVReader.strayQuoteFault)
                }
            } else {
                collector.pointee.markMalformed("misplaced quote: text after the closing quote of a field; the rest of line \(line) is not read")
                collector.pointee.completeRow()
                csv_free(parser)
                Self.start(parser, delimiter: delimiter)
                return
            }
        }
    }

    private func noteStrayQuote(_ line: Int) {
        guard firstStrayQuoteLines.last != line else { return }
        strayQuoteLineCount += 1
        if firstStrayQuoteLines.count < Self.keptStrayQuoteLines { firstStrayQuoteLines.append(line) }
    }

    private func readChunk() throws(ReaderError) {
        bytesBeforeBuffer += Int64(filled)
        position = 0
        do throws(InputReadFailure) {
            filled = try input.readChunk(into: buffer)
        } catch {
            filled = 0
            guard let fault = error.decoding else {
                throw ReaderError(file: displayName, line: collector.pointee.line, reason: "cannot read file: \(error.message)", kind: .unreadable)
            }
            // The text before the fault has been parsed: a row under way holds the byte, in the cell after its last.
            let rowBegun = parser.pointee.pstate != CSVRowStream.rowNotBegun
            throw ReaderError(
                file: displayName, line: rowBegun ? collector.pointee.rowStartLine : fault.line,
                column: columnNames.isEmpty ? nil : columnName(collector.pointee.cellCount),
                reason: fault.description, decodingFault: fault)
        }
        if filled == 0 {
            reachedEnd = true
            // A character cut off by the end of the file.
            if !cutCharacter.isEmpty { collector.pointee.checksCells = true }
            return
        }
        checkUTF8(UnsafeRawBufferPointer(rebasing: buffer[0..<filled]))
        if bytesBeforeBuffer == 0 {
            if filled >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF { position = 3 }
            try beginFile()
        }
    }

    /// Checks a chunk's text as a whole, so that the cells libcsv makes of it need no check of
    /// their own (a cell of valid UTF-8 cut at ASCII bytes is valid UTF-8); a character cut off
    /// by the chunk's end is checked with the next chunk's first bytes. From a chunk that is not
    /// UTF-8 on, each cell is checked, and the first that is not names the fault.
    private func checkUTF8(_ chunk: UnsafeRawBufferPointer) {
        guard !collector.pointee.checksCells else { return }
        var rest = chunk
        if let lead = cutCharacter.first {
            let missing = (lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2) - cutCharacter.count
            guard missing <= chunk.count, (cutCharacter + chunk.prefix(missing)).withUnsafeBytes({ String.isValidUTF8($0) }) else {
                collector.pointee.checksCells = true
                return
            }
            rest = UnsafeRawBufferPointer(rebasing: chunk[missing...])
        }
        guard let cut = String.utf8Validity(of: rest) else {
            collector.pointee.checksCells = true
            return
        }
        cutCharacter = Array(rest.suffix(cut))
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
