import ParseModel

/// What makes `init` take a column whose every value is a key of a class for a reference to
/// that class, and not a coincidence of values: the column's name, or values too specific to
/// match by chance. The strongest first.
///
/// A column that names a class exactly (`film_id`, `FilmId`, `FILMID`, `films`: Film) refers to
/// that class or to none: never to `FilmCategory`, whose name only starts alike. A class's own
/// key named after it (`film.film_id`) is its identity, not a reference. A column named like the
/// target's key column (`FOODID` beside `food.csv`'s `FOODID`, GTFS `service_id`) refers to it
/// when that key holds codes (integers, or text without spaces) and is named more than `id`,
/// `code`, `name`, a row number (`index`) or a name `init` invented (`column1`), its file has no
/// other unique column named for its class (TICKETID beside a `line` unique by chance), the two
/// files share no other column (a `line` beside a `batch` is half of a reference by two
/// columns), and the key column is not itself half of one (``isHalfOfPairReference(_:)``); the same name over free text is an attribute copied from table to table
/// (`film.title`, `film_text.title`), no reference. Integers need one of these names: ids of one
/// class are rarely those of another. A text column named as the first words of a class
/// (`FOODTYPE` for `foodtype_EN.csv`) refers to it. Text without any of these refers only to a
/// key of codes (`B-102`, `S10027`; not names or titles, which a column of a few place names
/// such as a GTFS `trip_headsign` matches by chance), with at least ``specificDistinctValues``
/// distinct values of at least ``specificLength`` characters, each with a letter: a few short
/// values (`A`, `B`; `DE`, `FR`) match the keys of a small class by chance.
enum ReferenceEvidence: Int, Comparable {
    case specificValues
    /// The column's name is the first words of the class's (`FOODTYPE` for `foodtype_EN.csv`'s
    /// FoodtypeEn); for text columns only, since `constructorId` would name ConstructorResult.
    case leadingName
    /// The values are objectIds of the class (a unique `objectId` column).
    case objectIds
    case keyColumnName
    case qualifiedName
    case exactName

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    static let specificDistinctValues = 3
    static let specificLength = 4

    /// Key column names that say nothing of the class they key, row numbers among them (pandas'
    /// `index`, in every file it writes), as ``InferenceRun/normalized(_:)`` spells them.
    static let genericKeyNames: Set<String> = [
        "id", "code", "key", "uuid", "guid", "name", "title", "label", "slug", "number", "no", "value", "type",
        "index", "idx", "row", "rowid", "rownum", "rownumber",
    ]
}

extension InferenceRun {
    /// How strongly `source`'s values, all held by the unique column `target`, refer to
    /// `target`'s class; `nil` when they do not (see ``ReferenceEvidence``).
    func evidence(_ source: Target, _ target: Target) -> ReferenceEvidence? {
        guard let column = files[source.file].column(named: source.column),
            let targetColumn = files[target.file].column(named: target.column)
        else { return nil }
        let named = classNames.enumerated().filter { Self.affinity(source.column, $0.element) == .exactName }.map(\.offset)
        if !named.isEmpty { return named.contains(target.file) && target.file != source.file ? .exactName : nil }
        if target.column == "objectId" { return .objectIds }
        let affinity = Self.affinity(source.column, classNames[target.file])
        if affinity == .qualifiedName { return .qualifiedName }
        if Self.normalized(source.column) == Self.normalized(target.column) {
            let generic = ReferenceEvidence.genericKeyNames.contains(Self.normalized(target.column)) || Self.isInvented(target.column)
            return !generic && targetColumn.holdsCodes && !hasClassNamedId(target) && !sharesAnotherColumn(source, target)
                && !isHalfOfPairReference(target) ? .keyColumnName : nil
        }
        if column.isIntegerColumn { return nil }
        if affinity == .leadingName { return .leadingName }
        return column.hasSpecificValues && targetColumn.holdsCodes ? .specificValues : nil
    }

    /// Whether `source`'s file has another column named as one of `target`'s file and holding
    /// only its values: then the shared name is part of a reference by two columns
    /// (`[batch, line]`), not one of its own.
    private func sharesAnotherColumn(_ source: Target, _ target: Target) -> Bool {
        files[source.file].columns.contains { column in
            guard column.name != source.column, let values = column.distinct, !values.isEmpty,
                let namesake = files[target.file].columns.first(where: { $0.name != target.column && Self.normalized($0.name) == Self.normalized(column.name) })
            else { return false }
            return namesake.holds(values)
        }
    }

