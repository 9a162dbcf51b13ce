import Foundation
import ParseModel

extension InferenceRun {
    /// The key columns of a class file and why: the given key; none for an `objectId` column;
    /// the unique, always filled column other files name most, then the one with the most
    /// preferred name, then the leftmost; else the first two columns unique together.
    func chooseKey(_ index: Int) throws(PorterError) -> (columns: [String], reason: String) {
        let file = files[index]
        let className = classNames[index] ?? ""
        if let forcedKey {
            var columns: [String] = []
            for part in forcedKey {
                guard
                    let column = file.columns.first(where: { $0.name == part })
                        ?? file.columns.first(where: { InferredNames.fieldName(forColumn: $0.name) == part })
                else {
                    throw PorterError(
                        .invalidRequest, "key \"\(part)\": \(file.file) has no such column (its columns: \(file.columns.map(\.name).joined(separator: ", ")))")
                }
                columns.append(column.name)
            }
            return (columns, "the key given")
        }
        if file.column(named: "objectId")?.isUnique == true {
            return ([], "no key: the objectId column (unique in all \(file.records) records) identifies each object, and references may name it")
        }
        let candidates = file.columns.enumerated().filter { candidate in
            candidate.element.isUnique && !ManifestInference.systemColumns.contains(candidate.element.name)
                && [.string, .number].contains(candidate.element.typeGuess.type)
        }
        let ranked = candidates.map { candidate in
            let target = Target(file: index, column: candidate.element.name)
            let namedBy = targets.filter { $0.key.file != index && $0.value.contains { $0.target == target } }.map(\.key).sorted {
                ($0.file, $0.column) < ($1.file, $1.column)
            }
            return (column: candidate.element.name, namedBy: namedBy, rank: Self.preferenceRank(candidate.element.name, className), offset: candidate.offset)
        }.sorted { ($1.namedBy.count, $0.rank, $0.offset) < ($0.namedBy.count, $1.rank, $1.offset) }
        if ranked.first?.namedBy.isEmpty ?? true, let pair = namedPair(index) {
            let unique = ranked.isEmpty ? "" : "; also unique alone: " + ranked.map(\.column).joined(separator: ", ")
            return (
                pair.columns,
                "[\(pair.columns.joined(separator: ", "))]: unique together and non-empty in all \(file.records) records: natural key; named by "
                    + pair.namedBy.prefix(3).map { "\(files[$0.file].file): \($0.column)" }.joined(separator: ", ") + " (JSON arrays of both parts)" + unique
            )
        }
        // A column named as a key of this class (`id`, `code`, …), or for the class it extends
        // (TicketDetail's TICKETID), is one in its own right.
        let keyNamed = ranked.contains { candidate in
            (candidate.rank % 2 == 0 && candidate.rank < 2 * Self.preferredKeyNames.count)
                || classNames.contains { extended in
                    guard let extended, extended != className, className.hasPrefix(extended) else { return false }
                    return Self.affinity(candidate.column, extended) == .exactName
                }
        }
        if ranked.first?.namedBy.isEmpty ?? true, !keyNamed, let pair = pairNamedByColumns(index) {
            let unique = ranked.isEmpty ? "" : "; also unique alone, named by no file: " + ranked.map(\.column).joined(separator: ", ")
            return (
                pair.columns,
                "[\(pair.columns.joined(separator: ", "))]: unique together and non-empty in all \(file.records) records: natural key; named by "
                    + pair.namedBy.prefix(3).map { "\(files[$0].file): [\(pair.columns.joined(separator: ", "))]" }.joined(separator: ", ") + unique
            )
        }
        if let best = ranked.first {
            var reason = "\(best.column): unique and non-empty in all \(file.records) records: natural key"
            if !best.namedBy.isEmpty {
                reason +=
                    "; named by " + best.namedBy.prefix(3).map { "\(files[$0.file].file): \($0.column)" }.joined(separator: ", ")
                    + (best.namedBy.count > 3 ? " and \(best.namedBy.count - 3) more" : "")
            }
            let others = ranked.dropFirst().map(\.column)
            if !others.isEmpty { reason += "; also unique: " + others.joined(separator: ", ") }
            return ([best.column], reason)
        }
        let uncounted = file.columns.filter { $0.pastUniqueLimit && $0.empty == 0 }.map(\.name)
        let notConsidered =
            uncounted.isEmpty ? "" : " (not considered, with more than \(ColumnProfile.uniqueLimit) values: \(uncounted.joined(separator: ", ")))"
        if let pair = Self.uniquePair(file) {
            return (
                pair,
                "[\(pair.joined(separator: ", "))]: unique together and non-empty in all \(file.records) records (no column alone is): natural key; "
                    + "a reference to it gives both parts as a JSON array"
            )
        }
        let noKey =
            file.records > ColumnProfile.uniqueLimit
            ? "no column is unique and non-empty in all \(file.records) records\(notConsidered) (pairs of columns were not tried past \(ColumnProfile.uniqueLimit) records)"
            : "no column, nor two of the first \(FileProfile.pairColumns) together, is unique and non-empty in all \(file.records) records\(notConsidered)"
        guard file.linesIdentifyRecords else {
            return ([], "no key: \(noKey), and records share lines; each record needs a key or an objectId: add a column of unique values and name it in key")
        }
        let each = file.paths.count > 1 ? "its file and the line it starts on" : "the line it starts on"
        return (
            [ClassMapping.lineKey],
            "\(noKey): each record is named by \(each); stable only while the file keeps its records in this order "
                + "(re-importing a re-sorted or edited file updates other objects): give a key of columns if the data has one"
        )
    }

