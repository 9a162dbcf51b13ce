import ParseModel

extension InferenceRun {
    /// Separators tried on text cells that may list several keys of a class.
    static let listSeparators = [";", "|"]

    /// A class file's class: a field per column (Parse's own columns aside; a name Parse Server
    /// refuses, or that gives no field name, renamed), the key's fields required, and a Pointer
    /// per pair of columns naming a class keyed by two (``compositePointers``).
    func inferClass(_ index: Int) -> InferredDataset.Class {
        let file = files[index]
        let key = keys[index] ?? ([], "")
        var fields: [InferredDataset.Field] = []
        var notes: [String] = []
        if file.paths.count > 1 { notes.append("\(file.paths.count) files of one header, read one after the other: \(file.paths.joined(separator: ", "))") }
        notes += file.notes
        var taken: Set<String> = []
        var keyFields: [String: String] = [:]
        let system = file.columns.map(\.name).filter { ManifestInference.systemColumns.contains($0) }
        if !system.isEmpty {
            notes.append("\(system.joined(separator: ", ")): Parse's own column\(system.count == 1 ? "" : "s"), kept as the import reads them (not fields)")
        }
        for (position, column) in file.columns.enumerated() where !ManifestInference.systemColumns.contains(column.name) {
            var base: String
            if let name = InferredNames.fieldName(forColumn: column.name) {
                base = name
            } else {
                base = "column\(position + 1)"
                notes.append(
                    "column \"\(column.name)\" gives no Parse field name (letters, digits and _, starting with a letter): the field \(base), after its position"
                )
            }
            if let rule = InferredNames.refusedFieldNames[base] {
                let renamed = InferredNames.fieldName(forColumn: classNames[index]! + "_" + base) ?? base
                notes.append("column \"\(column.name)\" is the field \(renamed): \(rule)")
                base = renamed
            }
            var name = base, suffix = 2
            while !taken.insert(name).inserted { name = "\(base)\(suffix)"; suffix += 1 }
            let isKey = key.columns.contains(column.name)
            var field = guessField(name, column, in: index)
            // A key column may point at another class's object, not hold a list of them.
            if isKey, case .relation = field.type { field = plainField(name, column) }
            if isKey {
                field.required = true
                keyFields[column.name] = name
            }
            fields.append(field)
        }
        for pointer in compositePointers[index] ?? [] {
            let target = classNames[pointer.target]!
            let base = InferredNames.fieldName(forColumn: target) ?? "pointer"
            var name = base, suffix = 2
            while !taken.insert(name).inserted { name = "\(base)\(suffix)"; suffix += 1 }
            var field = InferredDataset.Field(name: name, column: pointer.columns[0], type: .pointer(targetClass: target), reason: pointer.reason)
            field.columns = pointer.columns
            fields.append(field)
        }
        let keyNames = key.columns == [ClassMapping.lineKey] ? key.columns : key.columns.compactMap { keyFields[$0] }
        return InferredDataset.Class(
            className: classNames[index]!, file: file.file, records: file.records, delimiter: file.sniffedDelimiter,
            encoding: file.encoding, encodingReason: file.encodingReason, options: file.options,
            key: keyNames, keyReason: key.reason, fields: fields, notes: notes)
    }

    private func plainField(_ name: String, _ column: ColumnProfile) -> InferredDataset.Field {
        let guess = column.typeGuess
        var reason = guess.reason
        if column.pastDistinctLimit {
            reason += "; more than \(ColumnProfile.distinctLimit) distinct values: not considered as a reference" + (column.pastUniqueLimit ? " or key" : "")
        }
        var field = InferredDataset.Field(name: name, column: column.name, type: guess.type, reason: reason)
        field.formats = guess.formats
        field.numberFormat = guess.numberFormat
        return field
    }

