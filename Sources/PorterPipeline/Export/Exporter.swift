import Foundation
import ParseModel
import PorterMongoFiles

/// What an export selects and how it writes (`parse-porter export`).
public struct ExportOptions: Sendable {
    /// The files' format.
    public var format: ExportFormat
    /// The classes to export; `nil` for every class the source has.
    public var classes: [String]?
    /// A Parse `where` the exported objects match (with exactly one class).
    public var constraints: JSONObject?
    /// Natural keys by class (a dataset's keys): CSV references name objects by key.
    public var naturalKeys: [String: [String]]
    /// Also write a `dataset.yml` that re-imports the export.
    public var emitManifest: Bool
    /// Write into a folder that is not empty.
    public var force: Bool
    /// Write each `_User`'s bcrypt password hash as `bcryptPassword`, as Parse.com's export did,
    /// so that an import into a mirror or a database keeps every user's password. Only the
    /// `parse` format, which ``ManifestLoader`` reads back with the hashes, and only from a
    /// source that reads them (a mirror, a database: ``ObjectSource/readsPasswordHashes``).
    /// The MongoDB layout always has them, as `_hashed_password`, like the database it stands for.
    public var includePasswordHashes = false

    /// Options of an export in `format`; by default every class, every object, objectIds in references, no password hashes.
    public init(
        format: ExportFormat, classes: [String]? = nil, constraints: JSONObject? = nil, naturalKeys: [String: [String]] = [:],
        emitManifest: Bool = false, force: Bool = false
    ) {
        self.format = format
        self.classes = classes
        self.constraints = constraints
        self.naturalKeys = naturalKeys
        self.emitManifest = emitManifest
        self.force = force
    }
}

/// What an export wrote, per class.
public struct ExportReport: Sendable {
    /// The join file of one relation field.
    public struct RelationFile: Sendable {
        /// The Relation field.
        public let field: String
        /// The file's name in the folder.
        public let file: String
        /// Links written.
        public let links: Int
    }

    /// The file of one class, and those of its relations.
    public struct ClassFile: Sendable {
        /// The class.
        public let className: String
        /// The file's name in the folder (`-` for standard output).
        public let file: String
        /// Objects written.
        public let objects: Int
        /// Its relations' join files.
        public let relations: [RelationFile]
        /// Objects written with their password hash (`_User` only).
        public let passwordHashes: Int
    }

    /// The classes written, in name order.
    public var classes: [ClassFile] = []
    /// Other files written: `schema.json`, `dataset.yml`.
    public var otherFiles: [String] = []
    /// The script that loads the export into its database (`mongoimport.sh` of the MongoDB
    /// layout), as a path in the folder; `nil` for the other formats.
    public var loadScript: String?
    /// What was left out, for the user (relation links of a class written to standard output).
    public var notes: [String] = []
    /// How long the export took.
    public var elapsedSeconds = 0.0
}

/// Exports classes of an ``ObjectSource`` into a folder, one file per class and per relation,
/// streaming: a page of objects is written, with its owners' links, before the next is read.
///
/// ```swift
/// let source = try MirrorObjectSource(path: "library.sqlite")
/// let report = try await Exporter(source: source, options: ExportOptions(format: .ndjson)).run(to: "out")
/// ```
///
/// Cancelling the task that awaits an export stops it between pages: nothing is written to the
/// folder, and a ``PorterError`` caused ``PorterError/Cause/cancelled`` is thrown.
public final class Exporter {
    private let source: ObjectSource
    private let options: ExportOptions

    /// An export of `source` as `options` say.
    public init(source: ObjectSource, options: ExportOptions) {
        self.source = source
        self.options = options
    }

    /// Writes the selected classes into the folder at `path` (created when missing): the files
    /// are staged in a hidden folder inside it and moved into place once all are complete, so a
    /// failed or cancelled export leaves the folder as it was. The source is read on a thread of
    /// its own (see ``ObjectSource``); `progress` is called there.
    @concurrent
    public func run(to path: String, progress: (@Sendable (ClassProgress) -> Void)? = nil) async throws(PorterError) -> ExportReport {
        let lent = Lent(self)
        return try await Cancellation.onThread(named: "parse-porter export") { (cancellation) throws(PorterError) in
            try lent.value.run(to: path, progress: progress, cancellation: cancellation)
        }
    }

