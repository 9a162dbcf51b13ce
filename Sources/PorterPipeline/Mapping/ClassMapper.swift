import Foundation
import ParseModel
import ParseRules
import PorterReaders
import Synchronization

/// One object read from a source, keyed, with its system columns; its values, references not yet
/// resolved, are kept beside it in its ``ObjectDrafts``.
package struct ObjectDraft: Sendable {
    package let line: Int
    /// The objectId given by the source, if it gave one.
    package let sourceObjectId: String?
    /// The canonical natural key, when the class has one, and its hash.
    package let key: String?
    package let keyHash: KeyHash?
    package let acl: ParseACL?
    package let createdAt: ParseDate?
    package let updatedAt: ParseDate?
    /// A `_User`'s bcrypt password hash, from ``ClassMapping/passwordHashKeys``.
    package let passwordHash: String?

    /// The objectId given by the source, or derived from the natural key: made when asked for
    /// (a validation, which writes nothing, asks only for those it reports).
    package var objectId: String { sourceObjectId ?? keyHash.unsafelyUnwrapped.objectId }
    /// Whether the source gave the objectId (else it is derived from the key).
    package var hasSourceObjectId: Bool { sourceObjectId != nil }

    /// A draft needs an objectId from the source or a key (`keyHash`).
    init(
        line: Int, sourceObjectId: String?, key: String?, keyHash: KeyHash?, acl: ParseACL?, createdAt: ParseDate?, updatedAt: ParseDate?,
        passwordHash: String?
    ) {
        precondition(sourceObjectId != nil || keyHash != nil, "an object has an objectId or a key")
        self.line = line
        self.sourceObjectId = sourceObjectId
        self.key = key
        self.keyHash = keyHash
        self.acl = acl
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.passwordHash = passwordHash
    }
}

/// The drafts of one class mapped from a batch of records, or from one record at a time: their
/// values share one array, ``width`` per draft, and their Relations' references another, so that
/// mapping a record allocates nothing of its own but the values kept as text, and
/// ``removeAll()`` keeps the storage for the next.
package struct ObjectDrafts: Sendable {
    /// Values per draft: the mapper's ``ClassMapper/fields``.
    package let width: Int
    /// Each draft's values, aligned with ``ClassMapper/fields``, one draft after the other; a
    /// Relation's value is ``MappedValue/links(_:)``, its references in ``references``.
    private(set) var values: [MappedValue] = []
    /// The references of every draft's Relation values, one value's after the other.
    package internal(set) var references: [ObjectReference] = []
    /// Each record's draft, or the faults that keep it from becoming an object.
    private(set) var outcomes: [Result<ObjectDraft, MappingFailure>] = []

    /// Room for `capacity` drafts of `width` values.
    init(width: Int, capacity: Int = 1) {
        self.width = width
        values.reserveCapacity(width * capacity)
        outcomes.reserveCapacity(capacity)
    }

    package var count: Int { outcomes.count }

    /// The draft of the `index`th record mapped, or its faults (read in place, not copied out).
    package subscript(index: Int) -> Result<ObjectDraft, MappingFailure> {
        _read { yield outcomes[index] }
    }

    /// The values of the `index`th draft.
    package func values(of index: Int) -> ArraySlice<MappedValue> { values[index * width..<(index + 1) * width] }

    /// The `field`th value of the `index`th draft (read in place, not copied out).
    package subscript(field: Int, of index: Int) -> MappedValue {
        _read { yield values[index * width + field] }
    }

    /// The values of the `index`th draft, each Relation's references in its value
    /// (``MappedValue/relation(_:)``), as values made on their own hold them.
    package func detachedValues(of index: Int) -> [MappedValue] { detached(values[index * width..<(index + 1) * width]) }

    /// `values` of these drafts, each Relation's references in its value.
    func detached(_ values: ArraySlice<MappedValue>) -> [MappedValue] {
        values.map { value in
            guard case .links(let range) = value else { return value }
            return .relation(Array(references[range]))
        }
    }

    /// Forgets every draft, keeping the storage.
    mutating func removeAll() {
        values.removeAll(keepingCapacity: true)
        references.removeAll(keepingCapacity: true)
        outcomes.removeAll(keepingCapacity: true)
    }

    /// Appends the next value of the draft being mapped; a Relation's references made on their
    /// own move into ``references``.
    mutating func append(_ value: consuming MappedValue) {
        guard case .relation(let found) = value else { return values.append(value) }
        let start = references.count
        references += found
        values.append(.links(start..<references.count))
    }

    mutating func append(_ outcome: consuming Result<ObjectDraft, MappingFailure>) {
        precondition(values.count == (outcomes.count + 1) * width, "a draft's values come before it")
        outcomes.append(outcome)
    }
}

