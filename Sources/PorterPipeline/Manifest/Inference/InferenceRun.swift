import ParseModel
import PorterReaders

/// The guesses of ``ManifestInference`` over profiled files: which files are join files, each
/// class's key, then each column's field.
struct InferenceRun {
    /// A unique column of a file, which a column of another may name.
    struct Target: Hashable {
        let file: Int
        let column: String
    }

    /// A unique column every value of a column is a value of, and why that is a reference.
    struct Reference {
        let target: Target
        let evidence: ReferenceEvidence
    }

    let files: [FileProfile]
    /// Where the files are, to read a file again (``findCompositePointers()``); `nil`: never.
    let sourceFiles: SourceFiles?
    /// The class each file gives; `nil` when its name gives none.
    var classNames: [String?]
    /// The key given instead of guessed (single-file imports), as column or field names.
    var forcedKey: [String]?
    /// Key columns chosen per class file; `[]` for an `objectId` identity or no key.
    var keys: [Int: (columns: [String], reason: String)] = [:]
    /// Per column, the unique columns of files it refers to (``ReferenceEvidence``).
    var targets: [Target: [Reference]] = [:]
    /// Per column, the unique columns holding all its values that it does not refer to, for
    /// want of evidence: said in its comment when one is a class's key.
    var coincidences: [Target: [Target]] = [:]
    /// Per class file whose key is one column that refers to another class's key column (one
    /// table extending another one to one), that class's file; ``keyReferences()`` decides it.
    var keyReferences: [Int: (target: Target, reason: String)] = [:]
    /// Why a key column that could refer to another class is kept plain.
    var keyReferenceNotes: [Int: String] = [:]
    var pairTargets: [Target: [PairTarget]] = [:]
    /// Per class file, its Pointers read from two columns that name another class by its key of two.
    var compositePointers: [Int: [CompositePointer]] = [:]

    /// Names preferred for a key, in order; `{class}` is the class name.
    static let preferredKeyNames = ["id", "{class}id", "{class}_id", "code", "key", "uuid", "email", "username", "name", "slug", "number", "title"]

    init(files: [FileProfile], classNames: [String?], forcedKey: [String]? = nil, in sourceFiles: SourceFiles? = nil) {
        self.files = files
        self.sourceFiles = sourceFiles
        self.forcedKey = forcedKey
        var taken: Set<String> = []
        self.classNames = classNames.map { name in
            guard let name else { return nil }
            var unique = name, suffix = 2
            while !taken.insert(unique).inserted { unique = "\(name)\(suffix)"; suffix += 1 }
            return unique
        }
    }

    mutating func infer() throws(PorterError) -> InferredDataset {
        var dataset = InferredDataset(header: [])
        findTargets()
        findPairTargets()
        var classFiles: [Int] = []
        var joinFiles: [Int] = []
        for index in files.indices {
            guard files[index].records > 0 else { dataset.unread.append("\(files[index].file): no records, not read"); continue }
            guard classNames[index] != nil else { dataset.unread.append("\(files[index].file): its name gives no Parse class name, not read"); continue }
            if isJoinFile(index) { joinFiles.append(index) } else { classFiles.append(index) }
        }
        for index in classFiles { keys[index] = try chooseKey(index) }
        decideKeyReferences(among: classFiles)
        var relations: [InferredDataset.Relation] = []
        for index in joinFiles {
            if let relation = relation(from: index) {
                relations.append(relation)
            } else {
                classFiles.append(index)
                keys[index] = try chooseKey(index)
            }
        }
        classFiles.sort()
        try findCompositePointers(among: classFiles)
        for index in classFiles { dataset.classes.append(inferClass(index)) }
        for relation in relations {
            guard let owner = dataset.classes.firstIndex(where: { $0.className == relation.owner }) else { continue }
            var field = relation.field, suffix = 2
            let taken = Set(dataset.classes[owner].fields.map(\.name) + dataset.relations.filter { $0.owner == relation.owner }.map(\.field))
            while taken.contains(field) { field = "\(relation.field)\(suffix)"; suffix += 1 }
            dataset.relations.append(
                InferredDataset.Relation(
                    owner: relation.owner, field: field, targetClass: relation.targetClass, file: relation.file,
                    ownerColumn: relation.ownerColumn, targetColumn: relation.targetColumn,
                    delimiter: relation.delimiter, encoding: relation.encoding, reason: relation.reason))
        }
        return dataset
    }