    /// The position of a column's name among ``preferredKeyNames``; another id (`film_id`,
    /// `FilmId`, `FILMID`: a table extending Film one to one) comes between `number` and
    /// `title`, anything else past the end.
    static func preferenceRank(_ column: String, _ className: String) -> Int {
        let lower = column.lowercased(), classLower = className.lowercased()
        if let rank = preferredKeyNames.firstIndex(where: { $0.replacingOccurrences(of: "{class}", with: classLower) == lower }) { return 2 * rank }
        let words = InferredNames.words(column).map { $0.lowercased() }
        let isId = words.count > 1 ? words.last == "id" : lower.count > 2 && lower.hasSuffix("id") && column == column.uppercased()
        return isId ? 2 * preferredKeyNames.firstIndex(of: "number")! + 1 : 2 * preferredKeyNames.count
    }

    /// The leftmost two columns of a class file, unique together and always filled, that other
    /// class files have columns of the same names for (``comparable(_:)``), each holding only
    /// values of its namesake and not all four unique (two tables sharing columns one to one
    /// name nothing; two unique by chance in a few rows beside a pair no column of which is
    /// unique alone still name it), with those files: a key of two that others name, which
    /// ``findCompositePointers(among:)`` then checks pair by pair.
    func pairNamedByColumns(_ index: Int) -> (columns: [String], namedBy: [Int])? {
        let file = files[index]
        for pair in file.uniquePairs.keys.sorted(by: { ($0.first, $0.second) < ($1.first, $1.second) }) {
            let columns = [file.columns[pair.first], file.columns[pair.second]]
            guard columns.allSatisfy({ $0.nameable && !ManifestInference.systemColumns.contains($0.name) }) else { continue }
            let namedBy = files.indices.filter { other in
                guard other != index, classNames[other] != nil else { return false }
                let namesakes = columns.compactMap { column in files[other].columns.first { Self.comparable($0.name) == Self.comparable(column.name) } }
                guard namesakes.count == 2, !(namesakes + columns).allSatisfy(\.isUnique) else { return false }
                let held = zip(columns, namesakes).allSatisfy { column, namesake in
                    guard let values = namesake.distinct, !values.isEmpty else { return false }
                    return column.holds(values)
                }
                return held && holdsPairs(of: other, [namesakes[0].name, namesakes[1].name], in: index, pair)
            }
            if !namedBy.isEmpty { return (columns.map(\.name), namedBy) }
        }
        return nil
    }

    /// Whether every pair of `columns` of file `other` with both parts is a pair of `pair` of
    /// file `index`, where both files' rows are kept (else `true`: the pointer's own check,
    /// ``findCompositePointers(among:)``, reads the files whole).
    private func holdsPairs(of other: Int, _ columns: [String], in index: Int, _ pair: FileProfile.ColumnPair) -> Bool {
        guard let rows = files[index].rows, rows.count == files[index].records, let otherRows = files[other].rows, otherRows.count == files[other].records,
            let first = files[other].columns.firstIndex(where: { $0.name == columns[0] }),
            let second = files[other].columns.firstIndex(where: { $0.name == columns[1] })
        else { return true }
        let pairs = Set(rows.map { [$0[pair.first], $0[pair.second]] })
        return otherRows.allSatisfy { row in row[first].isEmpty || row[second].isEmpty || pairs.contains([row[first], row[second]]) }
    }

    /// The leftmost two columns whose values, always filled, are unique together in the whole file.
    static func uniquePair(_ file: FileProfile) -> [String]? {
        file.uniquePairs.keys.sorted { ($0.first, $0.second) < ($1.first, $1.second) }.lazy.map { [file.columns[$0.first], file.columns[$0.second]] }
            .first { pair in pair.allSatisfy { $0.nameable && !ManifestInference.systemColumns.contains($0.name) } }?.map(\.name)
    }
}
