import ParseModel

/// Records as JSON: inside `{"results":[…]}` (the Parse layout), as one JSON array, or one per
/// line (NDJSON, and the MongoDB layout as `mongoimport` reads it).
final class JSONRecordFile {
    private let file: OutputFile
    private let format: ExportFormat
    private var isFirst = true

    init(file: OutputFile, format: ExportFormat) {
        self.file = file
        self.format = format
        switch format {
        case .parse: file.buffer += #"{"results":["#.utf8
        case .json: file.buffer.append(UInt8(ascii: "["))
        case .ndjson, .csv, .mongo: break
        }
    }

    func append(_ record: JSONValue) throws(PorterError) {
        if !format.isLineDelimited {
            if !isFirst { file.buffer.append(UInt8(ascii: ",")) }
            file.buffer.append(UInt8(ascii: "\n"))
        }
        isFirst = false
        record.write(to: &file.buffer)
        if format.isLineDelimited { file.buffer.append(UInt8(ascii: "\n")) }
        try file.flushIfFull()
    }

    func close() throws(PorterError) {
        switch format {
        case .parse: file.buffer += "\n]}\n".utf8
        case .json: file.buffer += "\n]\n".utf8
        case .ndjson, .csv, .mongo: break
        }
        try file.close()
    }
}

/// A CSV file of rows; see ``CSVRow`` for how cells are written.
final class CSVRecordFile {
    private let file: OutputFile

    init(file: OutputFile, header: [String]) throws(PorterError) {
        self.file = file
        try writeRow { row in for name in header { row.cell(name) } }
    }

    /// Writes one row, whose cells `fill` appends.
    func writeRow(_ fill: (inout CSVRow) throws(PorterError) -> Void) throws(PorterError) {
        // The buffer is moved into the row and back (swapped, so it is never shared): the row
        // is built without a copy and without an exclusivity check per byte.
        var row = CSVRow(bytes: [])
        swap(&row.bytes, &file.buffer)
        do {
            try fill(&row)
        } catch {
            swap(&row.bytes, &file.buffer)
            throw error
        }
        row.bytes.append(UInt8(ascii: "\n"))
        swap(&row.bytes, &file.buffer)
        try file.flushIfFull()
    }

    func close() throws(PorterError) { try file.close() }
}

/// One row of RFC 4180 CSV: a cell is quoted when it holds a comma, a quote, a line break, or
/// leading or trailing blanks (which readers may trim); an empty cell is null.
struct CSVRow {
    var bytes: [UInt8]
    private var isEmpty = true

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// Bit n is set when byte n makes a cell quoted: line feed, carriage return, quote, comma.
    private static let quotedBytes: UInt64 = 1 << 0x0A | 1 << 0x0D | 1 << 0x22 | 1 << 0x2C

    mutating func cell(_ text: String) {
        separate()
        var text = text
        text.withUTF8 { utf8 in
            var needsQuotes = Self.holdsQuotedByte(utf8)
            if !needsQuotes, let first = utf8.first, let last = utf8.last {
                needsQuotes = first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
            }
            guard needsQuotes else {
                bytes.append(contentsOf: utf8)
                return
            }
            // Runs between quotes are copied whole: a byte at a time costs a capacity check each.
            bytes.append(0x22)
            var start = utf8.startIndex
            while let quote = utf8[start...].firstIndex(of: 0x22) {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...quote]))
                bytes.append(0x22)
                start = quote + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
            bytes.append(0x22)
        }
    }

    /// Whether `utf8` holds a byte of ``quotedBytes``: eight bytes at a time (a cell of prose is
    /// hundreds), then the rest one by one.
    private static func holdsQuotedByte(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        /// Whether a byte of `word` is zero.
        func hasZeroByte(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }
        var offset = 0
        if let base = utf8.baseAddress {
            let raw = UnsafeRawPointer(base)
            while offset + 8 <= utf8.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if hasZeroByte(word ^ (ones &* 0x0A)) || hasZeroByte(word ^ (ones &* 0x0D))
                    || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x2C))
                {
                    return true
                }
                offset += 8
            }
        }
        for byte in utf8[offset...] where byte < 64 && (quotedBytes >> UInt64(byte)) & 1 != 0 { return true }
        return false
    }

    /// A cell of JSON text.
    mutating func cell(json: JSONValue) { cell(json.serialized()) }

    /// A date in ISO 8601 UTC (never needs quotes).
    mutating func cell(date: ParseDate) {
        separate()
        date.writeISO(to: &bytes)
    }

    mutating func emptyCell() { separate() }

    private mutating func separate() {
        if !isEmpty { bytes.append(UInt8(ascii: ",")) }
        isEmpty = false
    }
}

/// The file of one class or relation, in the export's format.
enum RecordFile {
    case json(JSONRecordFile)
    case csv(CSVRecordFile)

    /// A JSON file in the export's format, or a CSV file with `header` for `--format csv`.
    init(file: OutputFile, format: ExportFormat, header: [String]) throws(PorterError) {
        self = format == .csv ? .csv(try CSVRecordFile(file: file, header: header)) : .json(JSONRecordFile(file: file, format: format))
    }

    func close() throws(PorterError) {
        switch self {
        case .json(let file): try file.close()
        case .csv(let file): try file.close()
        }
    }
}