    /// Whether `target` is half of a reference by two columns: with another column of its file,
    /// it names only pairs of another file's key of two columns of the same names (a `line` beside
    /// a `batch`, every `[batch, line]` a Shipment key). Its values are then that reference's, and
    /// their being unique in a table of a few rows is chance, not a key that others name.
    private func isHalfOfPairReference(_ target: Target) -> Bool {
        let file = files[target.file]
        guard let rows = file.rows, rows.count == file.records,
            let at = file.columns.firstIndex(where: { $0.name == target.column })
        else { return false }
        let name = Self.normalized(target.column)
        for (other, otherFile) in files.enumerated() where other != target.file {
            guard let namesake = otherFile.columns.firstIndex(where: { Self.normalized($0.name) == name }),
                let otherRows = otherFile.rows, otherRows.count == otherFile.records
            else { continue }
            for pair in otherFile.uniquePairs.keys where pair.first == namesake || pair.second == namesake {
                let partner = pair.first == namesake ? pair.second : pair.first
                let partnerName = Self.normalized(otherFile.columns[partner].name)
                guard let partnerAt = file.columns.indices.first(where: { $0 != at && Self.normalized(file.columns[$0].name) == partnerName }) else { continue }
                let named = Set(
                    rows.compactMap { row in row.count > max(at, partnerAt) && !row[at].isEmpty && !row[partnerAt].isEmpty ? [row[partnerAt], row[at]] : nil })
                let keys = Set(otherRows.compactMap { row in row.count > max(partner, namesake) ? [row[partner], row[namesake]] : nil })
                if !named.isEmpty && named.isSubset(of: keys) { return true }
            }
        }
        return false
    }

    /// Whether `column` is a name `init` invented for a file without a header row (`column3`).
    static func isInvented(_ column: String) -> Bool {
        column.hasPrefix("column") && column.count > 6 && column.dropFirst(6).allSatisfy { ("0"..."9").contains($0) }
    }

    /// Whether the file of `target` has another unique column named for its class (TICKETID in
    /// tickets.csv): that is its key, and a column merely sharing a name with `target` names none.
    private func hasClassNamedId(_ target: Target) -> Bool {
        files[target.file].columns.contains { column in
            column.name != target.column && column.isUnique && Self.affinity(column.name, classNames[target.file]) == .exactName
        }
    }

    /// Whether a column's name names the class: exactly (its words, without a last `id`, the
    /// class's words, the last one singular, in any case: `customer_id`, `CustomerId`,
    /// `CUSTOMERID`, `customers` for Customer), after words that qualify it
    /// (`billing_address_id` for Address), or as the class's first words (`FOODTYPE` for
    /// FoodtypeEn). `nil` when it does not.
    static func affinity(_ column: String, _ className: String?) -> ReferenceEvidence? {
        guard let className else { return nil }
        var words = InferredNames.words(column).map { $0.lowercased() }
        if words.count > 1, words.last == "id" { words.removeLast() }
        guard let last = words.popLast() else { return nil }
        words.append(InferredNames.singular(last))
        let wanted = InferredNames.words(className).map { $0.lowercased() }
        let joined = words.joined(), wantedJoined = wanted.joined()
        // One word, `FOODID` or `foodid`: its trailing id is no word of its own.
        if words.count == 1, joined.hasSuffix("id"), joined.dropLast(2) == wantedJoined { return .exactName }
        if joined == wantedJoined { return .exactName }
        if words.count > wanted.count, Array(words.suffix(wanted.count)) == wanted { return .qualifiedName }
        if words.count < wanted.count, Array(wanted.prefix(words.count)) == words { return .leadingName }
        return nil
    }

    /// A column name in lowercase without separators: `codigo_uf` and `CodigoUF` alike.
    static func normalized(_ column: String) -> String {
        InferredNames.words(column).joined().lowercased()
    }
}

extension ColumnProfile {
    /// Every value is an integer or text without white space: codes, which a column elsewhere
    /// named alike refers to.
    var holdsCodes: Bool {
        guard let distinct else { return isIntegerColumn }
        return isIntegerColumn || distinct.allSatisfy { !$0.contains(where: \.isWhitespace) }
    }

    /// At least ``ReferenceEvidence/specificDistinctValues`` distinct values, each of at least
    /// ``ReferenceEvidence/specificLength`` characters with a letter: too specific to be keys of
    /// another class by chance.
    var hasSpecificValues: Bool {
        guard let distinct, distinct.count >= ReferenceEvidence.specificDistinctValues else { return false }
        return distinct.allSatisfy { $0.count >= ReferenceEvidence.specificLength && $0.contains(where: \.isLetter) }
    }
}