    // MARK: references

    /// For every column, the unique columns of files (other than itself) holding all its values,
    /// split into those it refers to (``evidence(_:_:)``) and coincidences.
    private mutating func findTargets() {
        var uniques: [Target] = []
        for (index, file) in files.enumerated() {
            for column in file.columns where column.isUnique && (column.name == "objectId" || !ManifestInference.systemColumns.contains(column.name)) {
                uniques.append(Target(file: index, column: column.name))
            }
        }
        for (index, file) in files.enumerated() {
            for column in file.columns where !ManifestInference.systemColumns.contains(column.name) {
                guard let values = column.distinct, !values.isEmpty else { continue }
                let source = Target(file: index, column: column.name)
                for unique in uniques where unique != source && files[unique.file].column(named: unique.column)?.holds(values) == true {
                    // JSON numbers cannot name a String key: the import reads a String field's cells as text only.
                    if column.sawJSON && column.jsonTypes.contains(.number) && files[unique.file].column(named: unique.column)?.typeGuess.type == .string {
                        continue
                    }
                    if let evidence = evidence(source, unique) {
                        targets[source, default: []].append(Reference(target: unique, evidence: evidence))
                    } else {
                        coincidences[source, default: []].append(unique)
                    }
                }
            }
        }
    }

    /// `book_id` → `book`: what a relation's field is named after (`books`).
    static func withoutIdSuffix(_ column: String) -> String {
        let words = InferredNames.words(column)
        guard words.count > 1, words.last?.lowercased() == "id" else { return column }
        return words.dropLast().joined(separator: "_")
    }

    /// The references of a column to classes whose chosen key is the target column (or their
    /// objectId), the strongest evidence first, then in file order.
    func keyTargets(of source: Target) -> [Reference] {
        (targets[source] ?? []).filter { reference in
            guard let key = keys[reference.target.file] else { return false }
            return key.columns == [reference.target.column] || (key.columns.isEmpty && reference.target.column == "objectId")
        }.sorted { ($1.evidence, $0.target.file) < ($0.evidence, $1.target.file) }
    }

    /// The classes whose chosen key holds every value of a column it does not refer to.
    func coincidentKeys(of source: Target) -> [String] {
        (coincidences[source] ?? []).filter { keys[$0.file]?.columns == [$0.column] }.compactMap { classNames[$0.file] }
    }

    // MARK: join files

    /// Two columns, neither an objectId, each holding only values of unique columns of other files.
    private func isJoinFile(_ index: Int) -> Bool {
        let columns = files[index].columns
        guard columns.count == 2, !columns.contains(where: { ManifestInference.systemColumns.contains($0.name) }) else { return false }
        return columns.allSatisfy { column in (targets[Target(file: index, column: column.name)] ?? []).contains { $0.target.file != index } }
    }

    /// The relation a join file links, when both of its columns name keys of classes.
    private func relation(from index: Int) -> InferredDataset.Relation? {
        let file = files[index]
        let ownerColumn = file.columns[0].name, targetColumn = file.columns[1].name
        guard let owner = keyTargets(of: Target(file: index, column: ownerColumn)).first(where: { $0.target.file != index })?.target,
            let target = keyTargets(of: Target(file: index, column: targetColumn)).first(where: { $0.target.file != index })?.target,
            let ownerClass = classNames[owner.file], let targetClass = classNames[target.file],
            let fieldName = InferredNames.fieldName(forColumn: Self.withoutIdSuffix(targetColumn))
        else { return nil }
        let field = InferredNames.plural(fieldName)
        let reason =
            "\(file.file): \(file.records) rows of two columns; every \(ownerColumn) is \(InferredNames.article(ownerClass)) \(ownerClass) key, every \(targetColumn) \(InferredNames.article(targetClass)) \(targetClass) key: links of \(ownerClass).\(field)"
        return InferredDataset.Relation(
            owner: ownerClass, field: field, targetClass: targetClass, file: file.file, ownerColumn: ownerColumn,
            targetColumn: targetColumn, delimiter: file.sniffedDelimiter, encoding: file.encoding, reason: reason)
    }
}

extension ManifestInference {
    /// Columns Parse fills itself, which the import reads as such: never fields.
    static let systemColumns = Set(ParseNames.defaultFields)
}
