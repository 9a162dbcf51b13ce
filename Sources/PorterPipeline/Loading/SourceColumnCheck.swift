import ParseModel
import PorterReaders

/// The columns the fields of a hand-written manifest read must be in their source, or a typo
/// (`placedat` for `placed_at`) would import null into every object (see
/// ``DatasetManifest/requiresMappedColumns``). Fields with ``FieldMapping/optional`` are not checked.
///
/// A CSV header is checked before any row is read. A JSON source can only be judged once read:
/// a column no record has is the same error; one that some records lack gets a note with their count.
struct SourceColumnCheck {
    /// One column a field reads, and the manifest key path that names it.
    struct Column {
        let keyPath: ManifestPath
        let path: ColumnPath
        var name: String { path.name }
    }

    /// The manifest file, `nil` for a manifest built in code (``DatasetManifest/manifestFile``).
    let manifestFile: String?
    let source: String
    let columns: [Column]
    /// JSON records read, and how many of them had each column.
    private var records = 0
    private var present: [Int]
    private var unseen: Int
    /// The keys (dotted down to the deepest column's depth) of the records read while some
    /// column was unseen, in the order first seen: what an error shows and suggests from.
    private var seenKeys: [String] = []
    private var seenKeySet: Set<String> = []
    private let depth: Int
    /// The CSV header last checked.
    private var checkedHeader: CSVHeader?
    private static let shownNames = 30
    private static let keptKeys = 500

    /// The check of the columns that `mappings` (classes reading one source) read; empty unless
    /// the manifest requires its columns.
    init(_ mappings: [ClassMapping], manifest: DatasetManifest) {
        manifestFile = manifest.manifestFile
        source = mappings.first?.source ?? ""
        columns = manifest.requiresMappedColumns ? mappings.flatMap(Self.columns) : []
        present = Array(repeating: 0, count: columns.count)
        unseen = columns.count
        depth = columns.map(\.path.components.count).max() ?? 1
    }

    /// The columns a class's fields read, except optional ones and relations fed by join files;
    /// an extracted class's one field reads the column its `extract` names.
    static func columns(of mapping: ClassMapping) -> [Column] {
        if let extract = mapping.extract {
            return [Column(keyPath: ManifestPath.root + "classes" + mapping.className + "extract" + "column", path: ColumnPath(extract.column))]
        }
        return mapping.fields.filter { !$0.optional }.flatMap { field -> [Column] in
            let path = ManifestPath.root + "classes" + mapping.className + "fields" + field.name
            if let columns = field.columns {
                return columns.enumerated().map { Column(keyPath: (path + "columns")[$0.offset], path: ColumnPath($0.element)) }
            }
            return field.sourceColumns.map { Column(keyPath: field.column == field.name ? path : path + "column", path: ColumnPath($0)) }
        }
    }

    var isEmpty: Bool { columns.isEmpty }

    /// Fails for the first column `header` lacks (its cells compared without surrounding spaces).
    func check(_ header: CSVHeader) throws(PorterError) {
        for column in columns where header.index(of: column.name) == nil {
            let shown = header.names.prefix(Self.shownNames).map { "\"\($0)\"" }.joined(separator: ", ")
            let more = header.names.count > Self.shownNames ? ", … (\(header.names.count) columns)" : ""
            throw fault(
                at: column, "\(source) has no column \"\(column.name)\"; its header is \(shown)\(more)" + advice(column.name, candidates: header.columnNames))
        }
    }

    /// Counts the columns a JSON record has. A CSV record's header is checked when it is new: a
    /// CSV file's was checked before any record was read, a caller's reader's
    /// (``MemorySource/init(name:reader:)``) is at its first record.
    mutating func count(_ record: SourceRecord) throws(PorterError) {
        guard !columns.isEmpty else { return }
        if let header = record.csvHeader {
            if header !== checkedHeader {
                try check(header)
                checkedHeader = header
            }
            return
        }
        records += 1
        for index in columns.indices where record.hasCell(columns[index].path) {
            if present[index] == 0 { unseen -= 1 }
            present[index] += 1
        }
        if unseen > 0 && seenKeys.count < Self.keptKeys, case .json(let object) = record.content { collectKeys(of: object, prefix: "", depth: depth) }
    }

    private mutating func collectKeys(of object: JSONObject, prefix: String, depth: Int) {
        for member in object {
            let key = prefix + member.key
            if seenKeys.count < Self.keptKeys, seenKeySet.insert(key).inserted { seenKeys.append(key) }
            if depth > 1, case .object(let nested) = member.value { collectKeys(of: nested, prefix: key + ".", depth: depth - 1) }
        }
    }

    /// At the end of a JSON source read whole: fails for a column no record had; else a note for
    /// each column some records lack.
    func finish() throws(PorterError) -> [String] {
        guard records > 0 else { return [] }
        for (column, count) in zip(columns, present) where count == 0 {
            let shown = seenKeys.prefix(Self.shownNames).map { "\"\($0)\"" }.joined(separator: ", ")
            let more = seenKeys.count > Self.shownNames ? ", …" : ""
            let noun = records == 1 ? "the 1 record" : "the \(records) records"
            throw fault(
                at: column, "none of \(noun) of \(source) has \"\(column.name)\"; their keys are \(shown)\(more)" + advice(column.name, candidates: seenKeys))
        }
        return zip(columns, present).compactMap { column, count in
            guard count < records else { return nil }
            return
                "\(source): \(records - count) of \(records) records have no \"\(column.name)\" (\(column.keyPath.text)), so they get no value or the default;"
                + " optional: true on the field says it may be absent"
        }
    }

    private func fault(at column: Column, _ message: String) -> PorterError {
        PorterError(ManifestFault(file: manifestFile, keyPath: column.keyPath.keys, message: message))
    }

    private func advice(_ name: String, candidates: [String]) -> String {
        if let closest = Self.closest(to: name, among: candidates) { return "; did you mean \"\(closest)\"?" }
        return "; give the field optional: true if the source may lack it"
    }

    /// The candidate nearest to `name` ignoring case, when it is near enough to be a misspelling:
    /// at most a third of the name's letters (at least one) differ.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased())
        let limit = max(1, target.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