    /// ``run(to:progress:)`` on the calling thread, stopped by `cancellation`.
    package func run(to path: String, progress: ((ClassProgress) -> Void)? = nil, cancellation: Cancellation = Cancellation()) throws(PorterError)
        -> ExportReport
    {
        let started = Date()
        try checkPasswordHashes()
        let all = try source.schemas()
        let selected = try select(all)
        let schemas = Dictionary(all.map { ($0.className, $0) }, uniquingKeysWith: { a, _ in a })
        let keyNames =
            options.format == .csv && !options.naturalKeys.isEmpty
            ? try NaturalKeyNames(source: source, schemas: schemas, keys: options.naturalKeys) : nil
        if options.format == .mongo && options.emitManifest {
            throw PorterError(
                .invalidRequest, "the MongoDB layout is read back without a manifest (its _SCHEMA.json says what it holds): export it without dataset.yml")
        }
        let folder = try ExportFolder(path: path, force: options.force)
        var report = ExportReport()
        var manifest = ManifestEmitter()
        let problems = StoredValueProblems()
        do {
            for schema in selected {
                let written = try export(
                    schema, opening: { (name) throws(PorterError) in try OutputFile(path: folder.stagedPath(name)) },
                    withRelations: true, keyNames: keyNames, problems: problems, progress: progress,
                    cancellation: { () throws(PorterError) in try cancellation.check("exporting \(schema.className)", "nothing was written to \(path)") })
                report.classes.append(written)
                manifest.classes.append(
                    .init(schema: schema, file: written.file, key: keyNames?.isKeyed(schema.className) == true ? options.naturalKeys[schema.className]! : []))
                let keyed = keyNames != nil
                for relation in written.relations {
                    manifest.relations.append(
                        .init(
                            owner: schema.className, field: relation.field, file: relation.file,
                            ownerColumn: keyed ? "owner" : "owningId", targetColumn: keyed ? "related" : "relatedId"))
                }
            }
            if options.format == .parse {
                try write(JSONValue.object(JSONObject(["results": .array(selected.map(\.schemaJSON))])).serialized() + "\n", to: "schema.json", in: folder)
                report.otherFiles.append("schema.json")
            }
            if options.format == .mongo {
                try writeMongoFiles(selected, report: &report, in: folder)
            }
            if options.emitManifest {
                try write(manifest.yaml(format: options.format), to: "dataset.yml", in: folder)
                report.otherFiles.append("dataset.yml")
            }
            try folder.publish()
        } catch {
            folder.discard()
            throw error
        }
        report.notes += [problems.note].compactMap { $0 }
        report.elapsedSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// Writes one class's objects to standard output, as NDJSON or CSV: no relation links (a
    /// stream holds one file, the report's notes name the relations left out) and no other files.
    /// Read on a thread of its own, like ``run(to:progress:)``; a failed or cancelled export
    /// leaves the objects written so far in the stream.
    @concurrent
    public func runToStandardOutput(progress: (@Sendable (ClassProgress) -> Void)? = nil) async throws(PorterError) -> ExportReport {
        let lent = Lent(self)
        return try await Cancellation.onThread(named: "parse-porter export") { (cancellation) throws(PorterError) in
            try lent.value.runToStandardOutput(progress: progress, cancellation: cancellation)
        }
    }

    /// ``runToStandardOutput(progress:)`` on the calling thread, stopped by `cancellation`.
    package func runToStandardOutput(progress: ((ClassProgress) -> Void)? = nil, cancellation: Cancellation = Cancellation()) throws(PorterError)
        -> ExportReport
    {
        let started = Date()
        guard options.format == .ndjson || options.format == .csv else {
            throw PorterError(.invalidRequest, "standard output takes the ndjson or csv format, not \(options.format.rawValue)")
        }
        guard !options.emitManifest else { throw PorterError(.invalidRequest, "a manifest is a file of its own: export to a folder to write dataset.yml") }
        try checkPasswordHashes()
        let all = try source.schemas()
        guard let wanted = options.classes, wanted.count == 1 else {
            let named = options.classes.map { "\($0.count) classes (\($0.joined(separator: ", ")))" } ?? "no class"
            throw PorterError(.invalidRequest, "standard output takes one class, but the export names \(named): name one class, or export to a folder")
        }
        let schema = try select(all)[0]
        let schemas = Dictionary(all.map { ($0.className, $0) }, uniquingKeysWith: { a, _ in a })
        let keyNames =
            options.format == .csv && !options.naturalKeys.isEmpty
            ? try NaturalKeyNames(source: source, schemas: schemas, keys: options.naturalKeys) : nil
        var report = ExportReport()
        let problems = StoredValueProblems()
        report.classes.append(
            try export(
                schema, opening: { _ in OutputFile.standardOutput() }, withRelations: false, keyNames: keyNames,
                problems: problems, progress: progress,
                cancellation: { () throws(PorterError) in
                    try cancellation.check("exporting \(schema.className)", "the objects written so far are in the stream")
                }))
        report.notes =
            schema.relationFields.map {
                "\(schema.className).\($0.name): relation links are not written to standard output; export to a folder for its join file"
            }
            + [problems.note].compactMap { $0 }
        report.elapsedSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// Password hashes go only where they are read back, from a source that has them.
    private func checkPasswordHashes() throws(PorterError) {
        guard options.includePasswordHashes, options.format != .mongo else { return }
        guard options.format == .parse else {
            throw PorterError(
                .invalidRequest,
                "the \(options.format.rawValue) format carries no password hashes: the parse format writes them as bcryptPassword, which an import reads back",
                setting: .includePasswordHashes)
        }
        guard source.readsPasswordHashes else {
            throw PorterError(
                .invalidRequest,
                "\(source.location) gives no password hashes: a Parse Server never returns them; export from its database (postgres://…) or from a mirror",
                setting: .includePasswordHashes)
        }
    }

    /// The classes to export, each with names that are safe to build file names from.
    private func select(_ schemas: [ClassSchema]) throws(PorterError) -> [ClassSchema] {
        for schema in schemas {
            if let problem = ParseNames.classNameProblem(schema.className) {
                throw PorterError(
                    .target,
                    "\(source.location): the schema names a class \(JSONValue.string(schema.className).serialized()): \(problem); no file is written for it")
            }
            for field in schema.relationFields {
                if let problem = ParseNames.fieldNameProblem(field.name) {
                    throw PorterError(
                        .target,
                        "\(source.location): the schema names a relation \(schema.className).\(JSONValue.string(field.name).serialized()): \(problem); no file is written for it"
                    )
                }
            }
        }
        var selected = schemas.sorted { $0.className < $1.className }
        if let wanted = options.classes {
            let known = Set(schemas.map(\.className))
            for name in wanted where !known.contains(name) {
                throw PorterError(.invalidRequest, "the source has no class \(name) (it has: \(known.sorted().joined(separator: ", ")))", setting: .classes)
            }
            selected = selected.filter { wanted.contains($0.className) }
        }
        if options.constraints != nil && selected.count != 1 {
            throw PorterError(.invalidRequest, "constraints apply to one class: select one class", setting: .constraints)
        }
        return selected
    }

    /// Writes one class into the files `open` gives by name; its relations' links too, `withRelations`.
    /// Values the source stores that an import would refuse go into `problems`. `stopIfCancelled`
    /// is called before each page.
    private func export(
        _ schema: ClassSchema, opening open: (String) throws(PorterError) -> OutputFile, withRelations: Bool, keyNames: NaturalKeyNames?,
        problems: StoredValueProblems, progress: ((ClassProgress) -> Void)?,
        cancellation stopIfCancelled: () throws(PorterError) -> Void
    ) throws(PorterError) -> ExportReport.ClassFile {
        let className = schema.className
        let fields = schema.storedFields
        let objectFile = "\(className).\(options.format.fileExtension)"
        let total = progress == nil ? 0 : try source.count(of: schema, matching: options.constraints)
        let objects = try ObjectFileWriter(
            file: try open(objectFile), format: options.format, fields: fields,
            relationFields: options.format == .parse ? schema.relationFields : [],
            className: className, encoder: CSVValueEncoder(keyNames: keyNames))
        let relations = try (withRelations ? schema.relationFields : []).map { (field) throws(PorterError) in
            let name = "_Join:\(field.name):\(className).\(options.format.fileExtension)"
            return (
                field, name,
                try LinkFileWriter(
                    file: try open(name), format: options.format, keyed: keyNames != nil,
                    encoder: CSVValueEncoder(keyNames: keyNames))
            )
        }
        var count = 0, hashes = 0
        // The MongoDB layout carries password hashes, as Parse Server's own `_User` does; the
        // Parse layout when asked, as Parse.com's export did.
        let withHashes = className == "_User" && (options.format == .mongo || options.includePasswordHashes)
        // The files are encoded and written on a thread of their own while the next page is read;
        // not with natural keys, whose names are read from the source when first needed.
        let writing = keyNames == nil ? JobThread<Void>(name: "parse-porter export writer") : nil
        defer { writing?.stop() }
        func write(_ job: @escaping JobThread<Void>.Job) throws(PorterError) {
            if let writing { _ = try writing.submit(job) } else { try job() }
        }
        try source.readObjects(of: schema, matching: options.constraints) { (page) throws(PorterError) in
            try stopIfCancelled()
            problems.check(page, className: className, fields: fields)
            let pageHashes = withHashes ? try source.passwordHashes(ofUsers: page.map(\.objectId)) : [:]
            hashes += pageHashes.count
            try write { () throws(PorterError) in
                for object in page { try objects.append(object, passwordHash: pageHashes[object.objectId]) }
            }
            // A selection exports the links of the selected owners only.
            if options.constraints != nil {
                let ownerIds = page.map(\.objectId)
                for (field, _, writer) in relations {
                    let links = try source.links(owner: className, field: field.name, targetClass: field.type.targetClass!, ownerIds: ownerIds)
                    try write { () throws(PorterError) in try writer.append(links, owner: className, field: field.name, targetClass: field.type.targetClass!) }
                }
            }
            count += page.count
            progress?(ClassProgress(className: className, objects: count, total: max(total, count)))
        }
        if options.constraints == nil {
            for (field, _, writer) in relations {
                try source.readLinks(owner: className, field: field.name, targetClass: field.type.targetClass!) { (links) throws(PorterError) in
                    try stopIfCancelled()
                    try write { () throws(PorterError) in try writer.append(links, owner: className, field: field.name, targetClass: field.type.targetClass!) }
                }
            }
        }
        _ = try writing?.drain()
        progress?(ClassProgress(className: className, objects: count, total: count))
        try objects.close()
        for (_, _, writer) in relations { try writer.close() }
        return ExportReport.ClassFile(
            className: className, file: objectFile, objects: count,
            relations: relations.map { .init(field: $0.0.name, file: $0.1, links: $0.2.count) }, passwordHashes: hashes)
    }

    /// The MongoDB layout's `_SCHEMA.json`, one document per exported class, and the script that
    /// loads the folder (executable).
    private func writeMongoFiles(_ schemas: [ClassSchema], report: inout ExportReport, in folder: ExportFolder) throws(PorterError) {
        let file = JSONRecordFile(file: try OutputFile(path: folder.stagedPath(MongoLayout.schemaFile)), format: .mongo)
        for schema in schemas { try file.append(MongoLayout.schemaDocument(schema)) }
        try file.close()
        var script = MongoImportScript(schemas: schemas)
        script.collections.append((MongoLayout.schemaCollection, MongoLayout.schemaFile))
        for written in report.classes {
            script.collections.append((written.className, written.file))
            for relation in written.relations {
                let name = MongoLayout.joinCollection(owner: written.className, field: relation.field)
                script.collections.append((name, relation.file))
                script.joinCollections.insert(name)
            }
        }
        try write(script.text, to: MongoLayout.scriptFile, in: folder)
        do {
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.stagedPath(MongoLayout.scriptFile))
        } catch {
            throw PorterError(.target, "\(folder.path): cannot make \(MongoLayout.scriptFile) executable: \(error.localizedDescription)")
        }
        report.otherFiles += [MongoLayout.schemaFile, MongoLayout.scriptFile]
        report.loadScript = (folder.path as NSString).appendingPathComponent(MongoLayout.scriptFile)
    }

    private func write(_ text: String, to name: String, in folder: ExportFolder) throws(PorterError) {
        let file = try OutputFile(path: folder.stagedPath(name))
        file.buffer += text.utf8
        try file.close()
    }
}

/// Writes one class's objects in the export's format.
private final class ObjectFileWriter {
    private let file: RecordFile
    private let format: ExportFormat
    private let fields: [SchemaField]
    /// Each Relation field as Parse Server returns it in an object, `{"__type":"Relation","className":…}`
    /// (the Parse layout has them, so the classes can be inferred again from the objects alone).
    private let relationPlaceholders: [JSONMember]
    private let className: String
    private let encoder: CSVValueEncoder

