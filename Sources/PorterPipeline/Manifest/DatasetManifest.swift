import Foundation
import ParseModel
import PorterReaders

/// A dataset: which source files feed which Parse classes, and how (Docs/Manifest.md).
///
/// ``ManifestLoader/load(_:targetClasses:includeInstallations:)`` reads one from a
/// `dataset.yml`; a program may build one in code, with records from memory or from files,
/// and check it (``check(targetClasses:)``; ``Importer`` checks it before anything else):
///
/// ```swift
/// let authors = MemorySource(name: "authors (in memory)", rows: [["name": .string("Ursula K. Le Guin")]])
/// let books = MemorySource(name: "books (in memory)", rows: [["title": .string("The Dispossessed"), "author": .string("Ursula K. Le Guin")]])
/// let manifest = DatasetManifest(classes: [
///     ClassMapping(className: "Author", records: authors, key: ["name"], fields: [FieldMapping(name: "name", type: .string)]),
///     ClassMapping(className: "Book", records: books, key: ["title"], fields: [
///         FieldMapping(name: "title", type: .string, required: true),
///         FieldMapping(name: "author", type: .pointer(targetClass: "Author")),
///     ]),
/// ])
/// try manifest.check()
/// let report = try Importer(manifest: manifest).run(into: SQLiteMirror(path: "library.sqlite"))
/// ```
public struct DatasetManifest: Sendable {
    /// The most classes one dataset may declare (a Parse export may hold, `init` may read
    /// files for): the work of an import grows with them, and every request `serve` answers
    /// reads each class's schema.
    public static let maximumClasses = 1000

    /// The folder the manifest's relative paths start from.
    public var directory: String
    /// The manifest file's name as shown in messages (`dataset.yml`, or `schema.json` for a Parse export).
    public var fileName: String
    /// The classes, in the order the manifest declares them (``Planner`` decides the order they are written in).
    public var classes: [ClassMapping]
    /// The join relations: Relation links read from join files or join rows.
    public var relations: [JoinRelationMapping]
    /// What the user should know about how the dataset was read (classes a Parse export gives
    /// no permissions); commands print them with the summary or on stderr.
    public var notes: [String]
    /// Where the source files are: the manifest's folder, or the zip archive of a Parse export.
    public var files: SourceFiles
    /// Classes of a Parse export left out, each with why; reports list them.
    public var skippedClasses: [SkippedClass]
    /// For a manifest inferred from one file (``ManifestInference/manifest(forFile:className:key:format:)``),
    /// its guesses, each with what it saw; an import's report carries them. Empty otherwise.
    public var inferredGuesses: [InferenceGuess] = []
    /// Whether every column a field reads must be in its source unless the field is
    /// ``FieldMapping/optional`` (a manifest written by hand); a Parse export's objects may lack any field.
    public var requiresMappedColumns = false
    /// What the import does with a pointer, link or join row that names no object: a manifest
    /// refuses it (``DanglingReferencePolicy/reject``); a Parse export, read as Parse kept it, keeps it.
    public var danglingReferences = DanglingReferencePolicy.reject
    /// Whether the manifest was built in code (``init(classes:relations:directory:)``), not read from a file.
    package var isBuiltInCode = false

    /// A manifest read from `fileName` in `directory` (the loader's and a Parse export layout's).
    package init(
        directory: String, fileName: String, classes: [ClassMapping], relations: [JoinRelationMapping], notes: [String] = [],
        files: SourceFiles? = nil, skippedClasses: [SkippedClass] = []
    ) {
        self.directory = directory
        self.fileName = fileName
        self.classes = classes
        self.relations = relations
        self.notes = notes
        self.files = files ?? .folder(directory)
        self.skippedClasses = skippedClasses
    }

    /// A manifest built in code: `classes` read from memory (``ClassMapping/init(className:records:key:fields:defaultACL:mode:strict:)``)
    /// or from files in `directory`, each named as it is (no glob), and join `relations`. As for
    /// a `dataset.yml`, every column a field reads must be in its source unless the field is
    /// ``FieldMapping/optional``. A relation whose owner lacks its field gets it, as in a
    /// `dataset.yml`. Faults name the manifest by no file (``ManifestFault/file`` is `nil`).
    public init(classes: [ClassMapping], relations: [JoinRelationMapping] = [], directory: String = FileManager.default.currentDirectoryPath) {
        var classes = classes
        for index in classes.indices { classes[index].adoptExtraction() }
        for relation in relations { Self.attachJoinField(of: relation, to: &classes) }
        self.init(directory: directory, fileName: Self.builtInCodeName, classes: classes, relations: relations)
        requiresMappedColumns = true
        isBuiltInCode = true
    }

    /// What locations about the manifest as a whole name a manifest built in code by.
    static let builtInCodeName = "manifest (in code)"

