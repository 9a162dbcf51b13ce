import Foundation
import ParseModel

/// Records held in memory, read as a class's or a join relation's source in place of files.
///
/// Faults in its records name the source by ``name`` where they would name a file, and a
/// record by its 1-based position as the line: `customers (in memory):3: …`. An import reads
/// a source once per pass (a validating pass, then the writing one), so the records are kept,
/// or made anew by ``init(name:reader:)`` for each pass.
///
/// ```swift
/// let customers = MemorySource(name: "customers (in memory)", rows: [
///     ["email": .string("ada@example.com"), "name": .string("Ada")],
///     ["email": .string("alan@example.com"), "name": .string("Alan")],
/// ])
/// ```
public struct MemorySource: Sendable, Equatable {
    /// What faults name the source by, in place of a file name.
    public let name: String
    private let makeReader: @Sendable () throws -> any RecordReader
    /// Tells two sources of one name apart: the same source read by two classes is read once for both.
    private let identity = UUID()

    /// Rows as JSON objects; their keys are the columns fields read (a dotted column such as
    /// `address.city` reaches into nested objects, as in a JSON file). Keys are read in sorted order.
    public init(name: String, rows: [[String: JSONValue]]) {
        let records = rows.map { row in JSONObject(row.keys.sorted().map { JSONMember($0, row[$0]!) }) }
        self.init(name: name, records: records.map { .success($0) })
    }

    /// Values encoded as JSON objects with `encoder` (dates as ISO 8601 text with milliseconds
    /// by default, as a Date field reads them), each a record. A value that cannot be encoded, or not as a
    /// JSON object, is a fault at its position when the source is read.
    public init<Row: Encodable>(name: String, encoding rows: [Row], encoder: JSONEncoder = MemorySource.defaultEncoder()) {
        let records = rows.map { row -> Result<JSONObject, MemoryRowFault> in
            do {
                let data = try encoder.encode(row)
                guard case .object(let object) = try JSONParser.parse(bytes: Array(data)) else {
                    return .failure(MemoryRowFault(reason: "record is not a JSON object"))
                }
                return .success(object)
            } catch {
                return .failure(MemoryRowFault(reason: "cannot encode the record: \(error)"))
            }
        }
        self.init(name: name, records: records)
    }

    /// Records from a reader `makeReader` opens, once for each pass over the source. Faults
    /// the reader throws name the source by `name`, whatever file name the reader gives; an
    /// error `makeReader` throws is a fault of the source as a whole (line 0).
    public init(name: String, reader makeReader: @escaping @Sendable () throws -> any RecordReader) {
        self.name = name
        self.makeReader = { NamedRecordReader(name: name, base: try makeReader()) }
    }

    private init(name: String, records: [Result<JSONObject, MemoryRowFault>]) {
        self.name = name
        self.makeReader = { MemoryRecordReader(displayName: name, records: records) }
    }

    /// The encoder ``init(name:encoding:encoder:)`` uses unless given one: dates as ISO 8601
    /// text in UTC with milliseconds (`2024-01-31T09:30:00.123Z`), the precision Parse keeps.
    public static func defaultEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ParseDate(date).iso)
        }
        return encoder
    }

    /// A reader of the records from the first, faults named by ``name``.
    package func reader() throws(ReaderError) -> any RecordReader {
        do {
            return try makeReader()
        } catch let error as ReaderError {
            throw error.naming(name)
        } catch {
            throw ReaderError(file: name, line: 0, reason: "cannot open the records: \(error)")
        }
    }

    /// Whether both are the same source (copies of one value), not sources of equal records.
    public static func == (lhs: MemorySource, rhs: MemorySource) -> Bool { lhs.identity == rhs.identity }
}

/// Why a value given to ``MemorySource`` is not a record.
struct MemoryRowFault: Error, Sendable {
    let reason: String
}

/// Reads records kept in memory; record `n` (1-based) is line `n`.
struct MemoryRecordReader: RecordReader {
    let displayName: String
    let records: [Result<JSONObject, MemoryRowFault>]
    private var position = 0

    init(displayName: String, records: [Result<JSONObject, MemoryRowFault>]) {
        self.displayName = displayName
        self.records = records
    }

    var bytesRead: Int64 { 0 }

    mutating func next() throws(ReaderError) -> SourceRecord? {
        guard position < records.count else { return nil }
        position += 1
        switch records[position - 1] {
        case .success(let object): return SourceRecord(line: position, content: .json(object))
        case .failure(let fault): throw ReaderError(file: displayName, line: position, reason: fault.reason)
        }
    }
}

/// A caller's reader whose records and faults are named as its ``MemorySource`` is.
struct NamedRecordReader: RecordReader {
    let name: String
    var base: any RecordReader

    init(name: String, base: any RecordReader) {
        self.name = name
        self.base = base
    }

    var displayName: String { name }
    var bytesRead: Int64 { base.bytesRead }

    mutating func next() throws(ReaderError) -> SourceRecord? {
        do {
            return try base.next()
        } catch {
            throw error.naming(name)
        }
    }
}

extension ReaderError {
    /// The same fault, located in `file`.
    func naming(_ file: String) -> ReaderError {
        guard location.file != file else { return self }
        return ReaderError(file: file, line: location.line, column: location.column, value: location.value, reason: reason, decodingFault: decodingFault)
    }
}
