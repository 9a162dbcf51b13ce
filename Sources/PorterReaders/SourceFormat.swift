/// The format of a source file, and the reader for it.
public enum SourceFormat: Hashable, Sendable {
    /// Delimited text with a header row: `,` for CSV, tab for TSV.
    case csv(delimiter: UInt8)
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
        case "csv": return .csv(delimiter: UInt8(ascii: ","))
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
    public func openReader(path: String, displayName: String) throws(ReaderError) -> any RecordReader {
        try openReader(input: FileInput(path: path, displayName: displayName), displayName: displayName)
    }

    /// Reads `input` (a file or an archive entry) with this format's reader.
    func openReader(input: any ByteInput, displayName: String) throws(ReaderError) -> any RecordReader {
        switch self {
        case .csv(let delimiter):
            return try CSVReader(input: input, displayName: displayName, delimiter: delimiter)
        case .json:
            return try JSONRecordReader(input: input, displayName: displayName, layout: .automatic)
        case .ndjson:
            return try JSONRecordReader(input: input, displayName: displayName, layout: .lines)
        }
    }
}