    /// The manifest file faults name: ``fileName``, or `nil` for a manifest built in code.
    public var manifestFile: String? { isBuiltInCode ? nil : fileName }

    /// Marks the owner's field a join relation feeds as fed from it, declaring the field when the
    /// owner lacks it (a relation naming an undeclared owner or a field that is no Relation is
    /// left to ``check(targetClasses:)``).
    static func attachJoinField(of relation: JoinRelationMapping, to classes: inout [ClassMapping]) {
        guard let owner = classes.firstIndex(where: { $0.className == relation.owner }) else { return }
        if let field = classes[owner].fields.firstIndex(where: { $0.name == relation.field }) {
            if case .relation = classes[owner].fields[field].type { classes[owner].fields[field].fromJoinFile = true }
        } else {
            classes[owner].fields.append(FieldMapping(name: relation.field, type: .relation(targetClass: relation.targetClass), fromJoinFile: true))
        }
    }

    /// Why a dataset of `count` classes (or class files), more than ``maximumClasses``, is refused.
    static func tooManyClasses(_ count: Int) -> String {
        "\(count) classes; a dataset may have at most \(maximumClasses): split it into several imports"
    }

    /// The class named `className`, if the manifest declares it.
    public func mapping(for className: String) -> ClassMapping? { classes.first { $0.className == className } }

    /// The Parse schema every declared class gets (fields, required flags, defaults).
    public var schemas: [ClassSchema] {
        classes.map { mapping in
            ClassSchema(
                className: mapping.className, fields: mapping.fields.map(\.schemaField),
                classLevelPermissions: mapping.classLevelPermissions, indexes: mapping.indexes)
        }
    }
}

/// A class of the source that is not imported, and why.
public struct SkippedClass: Sendable, Equatable {
    /// The class as the source names it.
    public let className: String
    /// Why it is not imported (`skipped: the target makes its own sessions`).
    public let reason: String
    /// The setting that imports it instead, when one does (`_Installation`:
    /// ``ParseExportOptions/includeInstallations``).
    public let setting: PorterError.Setting?

    /// A class left out for `reason`; `setting` imports it instead.
    public init(className: String, reason: String, setting: PorterError.Setting? = nil) {
        self.className = className
        self.reason = reason
        self.setting = setting
    }
}

/// One class of a dataset: its source files and how records map onto its fields.
public struct ClassMapping: Sendable {
    /// The Parse class the records become objects of.
    public var className: String
    /// The source as the manifest names it, relative to its folder: a file, a glob
    /// (`data/orders-*.csv`), or a list of them.
    public var sourcePatterns: [String]
    /// The files ``sourcePatterns`` name, in the order they are read (set by ``ManifestLoader``;
    /// until then, the patterns themselves).
    public var sources: [String]
    /// Field names forming the natural key; empty when objects are identified by a source
    /// `objectId`; ``lineKey`` alone when each record is identified by its line.
    public var key: [String]
    /// The fields, each read from its column(s) of a record.
    public var fields: [FieldMapping]
    /// The ACL given to objects whose source has none.
    public var defaultACL: ParseACL?
    /// How objects that already exist in the target are written.
    public var mode: WriteMode
    /// Unknown source columns are an error.
    public var strict: Bool
    /// The CSV delimiter byte; `nil` means the file extension's default.
    public var delimiter: UInt8?
    /// The source file's encoding; `nil`: UTF-8, or UTF-16 after a byte order mark.
    public var encoding: TextEncoding?
    /// The source files' format (`format:`), for files whose extension names none (`.txt`,
    /// `.dat`); `nil`: the extension's.
    public var format: SourceFormat?
    /// The column names of a CSV source without a header row (`header:`): its first line is a record.
    public var header: [String]?
    /// How the quotes of a CSV source are read (`quotes:`).
    public var quotes = CSVQuotes.strict
    /// Source keys read by no field on purpose, which are neither faults nor reported as
    /// skipped (a Dashboard export's `className`, Relation placeholders fed from join files).
    public var ignoredColumns: Set<String> = []
    /// Class-level permissions and indexes in `/schemas` JSON, given to the class when the
    /// import creates it (a Parse export's `schema.json` has them; a manifest does not).
    public var classLevelPermissions: JSONValue?
    /// Indexes as `/schemas` JSON gives them (`{"title_1": {"title": 1}}`); see ``classLevelPermissions``.
    public var indexes: JSONValue?
    /// Source keys that may hold a `_User`'s bcrypt password hash (a Parse export's
    /// `bcryptPassword` or `_hashed_password`); empty for other classes.
    public var passwordHashKeys: [String] = []
    /// For a class whose objects are the distinct values of a column of ``source`` (`extract:`),
    /// which column and how its cells split; `nil` for a class read record by record.
    public var extract: ValueExtraction?
    /// Records from memory, read in place of files (set by the `records:` initializer); ``sources`` is then its name alone.
    public internal(set) var records: MemorySource?

