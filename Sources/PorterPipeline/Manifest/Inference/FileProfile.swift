import Foundation
import ParseModel
import PorterReaders

/// One source, a file or a glob's files read one after the other, as read once from start to
/// end: its records counted and each column profiled (``ColumnProfile``).
struct FileProfile {
    /// Rows kept to find a key of two columns when no single column is one.
    static let rowLimit = 50_000
    /// Malformed rows kept to be shown; all are counted.
    static let shownMalformedRows = 10
    /// Texts SQL dumps write for NULL (`\N`: MySQL and PostgreSQL's COPY; `NULL`, `null`): in a
    /// CSV cell, read as empty and proposed as the class's `null` (see ``FileProfile/textMarkers()``).
    static let nullMarkers = ["\\N", "NULL", "null"]

    /// The source as a manifest names it: a file, or a glob (``SourceFileGroups``).
    let file: String
    /// The files read, in order.
    let paths: [String]
    /// How the files are read: the format (the extension's, unless given), the header names of a
    /// file without a header row, the quotes.
    private(set) var reading: SourceReading
    /// The delimiter of a CSV file, when its header shows another than `,` (found as the
    /// import finds it: ``CSVReader``'s sniffing, or a `sep=` line).
    private(set) var sniffedDelimiter: UInt8?
    /// The encoding the file was read in when it is not UTF-8 (nor UTF-16 with a byte order
    /// mark, which the readers detect): Windows-1252, the spreadsheet programs' usual one.
    var encoding: TextEncoding? { reading.encoding }
    /// Why ``encoding`` was chosen: the first byte that is not UTF-8.
    private(set) var encodingReason: String?
    /// Class options the manifest needs to read the file as it was read here (`format`,
    /// `header`, `quotes`), each as YAML with what it was guessed from (``options`` adds `"null"`).
    var readingOptions: [(yaml: String, reason: String)] = []
    private(set) var records = 0
    private(set) var columns: [ColumnProfile] = []
    /// Each record's values as text (empty when none), up to ``rowLimit`` records; `nil` past it.
    private(set) var rows: [[String]]? = []
    /// Each column's position in ``columns`` (the first, for a name a CSV header repeats).
    private var indexByName: [String: Int] = [:]
    /// The header cells of a CSV file as it has them.
    private(set) var headerNames: [String] = []
    /// Rows that are not well-formed or have another cell count than the header: how many, and the first of them.
    private(set) var malformedRowCount = 0
    private(set) var malformedRows: [ReaderError] = []
    /// Whether every malformed row is one ``CSVQuotes/lenient`` reads: a quote inside an unquoted field.
    private(set) var onlyStrayQuotes = true
    /// Lines where a stray quote was read as text, when read with lenient quotes: how many, and
    /// the first of them (`line`, or `file:line` for a glob's files).
    private(set) var strayQuoteCount = 0
    private(set) var firstStrayQuoteLines: [String] = []
    /// The texts read as no value: ``nullMarkers``, or those of them kept after a first reading.
    private(set) var markers = FileProfile.nullMarkers
    /// What the user should know about how the file was read (a marker kept as text).
    var notes: [String] = []
    /// Per marker of ``markers`` met: the cells holding it, and their columns.
    private(set) var nullMarkerCells: [String: (cells: Int, columns: Set<Int>)] = [:]
    /// The values of a column that are all codes (``isCodeShaped(_:)``): their shortest and
    /// longest length, and whether one has a letter.
    struct CodeShape {
        var lengths: ClosedRange<Int>?
        var hasLetter = false

        /// Whether `text` is a code such as the column holds.
        func fits(_ text: String) -> Bool {
            guard let lengths, hasLetter, FileProfile.isCodeShaped(text) else { return false }
            return lengths.contains(text.utf8.count) && text.utf8.contains { (65...90).contains($0) }
        }
    }
    /// Per column of a CSV file: the shape of its values while every one is a code; `nil` once one is not.
    private(set) var codeShapes: [CodeShape?] = []
    /// Whether every record starts on a later line than the one before, in each file: then the
    /// line identifies a record (`key: $line`).
    private(set) var linesIdentifyRecords = true
    private var lastLine = 0