/// The faults that keep a record from becoming an object.
package struct MappingFailure: Error, Sendable {
    package let diagnostics: [Diagnostic]
    /// The record's identity when its key (or objectId) could be read despite the faults,
    /// so that references to it can be told it is rejected.
    package var objectId: String?
    package var key: String?
    package var keyHash: KeyHash?
    package var hasSourceObjectId = false
    /// The values read, aligned with ``ClassMapper/fields`` (null where a value was faulty), so
    /// that references by another field (`by:`) are told the object is rejected too.
    package var values: [MappedValue] = []

    package init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }
}

/// Maps the records of one class's source onto ``ObjectDraft``s.
package final class ClassMapper: Sendable {
    package let mapping: ClassMapping
    /// The fields read from the class's own source (relation fields fed by join files are not).
    package let fields: [FieldMapping]
    let coercers: [FieldCoercer]
    let keyIndices: [Int]
    /// `key: $line`: the key is the record's line, and the file's name when the class reads several.
    let keyedByLine: Bool
    let readsSeveralFiles: Bool
    let keyHasher: KeyHasher
    let knownColumns: Set<String>
    /// The file whose records this mapper maps, as locations name it.
    let sourceName: String
    /// For an extracted class: its column, and the one-column header of the records
    /// ``extractedRecords(of:)`` makes.
    let extractColumn: ColumnPath?
    let extractHeader: CSVHeader?
    /// The CSV header the coercers' columns were last found in, and each coercer's column
    /// there (-1: none): found once per header, not by name per cell.
    private let resolvedColumns = Mutex<(header: CSVHeader?, indexes: [Int])>((nil, []))

    /// Maps the records of `file`, one of the class's ``ClassMapping/sources`` (the first if `nil`).
    package convenience init(mapping: ClassMapping, manifest: DatasetManifest, file: String? = nil) {
        self.init(mapping: mapping, manifest: manifest, file: file, chains: ReferenceChains(manifest))
    }

    /// Maps the records of `file` (the first source if `nil`), reading references as `chains` says.
    init(mapping: ClassMapping, manifest: DatasetManifest, file: String? = nil, chains: ReferenceChains) {
        self.mapping = mapping
        self.sourceName = file ?? mapping.sources.first ?? mapping.source
        self.fields = mapping.fields.filter { !$0.fromJoinFile }
        let sourceDirectory = (manifest.directory as NSString).appendingPathComponent((sourceName as NSString).deletingLastPathComponent)
        self.coercers = fields.map {
            FieldCoercer(
                field: $0, references: chains.parser(for: $0.type, by: $0.by), sourceDirectory: sourceDirectory,
                className: mapping.className)
        }
        let fieldNames = fields.map(\.name)
        self.keyIndices = mapping.key.compactMap { fieldNames.firstIndex(of: $0) }
        self.keyedByLine = mapping.isKeyedByLine
        self.readsSeveralFiles = mapping.sources.count > 1
        self.keyHasher = KeyHasher(className: mapping.className)
        self.knownColumns = Set(fields.flatMap(\.sourceColumns).map { ColumnPath($0).components[0] } + ParseNames.defaultFields)
        self.extractColumn = mapping.extract.map { ColumnPath($0.column) }
        self.extractHeader = mapping.extract.map { CSVHeader(names: [$0.column]) }
    }

    /// How references to a type's target class are read: by the target's key parts (its line,
    /// and file when it reads several, for a class keyed by line), by its field `by`
    /// (``FieldMapping/by``), or by objectId (``ReferenceChains``).
    static func referenceParser(for type: FieldType, by: String? = nil, manifest: DatasetManifest) -> ReferenceParser? {
        ReferenceChains(manifest).parser(for: type, by: by)
    }

    /// For an extracted class (``ClassMapping/extract``), one record per value `record` names in
    /// the extracted column: the cell, the parts of a split cell (trimmed, as a split Relation
    /// cell's parts are), or the items of a JSON array; each holds that value alone, on the
    /// line of `record`. Empty and null values are left out. `nil` for any other class.
    func extractedRecords(of record: SourceRecord) -> [SourceRecord]? {
        guard let column = extractColumn, let header = extractHeader, let extract = mapping.extract else { return nil }
        let cells: [SourceCell]
        switch record.cell(column) {
        case nil, .json(.null)?: return []
        case .text(let text)?, .json(.string(let text))?:
            cells = extract.split.map { CellText.split(text, by: $0).map(SourceCell.text) } ?? [.text(text)]
        case .json(.array(let items))?: cells = items.map { if case .string(let text) = $0 { .text(text) } else { .json($0) } }
        case let other?: cells = [other]
        }
        let nullTokens = fields[0].nullTokens
        return cells.compactMap { cell in
            switch cell {
            case .text(let text):
                if text.isEmpty || nullTokens.contains(text) { return nil }
                return SourceRecord(line: record.line, content: .csv(header: header, cells: [text]))
            case .json(.null): return nil
            case .json(let json): return SourceRecord(line: record.line, content: .json(JSONObject([JSONMember(extract.column, json)])))
            }
        }
    }

    /// In strict mode, the source columns no field reads (for CSV: checked once, on the header).
    package func unknownColumns(of record: SourceRecord) -> [String] {
        guard mapping.strict else { return [] }
        return record.columnNames.filter { !reads($0) }
    }

    /// Whether a source column (a JSON object's key) is read by a field, is one of Parse's
    /// default fields, holds a `_User`'s password hash (``ClassMapping/passwordHashKeys``), or is
    /// ignored on purpose (``ClassMapping/ignoredColumns``).
    package func reads(_ column: String) -> Bool {
        knownColumns.contains(column) || mapping.passwordHashKeys.contains(column) || mapping.ignoredColumns.contains(column)
    }

    func location(_ line: Int, _ field: FieldMapping?, value: String? = nil) -> SourceLocation {
        SourceLocation(
            file: sourceName, line: line, column: field.map { $0.columns?[0] ?? $0.column },
            className: mapping.className, fieldName: field?.name, value: value)
    }

    /// Drafts for this mapper's records, with room for `capacity`.
    func drafts(capacity: Int = 1) -> ObjectDrafts { ObjectDrafts(width: fields.count, capacity: capacity) }

    /// Appends the record's draft, or every fault found in it, to `drafts`.
    package func map(_ record: SourceRecord, into drafts: inout ObjectDrafts) {
        let outcome = map(record, values: &drafts)
        drafts.append(outcome)
    }

    /// The record as a draft, its values appended to `drafts`' values, or every fault found in it.
    private func map(_ record: SourceRecord, values drafts: inout ObjectDrafts) -> Result<ObjectDraft, MappingFailure> {
        var problems: [Diagnostic] = []
        // A ragged or malformed row is one fault; its cells are still read, for the key that
        // tells references to it that it is rejected.
        let ragged = record.rowFault(file: sourceName).map { fault in
            var location = fault.location
            location.className = mapping.className
            return Diagnostic(record.rowFaultKind, location, fault.reason)
        }
        let base = drafts.values.count
        let columns = record.csvHeader.map(columnIndexes(in:))
        // Indexing (not zip) borrows the coercers instead of copying them per row.
        for index in coercers.indices {
            do {
                let value = try coercers[index].value(in: record, column: columns?[index], references: &drafts.references)
                if coercers[index].field.required && value.isNull {
                    problems.append(
                        Diagnostic(
                            .requiredValueMissing, location(record.line, fields[index], value: cellText(record, fields[index])), "required field is missing"))
                }
                drafts.append(value)
            } catch {
                let field = fields[index]
                var where_ = location(record.line, field, value: cellText(record, field, column: error.column))
                if let column = error.column { where_.column = column }
                problems.append(Diagnostic(error.kind, where_, error.reason))
                drafts.append(.value(.null))
            }
        }
        if let ragged { problems = [ragged] }
        var system = SystemColumns()
        do { if SystemColumns.mayBePresent(in: record) { system = try SystemColumns(record) } } catch {
            problems.append(
                Diagnostic(
                    error.kind,
                    SourceLocation(
                        file: sourceName, line: record.line, column: error.column, className: mapping.className,
                        value: error.value), error.reason))
        }
        var passwordHash: String?
        if !mapping.passwordHashKeys.isEmpty {
            do { passwordHash = try PasswordHash.read(record, keys: mapping.passwordHashKeys) } catch {
                problems.append(
                    Diagnostic(
                        error.kind,
                        SourceLocation(
                            file: sourceName, line: record.line, column: error.column, className: mapping.className,
                            fieldName: error.column, value: error.value), error.reason))
            }
        }
        var key: String?
        if keyedByLine {
            let line = ParseValue.integer(Int64(record.line))
            key = NaturalKey.text(of: readsSeveralFiles ? [.string(sourceName), line] : [line])
        } else if !keyIndices.isEmpty {
            func part(_ index: Int) -> ParseValue {
                switch drafts.values[base + index] {
                case .value(let v): v
                case .pointer(let reference): .string(named([reference], field: index, in: record)[0].sourceText)
                case .relation, .links: .null
                case .upload(let file): .string(file.sha256)
                }
            }
            // A key of one field (the common case) is that value's text: no array of parts per record.
            let parts = keyIndices.count > 1 ? keyIndices.map(part) : nil
            key = parts.map(NaturalKey.text(of:)) ?? NaturalKey.canonicalText(part(keyIndices[0]))
            if key == nil, problems.isEmpty {
                let field = fields[keyIndices[parts?.firstIndex(of: .null) ?? 0]]
                problems.append(Diagnostic(.keyValueMissing, location(record.line, field, value: ""), "key field is missing"))
            }
        }
        let keyHash = key.map(keyHasher.hash)
        let hasIdentity = system.objectId != nil || keyHash != nil
        if !hasIdentity, problems.isEmpty {
            problems.append(
                Diagnostic(
                    .objectIdMissing, SourceLocation(file: sourceName, line: record.line, column: "objectId", className: mapping.className),
                    "\(mapping.className) has no key, so each record needs an objectId"))
        }
        guard problems.isEmpty, hasIdentity else {
            var failure = MappingFailure(problems)
            failure.objectId = system.objectId ?? keyHash?.objectId
            failure.key = key
            failure.keyHash = keyHash
            failure.hasSourceObjectId = system.objectId != nil
            failure.values = drafts.detached(drafts.values[base...])
            return .failure(failure)
        }
        return .success(
            ObjectDraft(
                line: record.line, sourceObjectId: system.objectId, key: key, keyHash: keyHash, acl: system.acl ?? mapping.defaultACL,
                createdAt: system.createdAt, updatedAt: system.updatedAt, passwordHash: passwordHash))
    }

    /// Each coercer's column in `header` (-1: none).
    private func columnIndexes(in header: CSVHeader) -> [Int] {
        resolvedColumns.withLock { resolved in
            if resolved.header !== header {
                resolved = (header, coercers.map { header.index(of: $0.columnPath.name) ?? -1 })
            }
            return resolved.indexes
        }
    }

    /// `references`, read from field `field` of `record`, with their text: those held as their
    /// key hash alone (made from the cell's bytes) are read again from the cell, as text, which
    /// gives the same references with their text (only for messages, keys made of pointers, and
    /// references that outlive their record).
    func named(_ references: [ObjectReference], field: Int, in record: SourceRecord) -> [ObjectReference] {
        guard references.contains(where: { !$0.hasText }), let cell = record.cell(coercers[field].columnPath) else { return references }
        let again: [ObjectReference]
        switch try? coercers[field].coerce(cell) {
        case .pointer(let reference)?: again = [reference]
        case .relation(let references)?: again = references
        default: again = []
        }
        return references.map { reference in reference.hasText ? reference : again.first { $0 == reference } ?? reference }
    }

    func cellText(_ record: SourceRecord, _ field: FieldMapping, column: String? = nil) -> String {
        guard let column = column ?? field.sourceColumns.first else { return "" }
        return record.cell(ColumnPath(column))?.displayText ?? ""
    }
}