    /// A column's field: a Pointer when every value is a key of one class it refers to
    /// (``ReferenceEvidence``; a key column as ``decideKeyReferences(among:)`` decided), a split
    /// Relation when every part of its cells is, else its values' type.
    private func guessField(_ name: String, _ column: ColumnProfile, in index: Int) -> InferredDataset.Field {
        let plain = plainField(name, column)
        if plain.type == .array, let target = pairPointer(of: Target(file: index, column: column.name)) {
            return InferredDataset.Field(
                name: name, column: column.name, type: .pointer(targetClass: target),
                reason:
                    "every value is a JSON array naming \(InferredNames.article(target)) \(target) by its two-part key (\(column.distinct?.count ?? 0) distinct, \(column.filled) filled, \(column.empty) empty)"
            )
        }
        guard plain.type == .string || (plain.type == .number && column.isIntegerColumn) else { return plain }
        let source = Target(file: index, column: column.name)
        let counted = "(\(column.distinct?.count ?? 0) distinct, \(column.filled) filled, \(column.empty) empty)"
        if keys[index]?.columns == [column.name] {
            if let reference = keyReferences[index], let target = classNames[reference.target.file] {
                return InferredDataset.Field(name: name, column: column.name, type: .pointer(targetClass: target), reason: reference.reason + " " + counted)
            }
            if let note = keyReferenceNotes[index] {
                return InferredDataset.Field(name: name, column: column.name, type: plain.type, reason: plain.reason + "; " + note)
            }
        }
        let options = keyTargets(of: source)
        if let best = options.first, let target = classNames[best.target.file] {
            let alike = options.filter { $0.evidence == best.evidence }.compactMap { classNames[$0.target.file] }
            if alike.count > 1 {
                return InferredDataset.Field(
                    name: name, column: column.name, type: plain.type,
                    reason: plain.reason
                        + "; every value is a key of \(alike.joined(separator: " and of ")) alike: make it Pointer<\(alike[0])> if that is what it names")
            }
            let what = best.target.column == "objectId" ? "objectId" : "key"
            return InferredDataset.Field(
                name: name, column: column.name, type: .pointer(targetClass: target),
                reason: "every value is \(InferredNames.article(target)) \(target) \(what) \(counted); \(Self.says(best, to: target))")
        }
        if plain.type == .string, !column.sawJSON, let relation = listRelation(column, in: index) {
            var field = InferredDataset.Field(name: name, column: column.name, type: .relation(targetClass: relation.target), reason: relation.reason)
            field.split = relation.separator
            return field
        }
        // Integers are keys of other classes by chance too often to say so.
        if !column.isIntegerColumn, let target = coincidentKeys(of: source).first, classNames.allSatisfy({ Self.affinity(column.name, $0) != .exactName }) {
            return InferredDataset.Field(
                name: name, column: column.name, type: plain.type,
                reason: plain.reason + "; every value is also \(InferredNames.article(target)) \(target) key, but \(whyNot(source, target)): "
                    + "make it Pointer<\(target)> if that is what it names")
        }
        return plain
    }

    /// The class whose keys every part of the column's cells is, split by one of ``listSeparators``.
    private func listRelation(_ column: ColumnProfile, in index: Int) -> (target: String, separator: String, reason: String)? {
        guard let values = column.distinct else { return nil }
        for separator in Self.listSeparators where values.contains(where: { $0.contains(separator) }) {
            let parts = Set(values.flatMap { CellText.split($0, by: separator) }.filter { !$0.isEmpty })
            let holders = keys.filter { entry in
                entry.value.columns.count == 1 && files[entry.key].column(named: entry.value.columns[0])?.holds(parts) == true
            }.map(\.key).sorted()
            let named = holders.filter { Self.affinity(column.name, classNames[$0]) != nil }
            // Unnamed, the parts must be too specific to be another class's keys by chance.
            var partsProfile = ColumnProfile(name: column.name)
            for part in parts { partsProfile.add(.text(part)) }
            guard let holder = named.first ?? (holders.count == 1 && partsProfile.hasSpecificValues ? holders.first : nil),
                let target = classNames[holder]
            else { continue }
            return (
                target, separator,
                "every part of every value, split by \"\(separator)\", is \(InferredNames.article(target)) \(target) key (\(parts.count) distinct): links of a Relation"
            )
        }
        return nil
    }
}
