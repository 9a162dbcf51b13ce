import ParseModel
import PorterReaders

extension InferenceRun {
    /// A Pointer read from two columns of a class file, naming another class by its key of two
    /// columns (`Batting.[yearID, teamID]` → `Team`).
    struct CompositePointer {
        let target: Int
        /// The source's columns, in the order of the target's key.
        let columns: [String]
        let reason: String
    }

    /// A column name as compared with a key column's: its words in lower case, without a last
    /// `id` or `key` (`year_id`, `yearID` and `year.key` are alike).
    static func comparable(_ column: String) -> String {
        var words = InferredNames.words(column).map { $0.lowercased() }
        if words.count > 1, ["id", "key"].contains(words.last!) { words.removeLast() }
        return words.joined()
    }

    /// For each class keyed by two columns (of a file of at most ``FileProfile/rowLimit`` records,
    /// whose key pairs are kept), the other class files with two columns named as the key's
    /// (``comparable(_:)``) whose
    /// values are each values of the key column of the same name. Each such file is read again,
    /// once, to check that every pair it holds is a key of the class (a record with neither part
    /// names none; one part alone rules the columns out): those pairs become a Pointer. A file
    /// whose own key is those two columns is left alone (a table of one-to-one rows).
    mutating func findCompositePointers(among classFiles: [Int]) throws(PorterError) {
        guard let sourceFiles else { return }
        var candidates: [Int: [(target: Int, columns: [String], keys: Set<[String]>)]] = [:]
        for target in classFiles {
            guard let key = keys[target]?.columns, key.count == 2, !key.contains(ClassMapping.lineKey),
                let rows = files[target].rows, rows.count == files[target].records,
                let positions = Optional(key.compactMap { name in files[target].columns.firstIndex { $0.name == name } }), positions.count == 2
            else { continue }
            let keyPairs = Set(rows.map { [$0[positions[0]], $0[positions[1]]] })
            for source in classFiles where source != target {
                let columns = key.compactMap { name in files[source].columns.first { Self.comparable($0.name) == Self.comparable(name) } }
                guard columns.count == 2, columns[0].name != columns[1].name, Set(keys[source]?.columns ?? []) != Set(columns.map(\.name)) else { continue }
                let held = zip(columns, positions).allSatisfy { column, position in
                    guard let values = column.distinct, !values.isEmpty else { return false }
                    return files[target].columns[position].holds(values)
                }
                if held { candidates[source, default: []].append((target, columns.map(\.name), keyPairs)) }
            }
        }
        for (source, options) in candidates {
            let counts = try pairCounts(of: source, options.map { ($0.columns, $0.keys) }, in: sourceFiles)
            for (option, count) in zip(options, counts) {
                guard let count, count.records > 0, let targetClass = classNames[option.target] else { continue }
                let parts = option.columns.joined(separator: ", ")
                var reason =
                    "every (\(parts)) pair of the \(Noun.counted(count.records, "record")) with one is \(InferredNames.article(targetClass)) \(targetClass) key "
                    + "(\(count.distinct) distinct)"
                if count.neither > 0 { reason += "; \(Noun.counted(count.neither, "record")) with neither part point nowhere" }
                reason += ": \(targetClass) is keyed by [\(keys[option.target]!.columns.joined(separator: ", "))]; \(parts) stay fields of their own"
                compositePointers[source, default: []].append(CompositePointer(target: option.target, columns: option.columns, reason: reason))
            }
        }
    }

    /// Reads `source` again and, per candidate (two columns and the key pairs of a class), counts
    /// the records naming a pair, the distinct pairs and the records with neither part; `nil` for
    /// a candidate some record rules out (a pair that is no key, a part without the other).
    private func pairCounts(
        of source: Int, _ candidates: [(columns: [String], keys: Set<[String]>)],
        in sourceFiles: SourceFiles
    ) throws(PorterError) -> [(records: Int, distinct: Int, neither: Int)?] {
        var counts: [(records: Int, distinct: Int, neither: Int)?] = Array(repeating: (0, 0, 0), count: candidates.count)
        var seen = Array(repeating: Set<[String]>(), count: candidates.count)
        let paths = candidates.map { $0.columns.map(ColumnPath.init) }
        do {
            for file in files[source].paths {
                var reader = try sourceFiles.openReader(file, reading: files[source].reading)
                while let record = try reader.next() {
                    for index in candidates.indices where counts[index] != nil {
                        let pair = paths[index].map { Self.text(record.cell($0), markers: files[source].markers) }
                        switch (pair[0], pair[1]) {
                        case ("", ""): counts[index]!.neither += 1
                        case (let first?, let second?) where !first.isEmpty && !second.isEmpty && candidates[index].keys.contains([first, second]):
                            counts[index]!.records += 1
                            if seen[index].insert([first, second]).inserted { counts[index]!.distinct += 1 }
                        default: counts[index] = nil
                        }
                    }
                    if !counts.contains(where: { $0 != nil }) { return counts }
                }
            }
        } catch {
            throw PorterError(.invalidData, error.description)
        }
        return counts
    }

    /// A cell as the profile keeps it: text or an integer as text, empty for none or a NULL
    /// marker; `nil` for a value of another kind.
    private static func text(_ cell: SourceCell?, markers: [String]) -> String? {
        switch cell {
        case nil, .json(.null)?: return ""
        case .text(let text)?: return markers.contains(text) ? "" : text
        case .json(.string(let text))?: return text
        case .json(.integer(let number))?: return String(number)
        default: return nil
        }
    }
}
