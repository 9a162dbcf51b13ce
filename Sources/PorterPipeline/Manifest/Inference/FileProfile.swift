import Foundation
import ParseModel
import PorterReaders

/// One source, a file or a glob's files read one after the other, as read once from start to
/// end: its records counted and each column profiled (``ColumnProfile``).
struct FileProfile {
    /// Rows kept to find a key of two columns when no single column is one.
    static let rowLimit = 50_000

    /// The source as a manifest names it: a file, or a glob (``SourceFileGroups``).
    let file: String
    /// The files read, in order.
    let paths: [String]
    let format: SourceFormat
    /// The delimiter of a CSV file, when its header shows another than `,` (found as the
    /// import finds it: ``CSVReader``'s sniffing, or a `sep=` line).
    private(set) var sniffedDelimiter: UInt8?
    /// The encoding the file was read in when it is not UTF-8 (nor UTF-16 with a byte order
    /// mark, which the readers detect): Windows-1252, the spreadsheet programs' usual one.
    private(set) var encoding: TextEncoding?
    /// Why ``encoding`` was chosen: the first byte that is not UTF-8.
    private(set) var encodingReason: String?
    private(set) var records = 0
    private(set) var columns: [ColumnProfile] = []
    /// Each record's values as text (empty when none), up to ``rowLimit`` records; `nil` past it.
    private(set) var rows: [[String]]? = []
    /// Each column's position in ``columns`` (the first, for a name a CSV header repeats).
    private var indexByName: [String: Int] = [:]

    /// Reads `paths` (by default `file` alone) of `files` with the reader their format gives;
    /// files that are not UTF-8 are read again as Windows-1252.
    init(file: String, paths: [String]? = nil, format: SourceFormat, in files: SourceFiles) throws(PorterError) {
        let paths = paths ?? [file]
        self.init(file: file, paths: paths, format: format)
        do {
            try read(files, encoding: nil)
        } catch let error where error.decodingFault?.encoding == .utf8 {
            self = FileProfile(file: file, paths: paths, format: format)
            encoding = .windows1252
            encodingReason = "not UTF-8 (\(error.description)): read as Windows-1252; check the accented letters, or give the encoding the file was saved in"
            do { try read(files, encoding: .windows1252) } catch { throw PorterError(.invalidData, error.description) }
        } catch {
            throw PorterError(.invalidData, error.description)
        }
    }

    private init(file: String, paths: [String], format: SourceFormat) {
        self.file = file
        self.paths = paths
        self.format = format
    }

    private mutating func read(_ files: SourceFiles, encoding: TextEncoding?) throws(ReaderError) {
        for path in paths {
            var reader = try files.openReader(path, format: format, encoding: encoding)
            if case .csv(nil) = format, let csv = reader as? CSVReader, csv.delimiter != UInt8(ascii: ",") {
                sniffedDelimiter = csv.delimiter
            }
            while let record = try reader.next() {
                if let fault = record.raggednessFault(file: path) { throw fault }
                add(record)
                if columns.count > Self.columnLimit { throw tooManyColumns(file: path, line: record.line) }
            }
        }
    }

    /// Columns (or JSON keys) a file may have: one per field of a class, plus the ones every
    /// class has. Past it the file is refused before the columns are compared with each other.
    static let columnLimit = ClassSchema.maximumFields + ParseNames.defaultFields.count

    private func tooManyColumns(file: String, line: Int) -> ReaderError {
        ReaderError(file: file, line: line, column: columns[Self.columnLimit].name,
                    reason: "more than \(Self.columnLimit) columns: a class may have at most \(ClassSchema.maximumFields) fields besides "
                        + ParseNames.defaultFields.joined(separator: ", "))
    }

    private mutating func add(_ record: SourceRecord) {
        records += 1
        var row = [String](repeating: "", count: columns.count)
        switch record.content {
        case .csv(let header, let cells):
            if columns.isEmpty {
                columns = header.columnNames.map(ColumnProfile.init)
                indexByName = Dictionary(header.columnNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
                row = [String](repeating: "", count: columns.count)
            }
            for index in columns.indices {
                columns[index].add(.text(cells[index]))
                row[index] = cells[index]
            }
        case .json(let object):
            var seen = Set<Int>()
            for member in object {
                let index: Int
                if let known = indexByName[member.key] {
                    index = known
                } else {
                    index = columns.count
                    indexByName[member.key] = index
                    var profile = ColumnProfile(name: member.key)
                    profile.addEmpty(records - 1)
                    columns.append(profile)
                    row.append("")
                }
                guard seen.insert(index).inserted else { continue }
                columns[index].add(.json(member.value))
                switch member.value {
                case .string(let text): row[index] = text
                case .integer(let number): row[index] = String(number)
                default: break
                }
            }
            for index in columns.indices where !seen.contains(index) { columns[index].addEmpty() }
        }
        if rows != nil {
            if rows!.count < Self.rowLimit { rows!.append(row) } else { rows = nil }
        }
        followPairs(row)
    }

    /// Two columns by position, the first to the left.
    struct ColumnPair: Hashable {
        let first: Int
        let second: Int
    }

    /// Pairs of the first ``pairColumns`` columns are followed as a key of two columns.
    static let pairColumns = 6

    /// The pairs of columns whose values, both filled, are unique together in every record so
    /// far, with the hashes of the value pairs seen; a pair leaves at its first repeat or empty
    /// value, and all leave past ``ColumnProfile/uniqueLimit`` records. A file's whole length is
    /// followed so, where ``rows`` stop at ``rowLimit``.
    private(set) var uniquePairs: [ColumnPair: Set<Int>] = [:]

    private mutating func followPairs(_ row: [String]) {
        if records == 1 {
            let first = min(row.count, Self.pairColumns)
            for left in 0..<first { for right in (left + 1)..<first { uniquePairs[ColumnPair(first: left, second: right)] = [] } }
        }
        guard !uniquePairs.isEmpty else { return }
        if records > ColumnProfile.uniqueLimit {
            uniquePairs = [:]
            return
        }
        for pair in Array(uniquePairs.keys) {
            let left = row.count > pair.first ? row[pair.first] : "", right = row.count > pair.second ? row[pair.second] : ""
            var hasher = Hasher()
            hasher.combine(left)
            hasher.combine(right)
            if left.isEmpty || right.isEmpty || !uniquePairs[pair]!.insert(hasher.finalize()).inserted { uniquePairs[pair] = nil }
        }
    }

    func column(named name: String) -> ColumnProfile? { indexByName[name].map { columns[$0] } }
}