    init(
        file output: OutputFile, format: ExportFormat, fields: [SchemaField], relationFields: [SchemaField], className: String,
        encoder: CSVValueEncoder
    ) throws(PorterError) {
        file = try RecordFile(file: output, format: format, header: ParseNames.defaultFields + fields.map(\.name))
        self.format = format
        self.fields = fields
        relationPlaceholders = relationFields.compactMap { field in
            field.type.targetClass.map { JSONMember(field.name, .object(JSONObject(["__type": .string("Relation"), "className": .string($0)]))) }
        }
        self.className = className
        self.encoder = encoder
    }

    /// Writes `object`; `passwordHash` is its `_User` hash, given only where the format carries
    /// it: the MongoDB layout's `_hashed_password`, Parse.com's `bcryptPassword`.
    func append(_ object: StoredObject, passwordHash: String?) throws(PorterError) {
        switch file {
        case .json(let json) where format == .mongo:
            try json.append(MongoLayout.document(object, of: className, fields: fields, passwordHash: passwordHash))
        case .json(let json):
            var record = object.wireJSON(fields)
            if !relationPlaceholders.isEmpty || passwordHash != nil, case .object(var members) = record {
                for placeholder in relationPlaceholders { members[placeholder.key] = placeholder.value }
                if let passwordHash { members[ParseExportSystemClasses.exportedHashKey] = .string(passwordHash) }
                record = .object(members)
            }
            try json.append(record)
        case .csv(let csv):
            try csv.writeRow { (row) throws(PorterError) in
                row.cell(object.objectId)
                if let date = object.createdAt { row.cell(date: date) } else { row.emptyCell() }
                if let date = object.updatedAt { row.cell(date: date) } else { row.emptyCell() }
                if let acl = object.acl { row.cell(json: ParseValue.acl(acl).wireJSON) } else { row.emptyCell() }
                for (field, value) in zip(fields, object.values) {
                    try encoder.append(value, field: field.name, of: className, objectId: object.objectId, to: &row)
                }
            }
        }
    }