extension SourceRecord {
    /// The kind of the fault ``rowFault(file:)`` gives.
    var rowFaultKind: FaultKind { malformation != nil ? .malformedFile : .raggedRow }
}

/// The Parse default columns a source may carry: `objectId`, `createdAt`, `updatedAt`, `ACL`.
struct SystemColumns {
    struct Fault: Error {
        let kind: FaultKind
        let column: String
        let value: String
        let reason: String
    }

    var objectId: String?
    var createdAt: ParseDate?
    var updatedAt: ParseDate?
    var acl: ParseACL?

    static let objectIdColumn = ColumnPath("objectId")
    static let createdAtColumn = ColumnPath("createdAt")
    static let updatedAtColumn = ColumnPath("updatedAt")
    static let aclColumn = ColumnPath("ACL")

    init() {}

    /// False when a CSV header has none of the columns (checked per header, not per row).
    static func mayBePresent(in record: SourceRecord) -> Bool {
        record.csvHeader?.hasParseSystemColumns ?? true
    }

    init(_ record: SourceRecord) throws(Fault) {
        if let id = Self.text(record, Self.objectIdColumn), !id.isEmpty {
            guard id.utf8.count <= 120, id.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
                throw Fault(kind: .invalidValue, column: "objectId", value: id, reason: "an objectId must be 1 to 120 printable ASCII characters")
            }
            objectId = id
        }
        createdAt = try Self.date(record, Self.createdAtColumn)
        updatedAt = try Self.date(record, Self.updatedAtColumn)
        switch record.cell(Self.aclColumn) {
        case nil, .text("")?, .json(.null)?: break
        case .json(.object(let object))?:
            do { acl = try ParseACL(wire: object) } catch {
                throw Fault(kind: .invalidValue, column: "ACL", value: JSONValue.object(object).serialized(), reason: error.message)
            }
        case .text(let text)?:
            guard case .object(let object)? = try? JSONParser.parse(text) else {
                throw Fault(kind: .badJSON, column: "ACL", value: text, reason: "invalid ACL: not a JSON object")
            }
            do { acl = try ParseACL(wire: object) } catch { throw Fault(kind: .invalidValue, column: "ACL", value: text, reason: error.message) }
        case .json(let other)?:
            throw Fault(kind: .wrongType, column: "ACL", value: other.serialized(), reason: "invalid ACL: not a JSON object")
        }
    }

    static func text(_ record: SourceRecord, _ column: ColumnPath) -> String? {
        switch record.cell(column) {
        case .text(let t)?, .json(.string(let t))?: t
        default: nil
        }
    }

    static func date(_ record: SourceRecord, _ column: ColumnPath) throws(Fault) -> ParseDate? {
        switch record.cell(column) {
        case nil, .text("")?, .json(.null)?: return nil
        case .text(let t)?, .json(.string(let t))?:
            guard let date = ParseDate(iso: t) else { throw Fault(kind: .notADate, column: column.name, value: t, reason: "not a date") }
            return date
        case .json(let json)?:
            guard case .date(let date)? = try? ParseValue(wire: json) else {
                throw Fault(kind: .notADate, column: column.name, value: json.serialized(), reason: "not a date")
            }
            return date
        }
    }
}
