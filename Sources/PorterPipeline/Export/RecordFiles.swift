import ParseModel

/// Records as JSON: inside `{"results":[…]}` (the Parse layout), as one JSON array, or one per line.
final class JSONRecordFile {
    private let file: OutputFile
    private let format: ExportFormat
    private var isFirst = true

    init(path: String, format: ExportFormat) throws(PorterError) {
        file = try OutputFile(path: path)
        self.format = format
        switch format {
        case .parse: file.buffer += #"{"results":["#.utf8
        case .json: file.buffer.append(UInt8(ascii: "["))
        case .ndjson, .csv: break
        }
    }

    func append(_ record: JSONValue) throws(PorterError) {
        if format != .ndjson {
            if !isFirst { file.buffer.append(UInt8(ascii: ",")) }
            file.buffer.append(UInt8(ascii: "\n"))
        }
        isFirst = false
        record.write(to: &file.buffer)
        if format == .ndjson { file.buffer.append(UInt8(ascii: "\n")) }
        try file.flushIfFull()
    }

    func close() throws(PorterError) {
        switch format {
        case .parse: file.buffer += "\n]}\n".utf8
        case .json: file.buffer += "\n]\n".utf8
        case .ndjson, .csv: break
        }
        try file.close()
    }
}

/// Rows of RFC 4180 CSV: a cell is quoted when it holds a comma, a quote, a line break, or
/// leading or trailing blanks (which readers may trim); an empty cell is null.
final class CSVRecordFile {
    private let file: OutputFile
    private var rowIsEmpty = true

    init(path: String, header: [String]) throws(PorterError) {
        file = try OutputFile(path: path)
        for name in header { cell(name) }
        try endRow()
    }

    func cell(_ text: String) {
        separate()
        var needsQuotes = false
        for byte in text.utf8 where byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D {
            needsQuotes = true
            break
        }
        if !needsQuotes, let first = text.utf8.first, let last = text.utf8.last {
            needsQuotes = first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
        }
        guard needsQuotes else {
            file.buffer += text.utf8
            return
        }
        file.buffer.append(0x22)
        for byte in text.utf8 {
            if byte == 0x22 { file.buffer.append(0x22) }
            file.buffer.append(byte)
        }
        file.buffer.append(0x22)
    }

    /// A cell of JSON text.
    func cell(json: JSONValue) { cell(json.serialized()) }

    func emptyCell() { separate() }

    private func separate() {
        if !rowIsEmpty { file.buffer.append(UInt8(ascii: ",")) }
        rowIsEmpty = false
    }

    func endRow() throws(PorterError) {
        file.buffer.append(UInt8(ascii: "\n"))
        rowIsEmpty = true
        try file.flushIfFull()
    }

    func close() throws(PorterError) { try file.close() }
}

/// The file of one class or relation, in the export's format.
enum RecordFile {
    case json(JSONRecordFile)
    case csv(CSVRecordFile)

    /// A JSON file in the export's format, or a CSV file with `header` for `--format csv`.
    init(path: String, format: ExportFormat, header: [String]) throws(PorterError) {
        self = format == .csv ? .csv(try CSVRecordFile(path: path, header: header)) : .json(try JSONRecordFile(path: path, format: format))
    }

    func close() throws(PorterError) {
        switch self {
        case .json(let file): try file.close()
        case .csv(let file): try file.close()
        }
    }
}