    /// Reads `paths` (by default `file` alone) of `files` as `reading` says; files that are not
    /// UTF-8 are read again as Windows-1252. Malformed rows are counted, not faults.
    /// - Parameter markers: the texts read as no value.
    init(file: String, paths: [String]? = nil, reading: SourceReading, markers: [String] = FileProfile.nullMarkers, in files: SourceFiles) throws(ReaderError) {
        let paths = paths ?? [file]
        self.init(file: file, paths: paths, reading: reading)
        self.markers = markers
        do {
            try read(files)
        } catch  where error.decodingFault?.encoding == .utf8 && reading.encoding == nil {
            self = FileProfile(file: file, paths: paths, reading: reading)
            self.markers = markers
            self.reading.encoding = .windows1252
            encodingReason = "not UTF-8 (\(error.description)): read as Windows-1252; check the accented letters, or give the encoding the file was saved in"
            try read(files)
        }
    }

    private init(file: String, paths: [String], reading: SourceReading) {
        self.file = file
        self.paths = paths
        self.reading = reading
    }

    /// The format the files are read in.
    var format: SourceFormat { reading.format(of: paths[0])! }

    private mutating func read(_ files: SourceFiles) throws(ReaderError) {
        for path in paths {
            var reader = try files.openReader(path, reading: reading)
            if case .csv(nil) = format, let csv = reader as? CSVReader, csv.delimiter != UInt8(ascii: ",") {
                sniffedDelimiter = csv.delimiter
            }
            if let csv = reader as? CSVReader, headerNames.isEmpty { headerNames = csv.header.names }
            lastLine = 0
            while let record = try reader.next() {
                if let fault = record.rowFault(file: path) {
                    malformedRowCount += 1
                    if malformedRows.count < Self.shownMalformedRows { malformedRows.append(fault) }
                    if fault.reason != CSVReader.strayQuoteFault { onlyStrayQuotes = false }
                    continue
                }
                if record.line <= lastLine { linesIdentifyRecords = false }
                lastLine = record.line
                add(record)
                if columns.count > Self.columnLimit { throw tooManyColumns(file: path, line: record.line) }
            }
            if let csv = reader as? CSVReader {
                let stray = csv.strayQuoteLines
                strayQuoteCount += stray.count
                for line in stray.first where firstStrayQuoteLines.count < Self.shownMalformedRows {
                    firstStrayQuoteLines.append(paths.count > 1 ? "\(path):\(line)" : "\(line)")
                }
            }
        }
    }

    /// Columns (or JSON keys) a file may have: one per field of a class, plus the ones every
    /// class has. Past it the file is refused before the columns are compared with each other.
    static let columnLimit = ClassSchema.maximumFields + ParseNames.defaultFields.count

    private func tooManyColumns(file: String, line: Int) -> ReaderError {
        ReaderError(
            file: file, line: line, column: columns[Self.columnLimit].name,
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
                codeShapes = Array(repeating: CodeShape(), count: columns.count)
                indexByName = Dictionary(header.columnNames.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
                row = [String](repeating: "", count: columns.count)
            }
            for index in columns.indices {
                var cell = cells[index]
                if markers.contains(cell) {
                    nullMarkerCells[cell, default: (0, [])].cells += 1
                    nullMarkerCells[cell]!.columns.insert(index)
                    cell = ""
                }
                columns[index].add(.text(cell))
                row[index] = cell
                if !cell.isEmpty, var shape = codeShapes[index] {
                    if Self.isCodeShaped(cell) {
                        let length = cell.utf8.count
                        shape.lengths = shape.lengths.map { min($0.lowerBound, length)...max($0.upperBound, length) } ?? length...length
                        if cell.utf8.contains(where: { (65...90).contains($0) }) { shape.hasLetter = true }
                        codeShapes[index] = shape
                    } else {
                        codeShapes[index] = nil
                    }
                }
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

    /// A code as data files hold them (`GKA`, `N262`, `330`): 2 to 4 capital letters and digits.
    static func isCodeShaped(_ text: String) -> Bool {
        let bytes = text.utf8
        return (2...4).contains(bytes.count) && bytes.allSatisfy { (65...90).contains($0) || (48...57).contains($0) }
    }
}
