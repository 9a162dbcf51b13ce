import ParseModel

extension InferenceRun {
    /// Two columns of a file, unique together, whose value pairs a column of JSON arrays names
    /// (`["Berlin", "DE"]` for an Office keyed by `[city, country]`).
    struct PairTarget: Hashable {
        let file: Int
        let columns: [String]
    }

    /// For every CSV column whose cells are all JSON arrays of two texts or integers, the pairs
    /// of columns of other files (of at most ``FileProfile/rowLimit`` records) unique together
    /// and holding every pair it names, in the order it names them.
    mutating func findPairTargets() {
        for (index, file) in files.enumerated() {
            for column in file.columns where !column.sawJSON && column.typeGuess.type == .array {
                guard let values = column.distinct, let named = Self.pairs(values) else { continue }
                let source = Target(file: index, column: column.name)
                for (other, otherFile) in files.enumerated() where other != index {
                    guard let rows = otherFile.rows, rows.count == otherFile.records else { continue }
                    let filled = otherFile.columns.indices.filter { otherFile.columns[$0].empty == 0 && otherFile.columns[$0].nameable }
                    for first in filled {
                        for second in filled where second != first {
                            var held = Set<[String]>()
                            guard rows.allSatisfy({ $0.count > max(first, second) && held.insert([$0[first], $0[second]]).inserted }),
                                named.isSubset(of: held)
                            else { continue }
                            pairTargets[source, default: []].append(
                                PairTarget(file: other, columns: [otherFile.columns[first].name, otherFile.columns[second].name]))
                        }
                    }
                }
            }
        }
    }

    /// The pairs JSON array texts name; `nil` when one is not an array of two texts or integers.
    static func pairs(_ values: Set<String>) -> Set<[String]>? {
        var pairs = Set<[String]>()
        for value in values {
            guard case .array(let items)? = try? JSONParser.parse(value), items.count == 2 else { return nil }
            var pair: [String] = []
            for item in items {
                switch item {
                case .string(let text): pair.append(text)
                case .integer(let number): pair.append(String(number))
                default: return nil
                }
            }
            pairs.insert(pair)
        }
        return pairs
    }

    /// The pair of a class file's columns other files name most, with who names it.
    func namedPair(_ index: Int) -> (columns: [String], namedBy: [Target])? {
        var namedBy: [[String]: [Target]] = [:]
        for (source, pairs) in pairTargets where source.file != index {
            for pair in pairs where pair.file == index { namedBy[pair.columns, default: []].append(source) }
        }
        return namedBy.max { ($0.value.count, $1.key.joined()) < ($1.value.count, $0.key.joined()) }
            .map { ($0.key, $0.value.sorted { ($0.file, $0.column) < ($1.file, $1.column) }) }
    }

    /// The class whose two-column key a column of JSON arrays names.
    func pairPointer(of source: Target) -> String? {
        for pair in pairTargets[source] ?? [] where keys[pair.file]?.columns == pair.columns {
            return classNames[pair.file]
        }
        return nil
    }
}