    /// A class whose records come from `source`, a file relative to the manifest's folder (a
    /// manifest built in code names one file; one loaded from `dataset.yml` may also give a glob
    /// or a list). `key`: the fields that identify an object, empty when the source has `objectId`s.
    public init(
        className: String, source: String, key: [String], fields: [FieldMapping], defaultACL: ParseACL? = nil,
        mode: WriteMode = .upsert, strict: Bool = false, delimiter: UInt8? = nil
    ) {
        self.className = className
        self.sourcePatterns = [source]
        self.sources = [source]
        self.key = key
        self.fields = fields
        self.defaultACL = defaultACL
        self.mode = mode
        self.strict = strict
        self.delimiter = delimiter
    }

    /// A class whose records come from memory; faults name `records.name` as the file and
    /// a record's 1-based position as the line.
    ///
    /// ```swift
    /// let rows = MemorySource(name: "customers (in memory)", rows: [["email": .string("ada@example.com"), "since": .string("2024-03-01")]])
    /// let customers = ClassMapping(className: "Customer", records: rows, key: ["email"], fields: [
    ///     FieldMapping(name: "email", type: .string, required: true),
    ///     FieldMapping(name: "since", type: .date),
    /// ])
    /// ```
    public init(
        className: String, records: MemorySource, key: [String], fields: [FieldMapping], defaultACL: ParseACL? = nil,
        mode: WriteMode = .upsert, strict: Bool = false
    ) {
        self.init(className: className, source: records.name, key: key, fields: fields, defaultACL: defaultACL, mode: mode, strict: strict)
        self.records = records
    }

    /// The field named `name`, if the class has it.
    public func field(named name: String) -> FieldMapping? { fields.first { $0.name == name } }

    /// The ``key`` that identifies each record by its place in its source (`key: $line`): the line
    /// on which it starts, and the file's name too when the class reads several files.
    public static let lineKey = "$line"

    /// Whether records are identified by their line (``lineKey``).
    public var isKeyedByLine: Bool { key == [Self.lineKey] }

    /// The fields of the natural key whose values identify an object; empty for a class keyed
    /// by objectId or by line.
    public var keyFields: [String] { isKeyedByLine ? [] : key }

    /// How the source files are read.
    package var reading: SourceReading {
        SourceReading(format: format, delimiter: delimiter, encoding: encoding, header: header, quotes: quotes)
    }

    /// The source as messages name it as a whole: the manifest's text (a list joined with `, `).
    public var source: String { sourcePatterns.joined(separator: ", ") }

    /// An extracted class's one field is its key when none is given, and reads the extracted
    /// column unless it names another column (a fault ``DatasetManifest/check(targetClasses:)`` reports).
    mutating func adoptExtraction() {
        guard let extract, fields.count == 1 else { return }
        if key.isEmpty { key = [fields[0].name] }
        if fields[0].column == fields[0].name { fields[0].column = extract.column }
    }
}

/// The values an extracted class takes from its source: one object per distinct value of
/// `column`, or per distinct part of its cells split on `split` (parts trimmed of spaces and
/// tabs, as a split Relation cell's are). The class's one field, its key, holds the value.
public struct ValueExtraction: Sendable, Equatable {
    /// The source column (CSV header or JSON key) the values come from.
    public var column: String
    /// The separator its cells are split on; `nil`: each cell is one value.
    public var split: String?

    /// The distinct values of `column`, or of its cells' parts split on `split`.
    public init(column: String, split: String? = nil) {
        self.column = column
        self.split = split
    }
}

/// How one Parse field is read from a source record.
public struct FieldMapping: Sendable {
    /// The Parse field's name.
    public var name: String
    /// The Parse type the source's values are read as.
    public var type: FieldType
    /// The source column (CSV header or JSON key; dots reach into nested JSON).
    public var column: String
    /// Two columns (latitude, longitude) for a GeoPoint.
    public var columns: [String]?
    /// A record without a value for the field is a fault (Parse's `required`).
    public var required: Bool
    /// The value of objects whose record has none (Parse's `defaultValue`).
    public var defaultValue: ParseValue?
    /// Date formats tried in order: patterns such as `dd.MM.yyyy`, or `unix` / `unix-ms`
    /// (``DatePattern``); empty means ISO 8601.
    public var formats: [String] = []
    /// Separator that splits one cell into Array items or Relation targets.
    public var split: String?
    /// Enum mapping from source text to the stored value.
    public var values: [String: ParseValue]?
    /// Cell texts that mean null; an empty cell always does.
    public var nullTokens: Set<String>
    /// Fed from a join file in `relations:`, not from the class's own source.
    public var fromJoinFile: Bool
    /// For a Pointer or Relation: the target's field whose value a cell names (`by:`), unique
    /// among the target's objects; `nil` means the target's natural key.
    public var by: String?
    /// A File field whose cells are paths of local files (relative to the source file's
    /// folder), uploaded to the target; the field gets the name and URL the target gives.
    public var upload = false
    /// The source may lack the field's column(s): not an error, nor a note (see ``DatasetManifest/requiresMappedColumns``).
    public var optional = false
    /// How the source writes the numbers of a Number field or GeoPoint columns (the class's
    /// `decimal` and `thousands`, or the field's own).
    public var numberFormat = NumberFormat.standard

