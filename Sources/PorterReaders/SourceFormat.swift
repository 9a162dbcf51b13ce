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
    /// - Parameter encoding: The file's encoding; `nil`: UTF-8, or UTF-16 when the file
    ///   starts with its byte order mark. The reader gets the text as UTF-8.
    public func openReader(path: String, displayName: String, encoding: TextEncoding? = nil) throws(ReaderError) -> any RecordReader {
        try openReader(input: FileInput(path: path, displayName: displayName), displayName: displayName, encoding: encoding)
    }

    /// Reads `input` (a file or an archive entry) with this format's reader.
    func openReader(input: any ByteInput, displayName: String, encoding: TextEncoding?) throws(ReaderError) -> any RecordReader {
        let text = TranscodingInput(input, encoding: encoding)
        switch self {
        case .csv(let delimiter):
            return try CSVReader(input: text, displayName: displayName, delimiter: delimiter)
        case .json:
            return try JSONRecordReader(input: text, displayName: displayName, layout: .automatic)
        case .ndjson:
            return try JSONRecordReader(input: text, displayName: displayName, layout: .lines)
        }
    }
}
