import ParseModel

/// One value read from a source: a CSV cell's text, or a typed JSON value.
public enum SourceCell: Hashable, Sendable {
    case text(String)
    case json(JSONValue)

    /// The cell as a message shows it: the text, a JSON string's text, or other JSON as JSON.
    public var displayText: String {
        switch self {
        case .text(let text), .json(.string(let text)): text
        case .json(let json): json.serialized()
        }
    }
}

/// The names of a CSV file's columns, shared by all of its records.
///
/// Columns are looked up by their names without surrounding spaces or tabs (a spreadsheet's
/// `name ,price` header has the columns `name` and `price`); ``names`` keeps the cells as they are.
public final class CSVHeader: Sendable {
    /// The header cells as the file has them.
    public let names: [String]
    /// The column names as they are looked up: ``names`` without surrounding spaces.
    public let columnNames: [String]
    private let indexByName: [String: Int]

    /// Whether any of Parse's default columns (`objectId`, `createdAt`, `updatedAt`, `ACL`) is present.
    public let hasParseSystemColumns: Bool

    /// The header of the cells `names`, as the file has them.
    public init(names: [String]) {
        self.names = names
        let trimmed = names.map(CSVHeader.columnName)
        self.columnNames = trimmed
        var index: [String: Int] = [:]
        for (i, name) in trimmed.enumerated() where index[name] == nil { index[name] = i }
        self.indexByName = index
        self.hasParseSystemColumns = ParseNames.defaultFields.contains { index[$0] != nil }
    }

    /// The position of the column `name` (compared without surrounding spaces); the first, when two have it.
    /// Looked up per cell of every row: a header of a few columns is searched in order, which
    /// costs less than hashing the name.
    public func index(of name: String) -> Int? {
        guard columnNames.count <= Self.searchedInOrder else { return indexByName[name] }
        return columnNames.firstIndex(of: name)
    }

    /// Headers of at most this many columns are searched in order.
    private static let searchedInOrder = 16

    /// A header cell as a column name: without the spaces and tabs around it.
    package static func columnName(_ cell: String) -> String {
        let scalars = cell.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(scalars[first...last])
    }
}

/// One record of a source file with its provenance: the line on which it starts
/// (a CSV record with quoted line breaks spans several lines).
///
/// A CSV row keeps its cells as their UTF-8 bytes in one buffer, not as a `String` per cell,
/// and a record read from a JSON file keeps the object's text with its members' places: a cell
/// becomes text or a `JSONValue` only where it is read as one (``cell(_:)``, ``content``).
public struct SourceRecord: Sendable {
    /// What the record holds.
    public enum Content: Sendable {
        /// A CSV row; `cells.count` may differ from the header's count (a ragged row).
        case csv(header: CSVHeader, cells: [String])
        /// A JSON object (an element of an array, a `results` entry, or an NDJSON line).
        case json(JSONObject)
    }

    /// Where the record starts: its line in a file, its 1-based position among records in memory.
    public let line: Int
    /// The record's cells (a CSV row's cells made into text, a JSON file's object parsed, here,
    /// each time it is asked).
    public var content: Content {
        if let csvHeader { .csv(header: csvHeader, cells: csvCells) } else { .json(jsonFields?.object ?? jsonObject) }
    }

    // The content is kept in fields rather than as a `Content`: reading a cell from an enum's
    // payload copied the header and the cells out of it, and each copy counted a reference on a
    // cache line that the thread which read the record had written last.
    /// A CSV row's header; `nil` for a JSON record.
    package let csvHeader: CSVHeader?
    /// A CSV row's cells (see ``CSVCells``); empty for a JSON record.
    package let csvRow: CSVCells
    /// A JSON object's members as spans of its text (see ``JSONFields``), when the record was read
    /// from a file; `nil` for a CSV row or an object given whole.
    package let jsonFields: JSONFields?
    private let jsonObject: JSONObject
    /// Why the row is not well-formed CSV (`misplaced quote: …`), when it is not: its cells are
    /// those read up to the fault, and the reader went on with the next row.
    public let malformation: String?

    /// A record starting at `line`; `malformation` says why it could not be read whole.
    public init(line: Int, content: Content, malformation: String? = nil) {
        switch content {
        case .csv(let header, let cells):
            self.init(line: line, header: header, row: CSVCells(cells), malformation: malformation)
        case .json(let object):
            self.init(line: line, header: nil, row: CSVCells(), json: object, malformation: malformation)
        }
    }

    /// A CSV row of `row`'s cells under `header`.
    package init(line: Int, header: CSVHeader, row: CSVCells, malformation: String?) {
        self.init(line: line, header: header, row: row, json: JSONObject(), malformation: malformation)
    }

    /// A JSON object read from a file, as its members' spans of its text.
    package init(line: Int, json: JSONFields) {
        self.init(line: line, header: nil, row: CSVCells(), json: JSONObject(), fields: json, malformation: nil)
    }

    private init(line: Int, header: CSVHeader?, row: CSVCells, json: JSONObject, fields: JSONFields? = nil, malformation: String?) {
        self.line = line
        self.malformation = malformation
        (csvHeader, csvRow, jsonObject, jsonFields) = (header, row, json, fields)
    }

    /// A CSV row's cells as text; empty for a JSON record.
    package var csvCells: [String] { (0..<csvRow.count).map(csvRow.text(at:)) }