    /// A field read from `column` (its own name when `nil`), or from two `columns` for a GeoPoint.
    public init(
        name: String, type: FieldType, column: String? = nil, columns: [String]? = nil, required: Bool = false,
        defaultValue: ParseValue? = nil, formats: [String] = [], split: String? = nil,
        values: [String: ParseValue]? = nil, nullTokens: Set<String> = [], fromJoinFile: Bool = false
    ) {
        self.name = name
        self.type = type
        self.column = column ?? name
        self.columns = columns
        self.required = required
        self.defaultValue = defaultValue
        self.formats = formats
        self.split = split
        self.values = values
        self.nullTokens = nullTokens
        self.fromJoinFile = fromJoinFile
    }

    /// The field as the class's schema declares it.
    package var schemaField: SchemaField {
        SchemaField(name: name, type: type, required: required, defaultValue: defaultValue)
    }

    /// The source columns this field reads.
    public var sourceColumns: [String] {
        fromJoinFile ? [] : (columns ?? [column])
    }
}

/// A many-to-many relation read from a join file: each row links an owner to a target.
public struct JoinRelationMapping: Sendable {
    /// The class whose Relation field the links go to.
    public var owner: String
    /// The Relation field of ``owner``.
    public var field: String
    /// The class the Relation points at.
    public var targetClass: String
    /// The join file as the manifest names it: a file, a glob, or a list of them.
    public var sourcePatterns: [String]
    /// The files ``sourcePatterns`` name, in the order they are read (set by ``ManifestLoader``;
    /// until then, the patterns themselves).
    public var sources: [String]
    /// The column naming the owner of a link (its key, or its ``ownerBy`` field).
    public var ownerColumn: String
    /// The column naming the target of a link (its key, or its ``targetBy`` field).
    public var targetColumn: String
    /// The CSV delimiter byte; `nil` means the file extension's default.
    public var delimiter: UInt8?
    /// The owner's and the target's fields whose values the two columns name (`ownerBy:`,
    /// `targetBy:`); `nil` means the natural key.
    public var ownerBy: String?
    /// See ``ownerBy``.
    public var targetBy: String?
    /// The join file's encoding; `nil`: UTF-8, or UTF-16 after a byte order mark.
    public var encoding: TextEncoding?
    /// The join files' format, for files whose extension names none; `nil`: the extension's.
    public var format: SourceFormat?
    /// The column names of a CSV join file without a header row.
    public var header: [String]?
    /// How the quotes of a CSV join file are read.
    public var quotes = CSVQuotes.strict
    /// Records from memory, read in place of files (set by the `records:` initializer); ``sources`` is then its name alone.
    public internal(set) var records: MemorySource?

    /// How the join files are read.
    package var reading: SourceReading {
        SourceReading(format: format, delimiter: delimiter, encoding: encoding, header: header, quotes: quotes)
    }

    /// A join relation read from `source`, a file relative to the manifest's folder.
    public init(
        owner: String, field: String, targetClass: String, source: String, ownerColumn: String, targetColumn: String, delimiter: UInt8? = nil,
        encoding: TextEncoding? = nil
    ) {
        self.owner = owner
        self.field = field
        self.targetClass = targetClass
        self.sourcePatterns = [source]
        self.sources = [source]
        self.ownerColumn = ownerColumn
        self.targetColumn = targetColumn
        self.delimiter = delimiter
        self.encoding = encoding
    }

    /// A join relation whose rows come from memory: each names an owner in `ownerColumn` and
    /// a target in `targetColumn` (by their keys, or by ``ownerBy`` and ``targetBy``).
    public init(owner: String, field: String, targetClass: String, records: MemorySource, ownerColumn: String, targetColumn: String) {
        self.init(owner: owner, field: field, targetClass: targetClass, source: records.name, ownerColumn: ownerColumn, targetColumn: targetColumn)
        self.records = records
    }

    /// The join file as messages name it as a whole: the manifest's text (a list joined with `, `).
    public var source: String { sourcePatterns.joined(separator: ", ") }
}