    func close() throws(PorterError) { try file.close() }
}

/// Writes one relation's links: `{"owningId","relatedId"}` records, or CSV rows naming both
/// sides by objectId (`owningId,relatedId`) or by natural key (`owner,related`).
private final class LinkFileWriter {
    private let file: RecordFile
    private let format: ExportFormat
    private let encoder: CSVValueEncoder
    private(set) var count = 0

    init(file output: OutputFile, format: ExportFormat, keyed: Bool, encoder: CSVValueEncoder) throws(PorterError) {
        file = try RecordFile(file: output, format: format, header: keyed ? ["owner", "related"] : ["owningId", "relatedId"])
        self.format = format
        self.encoder = encoder
    }

    func append(_ links: [RelationLink], owner: String, field: String, targetClass: String) throws(PorterError) {
        count += links.count
        for link in links {
            switch file {
            case .json(let json) where format == .mongo:
                try json.append(MongoLayout.link(link))
            case .json(let json):
                try json.append(.object(JSONObject(["owningId": .string(link.owningId), "relatedId": .string(link.relatedId)])))
            case .csv(let csv):
                // Who refers, for the error when a side cannot be named; built only then.
                let context = { "\(owner) \(link.owningId) \(field)" }
                let cells = (try encoder.reference(owner, link.owningId, from: context()), try encoder.reference(targetClass, link.relatedId, from: context()))
                try csv.writeRow { row in
                    row.cell(cells.0)
                    row.cell(cells.1)
                }
            }
        }
    }

    func close() throws(PorterError) { try file.close() }
}