    /// The cell under `column`; for JSON records a dotted column (`address.city`) reaches into
    /// nested objects. `nil` when the record has no such column.
    public func cell(_ column: ColumnPath) -> SourceCell? {
        if csvHeader != nil {
            guard let index = csvHeader.unsafelyUnwrapped.index(of: column.name), index < csvRow.count else { return nil }
            return .text(csvRow.text(at: index))
        }
        if let jsonFields {
            if let direct = jsonFields.index(of: column.name, isASCII: column.isASCII) { return .json(jsonFields.value(at: direct)) }
            guard column.components.count > 1, let first = jsonFields.index(of: column.components[0], isASCII: column.isASCII) else { return nil }
            return jsonFields.value(at: first).value(atPath: Array(column.components.dropFirst())).map(SourceCell.json)
        }
        if let direct = jsonObject[column.name] { return .json(direct) }
        guard column.components.count > 1 else { return nil }
        return JSONValue.object(jsonObject).value(atPath: column.components).map(SourceCell.json)
    }

    /// Whether the record has a cell under `column` (``cell(_:)`` is not `nil`), without reading it.
    package func hasCell(_ column: ColumnPath) -> Bool {
        guard let jsonFields else { return cell(column) != nil }
        if jsonFields.index(of: column.name, isASCII: column.isASCII) != nil { return true }
        return column.components.count > 1 && cell(column) != nil
    }

    /// The column names this record carries (CSV header without surrounding spaces, or the
    /// JSON object's top-level keys).
    public var columnNames: [String] {
        csvHeader?.columnNames ?? jsonFields?.keys ?? jsonObject.keys
    }

    /// The fault of a row that is not well-formed (``malformation``) or whose cell count differs
    /// from its header's, if it is one of them.
    package func rowFault(file: String) -> ReaderError? {
        if let malformation { return ReaderError(file: file, line: line, reason: malformation) }
        return raggedness.map { ReaderError(file: file, line: line, reason: "row has \($0.actual) cells, the header has \($0.expected)") }
    }

    /// For a CSV row whose cell count differs from its header: (header count, cell count).
    package var raggedness: (expected: Int, actual: Int)? {
        guard let csvHeader, csvHeader.names.count != csvRow.count else { return nil }
        return (csvHeader.names.count, csvRow.count)
    }
}

/// A column name, pre-split at dots for nested JSON lookups.
public struct ColumnPath: Hashable, Sendable {
    /// The column as given (`address.city`).
    public let name: String
    /// The name split at its dots (`["address", "city"]`).
    public let components: [String]
    /// Whether the name is ASCII (a JSON record's plain keys are then compared byte by byte).
    package let isASCII: Bool

    /// The path of the column `name`.
    public init(_ name: String) {
        self.name = name
        self.components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        self.isASCII = name.utf8.allSatisfy { $0 < 0x80 }
    }
}

/// A reader that stops at the first fault of its file (the file cannot be read on from there).
public struct ReaderError: Error, Sendable, CustomStringConvertible {
    /// What kind of fault ends the reading (besides ``decodingFault``).
    public enum Kind: Sendable {
        /// The file cannot be opened or read.
        case unreadable
        /// The file is not well-formed CSV, or its JSON is not records.
        case malformed
        /// The file is not valid JSON.
        case invalidJSON
    }

    /// Where the reading stopped: the file, and the line, column and value as far as known.
    public let location: SourceLocation
    /// What is wrong.
    public let reason: String
    /// What kind of fault ended the reading.
    public let kind: Kind
    /// Set when the fault is bytes that are not text in the file's encoding.
    public let decodingFault: DecodingFault?

    /// A fault at `line` of `file` (0: the file as a whole), in `column` with `value` when known.
    public init(
        file: String, line: Int, column: String? = nil, value: String? = nil, reason: String, kind: Kind = .malformed,
        decodingFault: DecodingFault? = nil
    ) {
        self.location = SourceLocation(file: file, line: line, column: column, value: value)
        self.reason = reason
        self.kind = kind
        self.decodingFault = decodingFault
    }

    /// `file:line: reason`.
    public var description: String { "\(location): \(reason)" }
}

/// Streams the records of one source, one at a time; memory does not grow with the source.
///
/// The readers of CSV and JSON files (``CSVReader``, ``JSONRecordReader``) are ones; a program
/// may write its own and import what it reads through ``MemorySource/init(name:reader:)``:
///
/// ```swift
/// struct Countdown: RecordReader {
///     var left = 3
///     var displayName: String { "countdown" }
///     var bytesRead: Int64 { 0 }
///     mutating func next() throws(ReaderError) -> SourceRecord? {
///         guard left > 0 else { return nil }
///         defer { left -= 1 }
///         return SourceRecord(line: 4 - left, content: .json(JSONObject(["n": .integer(left)])))
///     }
/// }
/// let source = MemorySource(name: "countdown") { Countdown() }
/// ```
///
/// A fault that stops the reading is a ``ReaderError`` at the record's line; every later call
/// should report it again.
public protocol RecordReader {
    /// The name locations give as the file (as the manifest names it).
    var displayName: String { get }
    /// Bytes consumed so far, for progress; 0 when not counted.
    var bytesRead: Int64 { get }
    /// The next record, or `nil` at the end of the source.
    mutating func next() throws(ReaderError) -> SourceRecord?
}
