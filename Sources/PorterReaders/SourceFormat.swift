/// The format of a source file, and the reader for it.
public enum SourceFormat: Hashable, Sendable {
    /// Delimited text with a header row: tab for TSV; `nil` for CSV, whose delimiter a
    /// `sep=` first line names or the header line shows (see ``CSVReader``).
    case csv(delimiter: UInt8?)
    /// A JSON array of objects or a Parse export `{"results": [...]}`; a file that is
    /// neither is read as JSON Lines.
    case json
    /// JSON Lines / NDJSON: one object per line.
    case ndjson

    /// The format for a file name's extension (case-insensitive): `.csv`, `.tsv`,
    /// `.json`, `.ndjson` or `.jsonl`; `nil` for any other.
    public static func forFile(_ path: String) -> SourceFormat? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "csv": return .csv(delimiter: nil)
        case "tsv": return .csv(delimiter: UInt8(ascii: "\t"))
        case "json": return .json
        case "ndjson", "jsonl": return .ndjson
        default: return nil
        }
    }

    /// The names ``init(name:)`` knows, as messages list them.
    public static let names = "csv, tsv, json or ndjson"

    /// The format `csv`, `tsv`, `json`, `ndjson` or `jsonl` names, as options spell it.
    public init?(name: String) {
        guard let format = SourceFormat.forFile("." + name) else { return nil }
        self = format
    }

    /// `csv`, `tsv`, `json` or `ndjson`: the format's name and file extension.
    public var name: String {
        switch self {
        case .csv(let delimiter): delimiter == UInt8(ascii: "\t") ? "tsv" : "csv"
        case .json: "json"
        case .ndjson: "ndjson"
        }
    }

    /// Opens `path` with this format's reader; `displayName` names the file in locations.
    /// A file that cannot be opened is a `ReaderError` at line 0 (`cannot open file: …`).
    /// - Parameters:
    ///   - encoding: The file's encoding; `nil`: UTF-8, or UTF-16 when the file starts with its
    ///     byte order mark. The reader gets the text as UTF-8.
    ///   - header: For CSV: the column names of a file without a header row (``CSVReader``).
    ///   - quotes: For CSV: how quotes inside unquoted fields are read.
    public func openReader(
        path: String, displayName: String, encoding: TextEncoding? = nil, header: [String]? = nil,
        quotes: CSVQuotes = .strict
    ) throws(ReaderError) -> any RecordReader {
        try openReader(
            input: FileInput(path: path, displayName: displayName), displayName: displayName,
            reading: SourceReading(encoding: encoding, header: header, quotes: quotes))
    }

    /// Reads `input` (a file or an archive entry) with this format's reader, as `reading` says
    /// (its format and delimiter are this format's).
    func openReader(input: any ByteInput, displayName: String, reading: SourceReading) throws(ReaderError) -> any RecordReader {
        let text = TranscodingInput(input, encoding: reading.encoding)
        switch self {
        case .csv(let delimiter):
            return try CSVReader(input: text, displayName: displayName, delimiter: delimiter, header: reading.header, quotes: reading.quotes)
        case .json:
            return try JSONRecordReader(input: text, displayName: displayName, layout: .automatic)
        case .ndjson:
            return try JSONRecordReader(input: text, displayName: displayName, layout: .lines)
        }
    }
}

/// How a source file is read beyond its name: a manifest's `format`, `delimiter`, `encoding`,
/// `header` and `quotes`.
package struct SourceReading: Hashable, Sendable {
    /// The format; `nil`: the file extension's.
    package var format: SourceFormat?
    /// The CSV delimiter; `nil`: the format's.
    package var delimiter: UInt8?
    package var encoding: TextEncoding?
    /// The column names of a CSV file without a header row.
    package var header: [String]?
    package var quotes: CSVQuotes

    package init(format: SourceFormat? = nil, delimiter: UInt8? = nil, encoding: TextEncoding? = nil, header: [String]? = nil, quotes: CSVQuotes = .strict) {
        self.format = format
        self.delimiter = delimiter
        self.encoding = encoding
        self.header = header
        self.quotes = quotes
    }

    /// The format `file` is read in: ``format``, else its extension's, with ``delimiter`` for
    /// CSV; `nil` when neither names one.
    package func format(of file: String) -> SourceFormat? {
        guard let found = format ?? SourceFormat.forFile(file) else { return nil }
        if let delimiter, case .csv = found { return .csv(delimiter: delimiter) }
        return found
    }
}
