import Foundation
import ParseModel
import PorterReaders

/// One pass over every source of a dataset, in plan order: read, map, check keys, resolve
/// references and (when writing) send objects, patches and links to the sink.
///
/// - `validating`: no sink; collects faults.
/// - `collectingRejects`: no sink; also decides which rows `--max-errors` leaves out,
///   following references so that rows pointing at rejected rows are rejected too.
/// - `writing`: sends to the sink while no fault has been seen; rows in the reject plan are
///   skipped and written to the rejects folder, and so are the objects a target that cannot
///   roll back refuses.
///
/// The pass reads, maps and words faults; three parts with one job each decide the rest:
/// ``ReferenceResolver`` (what a reference resolves to, and which wait for a later class),
/// ``RejectTracker`` (which rows `--max-errors` leaves out) and ``SinkFeeder`` (what is sent
/// to the sink, on the writer thread, and whether anything still is).
final class ImportPass {
    enum Mode {
        case validating
        case collectingRejects
        case writing(ObjectSink, RejectPlan?)
    }

    let manifest: DatasetManifest
    let plan: ImportPlan
    let mode: Mode
    let options: ImportOptions
    let progress: (@Sendable (ImportProgress) -> Void)?

    var log: DiagnosticLog
    @exclusivity(unchecked) var classTallies: [String: ImportReport.ClassTally] = [:]
    var relationTallies: [String: ImportReport.RelationTally] = [:]
    /// By class, the objects the target had as they are before their cyclic pointers were
    /// patched: a patch that changes one makes it updated, not unchanged.
    var unchangedBeforePatches: [String: Set<String>] = [:]
    /// What references resolve against, and those that wait for a later class.
    let references: ReferenceResolver
    /// How cells naming objects are read.
    let referenceChains: ReferenceChains
    /// Sends to the sink (writing mode only).
    let feeder: SinkFeeder?
    var rejects: RejectFiles?
    /// The rows `maxErrors` leaves out: collected by one pass, applied by the next.
    @exclusivity(unchecked) var rejectTracker: RejectTracker
    /// Records read from every source so far.
    @exclusivity(unchecked) private var recordsRead = 0
    /// What ``warmKeys(of:in:targets:)`` read, kept so that its reads are not optimised away.
    private var warmth: Int32 = 0
    /// Keys of JSON objects no field reads, in the order first seen, and where each is.
    var skippedKeys: [SkippedKey] = []
    private var skippedKeyIndex: [String: Int] = [:]
    /// `_User` objects read with a password hash.
    var passwordHashes = 0
    /// What the report tells besides faults: columns some JSON records lack (``SourceColumnCheck``).
    var notes: [String] = []
    /// `_User` objects of a Parse export read with neither a password hash nor `authData`: a
    /// Parse Server creates no such user over REST (201, password is required).
    var usersWithoutPassword = 0
    /// Per source (a class's index, or the class count plus a join relation's), which file
    /// each row number was read from: a class may read several files.
    var sourceRows: [Int: SourceRows] = [:]
    /// The records read from each file of the classes and join relations that read several.
    var sourceFiles: [SourceFileTally] = []
    /// Whether join files are read before the classes, so that each owner is created with its
    /// links in one request: when references resolve ahead (a server that takes the loader's
    /// objectIds). A later update would set a new `updatedAt`, which no key can keep.
    var joinFilesAhead: Bool { sending != nil && references.resolvesAhead }
    /// References that name no object and that the dataset's policy lets pass, by `Class.field`.
    var danglingTallies: [String: DanglingReferenceTally] = [:]
    /// The keys of ``danglingTallies`` in the order first met.
    var danglingOrder: [String] = []
    /// When pruning, while writing: the keys and links the sources hold.
    @exclusivity(unchecked) var pruneTracker: PruneTracker?
    /// The run's token, checked between records.
    var cancellation = Cancellation()
    /// Each class's index in ``DatasetManifest/classes``, so a dataset of thousands of classes
    /// finds each one in constant time.
    private let classIndexes: [String: Int]
    /// By the source a class reads (files, delimiter, encoding), the classes reading it, in plan order.
    private let classesBySource: [SourceKey: [String]]
    /// Each class's position in ``ImportPlan/classOrder``.
    private let planPositions: [String: Int]

    /// `validatedIndexes`: the complete key indexes of a validating pass that ran before this
    /// one; a writing pass resolves references against them as it reads when its sink takes
    /// references ahead (the sink has begun).
    init(
        manifest: DatasetManifest, plan: ImportPlan, mode: Mode, options: ImportOptions, validatedIndexes: [String: KeyIndex]? = nil,
        progress: (@Sendable (ImportProgress) -> Void)?
    ) {
        self.manifest = manifest
        self.plan = plan
        self.mode = mode
        self.options = options
        self.progress = progress
        self.referenceChains = ReferenceChains(manifest)
        self.log = DiagnosticLog(limit: options.shownErrorLimit, handler: options.faultHandler)
        classIndexes = Dictionary(manifest.classes.enumerated().map { ($1.className, $0) }, uniquingKeysWith: { first, _ in first })
        planPositions = Dictionary(plan.classOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var bySource: [SourceKey: [String]] = [:]
        for name in plan.classOrder {
            guard let index = classIndexes[name] else { continue }
            bySource[SourceKey(manifest.classes[index]), default: []].append(name)
        }
        classesBySource = bySource
        switch mode {
        case .validating, .writing(_, nil): rejectTracker = RejectTracker(.none)
        case .collectingRejects: rejectTracker = RejectTracker(.collecting)
        case .writing(_, let plan?): rejectTracker = RejectTracker(.applying(plan))
        }
        if case .writing(let sink, let plan) = mode, plan != nil || !sink.isTransactional, let directory = options.rejectsDirectory {
            self.rejects = RejectFiles(directory: directory)
        }
        if case .writing(let sink, _) = mode {
            feeder = SinkFeeder(sink: sink, keepsRecords: !sink.isTransactional && rejects != nil)
            references = ReferenceResolver(manifest: manifest, validatedIndexes: validatedIndexes, resolvesAhead: sink.takesReferencesAhead)
            if options.prune { pruneTracker = PruneTracker() }
        } else {
            feeder = nil
            references = ReferenceResolver(manifest: manifest)
        }
        for mapping in manifest.classes {
            classTallies[mapping.className] = .init(className: mapping.className)
            for field in mapping.fields {
                guard case .relation = field.type else { continue }
                relationTallies["\(mapping.className).\(field.name)"] = .init(relation: "\(mapping.className).\(field.name)")
            }
        }
        feeder?.answered = { [unowned self] completion throws(PorterError) in try record(completion) }
    }

    /// The feeder while it still sends (writing mode, no fault that stops writing seen).
    var sending: SinkFeeder? {
        feeder?.isOpen == true ? feeder : nil
    }

    /// Stops sending: a fault was seen and nothing may be written.
    func stopSending() {
        feeder?.close()
    }

    var givenRejects: RejectPlan? { rejectTracker.applied }

    /// Runs the pass; returns the reject files written.
    func run() throws(PorterError) -> [String] {
        guard case .writing = mode else {
            try readEverything()
            return []
        }
        defer { feeder?.stop() }
        do {
            try readEverything()
            references.forgetObjects()
            try feeder?.finish()
            return try rejects?.close() ?? []
        } catch {
            rejects?.discard()
            throw error
        }
    }

    private func readEverything() throws(PorterError) {
        try checkHeaders()
        let joinsAhead = joinFilesAhead
        if joinsAhead {
            for (index, relation) in manifest.relations.enumerated() { try loadJoinFile(relation, source: manifest.classes.count + index) }
        }
        var loaded: Set<String> = []
        for className in plan.classOrder where !loaded.contains(className) {
            let group = sourceGroup(startingAt: className, loaded: loaded)
            loaded.formUnion(group.map(\.className))
            try load(group)
        }
        try resolveDeferred()
        for (index, relation) in manifest.relations.enumerated() where !joinsAhead {
            try loadJoinFile(relation, source: manifest.classes.count + index)
        }
        reportUncheckedReferences()
        if rejectTracker.isCollecting { followReferences() }
    }

    // MARK: Classes, one source file at a time

    func sourceIndex(_ className: String) -> Int {
        classIndexes[className]!
    }

    /// The class named `className`, if the manifest declares it.
    private func mapping(for className: String) -> ClassMapping? {
        classIndexes[className].map { manifest.classes[$0] }
    }

    /// What classes read together must share: the files, their delimiter and their encoding.
    private struct SourceKey: Hashable {
        let sources: [String]
        let reading: SourceReading

        init(_ mapping: ClassMapping) {
            sources = mapping.sources
            reading = mapping.reading
        }
    }

    /// Opens `source`, or `memory` when the records come from memory; `keyPath` is where the
    /// manifest declares it (`classes.Customer`), for messages. A file is parsed a batch ahead, on
    /// a thread of its own, which also prepares records while this thread is behind (``PreparedRecords``).
    func openReader<Prepared>(
        _ source: String, memory: MemorySource?, reading: SourceReading, declaredAt keyPath: String,
        prepare: @escaping @Sendable ([SourceRecord]) -> Prepared,
        arriving: ((ReadAheadReader<Prepared>.Batch) -> Void)? = nil
    ) -> PreparedRecords<Prepared>? {
        do {
            guard let reader = try reader(source, memory: memory, reading: reading) else { return nil }
            return PreparedRecords(reader, readsAhead: memory == nil, prepare: prepare, arriving: arriving)
        } catch {
            readerFailed(error, source: source, declaredAt: keyPath)
            return nil
        }
    }

    /// A reader of `source`; `nil` for a file type none reads (the manifest check has named it).
    private func reader(_ source: String, memory: MemorySource?, reading: SourceReading) throws(ReaderError) -> (any RecordReader)? {
        if let memory { return try memory.reader() }
        guard reading.format(of: source) != nil else { return nil }
        return try manifest.files.openReader(source, reading: reading)
    }

    /// Before any record is read: every CSV header has the columns the fields read
    /// (``SourceColumnCheck``), and an `objectId` column when the class has no key. A file that
    /// cannot be opened is reported when it is read.
    private func checkHeaders() throws(PorterError) {
        for mapping in manifest.classes {
            let check = SourceColumnCheck([mapping], manifest: manifest)
            let needsObjectIds = mapping.key.isEmpty && mapping.extract == nil
            guard !check.isEmpty || needsObjectIds, let first = mapping.sources.first,
                let csv = (try? reader(first, memory: mapping.records, reading: mapping.reading)) as? CSVReader
            else { continue }
            try check.check(csv.header)
            if needsObjectIds && csv.header.index(of: "objectId") == nil {
                throw PorterError(
                    ManifestFault(
                        file: manifest.manifestFile, keyPath: (ManifestPath.root + "classes" + mapping.className).keys,
                        message: "\(mapping.className) has no key, and \(first) has no objectId column to identify its records: "
                            + Self.identityAdvice(mapping.className)))
            }
        }
    }

    /// The next record of `reader`; `nil` at the end of the file or at a fault, which is
    /// logged (a reader fault ends its file). Stops the pass once its run is cancelled.
    func nextRecord<Prepared>(from reader: inout PreparedRecords<Prepared>, declaredAt keyPath: String) throws(PorterError) -> (
        record: SourceRecord, prepared: Prepared?, index: Int
    )? {
        let next: (record: SourceRecord, prepared: Prepared?, index: Int)?
        do {
            next = try reader.next()
        } catch {
            readerFailed(error, source: reader.displayName, declaredAt: keyPath)
            stopSending()
            return nil
        }
        recordsRead += 1
        if let next, recordsRead % 1024 == 0 {
            try cancellation.check("reading \(reader.displayName) line \(next.record.line)", cancelledOutcome)
        }
        return next
    }

    /// What a cancelled pass leaves behind.
    private var cancelledOutcome: String {
        guard case .writing(let sink, _) = mode else { return "nothing was written" }
        return sink.isTransactional
            ? "the target was left as it was"
            : "the objects written so far stay in the target; running the import again writes the rest"
    }

    func fileSize(_ source: String) -> Int64 {
        manifest.files.size(of: source)
    }

    /// The manifest's `source` text of `source` (a class's index, or the class count plus a join
    /// relation's), and the files it reads.
    private func sourceSpec(_ source: Int) -> (text: String, files: [String]) {
        guard source >= manifest.classes.count else { return (manifest.classes[source].source, manifest.classes[source].sources) }
        let relation = manifest.relations[source - manifest.classes.count]
        return (relation.source, relation.sources)
    }

    /// The file and line of row `row` of `source` (see ``sourceRows``); row 0 is the source as a whole.
    func location(source: Int, row: Int) -> (file: String, line: Int) {
        guard row > 0, let rows = sourceRows[source] else { return (sourceSpec(source).text, row) }
        return rows.location(of: row)
    }

    /// The file of row `row` of `source` when the source has several files (messages and rejects name it then).
    func fileOfRow(source: Int, row: Int) -> String? {
        sourceSpec(source).files.count < 2 ? nil : location(source: source, row: row).file
    }

    /// Row `row` of `source` as a message names it: `line 7`, or `orders-2023.csv:7` when the
    /// source has several files and the row is in another file than `file`, the one the message is about.
    func rowText(source: Int, row: Int, besides file: String) -> String {
        let place = location(source: source, row: row)
        return fileOfRow(source: source, row: row) == nil || place.file == file ? "line \(place.line)" : "\(place.file):\(place.line)"
    }

    /// Classes read together in one pass over their shared source: `first` and the classes
    /// after it in plan order that read the same file and need nothing loaded in between.
    private func sourceGroup(startingAt first: String, loaded: Set<String>) -> [ClassMapping] {
        let head = mapping(for: first)!
        var group = [head]
        let finished = references.finishedClasses
        var grouped: Set = [first]
        let position = planPositions[first] ?? -1
        for name in classesBySource[SourceKey(head)] ?? [] where planPositions[name, default: -1] > position && !loaded.contains(name) {
            let candidate = mapping(for: name)!
            let needs = Set(
                candidate.fields.compactMap { field -> String? in
                    guard case .pointer(let target) = field.type, !(plan.cyclicFields[name]?.contains(field.name) ?? false) else { return nil }
                    return mapping(for: target) == nil ? nil : target
                })
            if needs.allSatisfy({ grouped.contains($0) || finished.contains($0) }) {
                group.append(candidate)
                grouped.insert(name)
            }
        }
        return group
    }

    /// The state of one class while its source is read.
    private final class ClassLoad {
        let mapping: ClassMapping
        /// The mapper of the file being read.
        @exclusivity(unchecked) var mapper: ClassMapper
        let index: KeyIndex
        let source: Int
        /// Per field of ``ClassMapper/fields``: whether it is cyclic, and its name.
        let isCyclic: [Bool]
        let fieldNames: [String]
        /// Per field of ``ClassMapper/fields``: the class its references point to, found once.
        let targets: [ReferenceResolver.Target?]
        /// Positions in ``ClassMapper/fields`` of the fields `by:` references name this class by.
        let uniqueIndices: [(name: String, index: Int)]
        /// The objects waiting to be sent (how many is asked per record).
        @exclusivity(unchecked) var batch = ClassBatch()
        /// Where a record that comes unmapped is mapped: one draft, its storage kept from record to record.
        @exclusivity(unchecked) var drafts: ObjectDrafts
        @exclusivity(unchecked) var checkedHeader = false
        /// Records read, counted into the class's tally once the source is read.
        @exclusivity(unchecked) var read = 0
        /// Records without a key or objectId (in a class without a key), reported once for the
        /// class by ``reportRecordsWithoutIdentity(of:)``, with the first of them.
        var withoutIdentity = 0
        var firstWithoutIdentity: Diagnostic?
        /// Whether the class's objects are the values of a column (``ClassMapping/extract``);
        /// kept apart so that no record copies the extraction to test it.
        let isExtracted: Bool

        init(
            _ mapping: ClassMapping, manifest: DatasetManifest, chains: ReferenceChains, references: ReferenceResolver, source: Int,
            cyclic: Set<String>
        ) {
            self.mapping = mapping
            self.isExtracted = mapping.extract != nil
            self.index = references.indexes[mapping.className]!
            self.mapper = ClassMapper(mapping: mapping, manifest: manifest, chains: chains)
            self.targets = mapper.fields.map { $0.type.targetClass.map(references.target) }
            self.drafts = mapper.drafts()
            self.source = source
            let names = mapper.fields.map(\.name)
            self.fieldNames = names
            self.isCyclic = names.map(cyclic.contains)
            self.uniqueIndices = index.uniqueFields.compactMap { name in names.firstIndex(of: name).map { (name, $0) } }
        }

        var className: String { mapping.className }

        /// `record` mapped alone into ``drafts``: the drafts, and the draft's index there.
        func mapAlone(_ record: SourceRecord) -> (drafts: ObjectDrafts, index: Int) {
            drafts.removeAll()
            mapper.map(record, into: &drafts)
            return (drafts, 0)
        }
    }

    /// Reads where the keys of a batch's objects mapped ahead are kept, and the keys their
    /// references name, in one loop before the batch is processed, so that their cache misses
    /// overlap instead of waiting one by one: at a million objects, a class's keys are more than
    /// any cache holds. `targets`: per class of the group, per field, the key index it points into.
    private func warmKeys(of batch: ReadAheadReader<[ObjectDrafts?]>.Batch, in indexes: [KeyIndex], targets: [[KeyIndex?]]) {
        guard let prepared = batch.prepared else { return }
        var sum: Int32 = 0
        for position in prepared.indices {
            guard let drafts = prepared[position] else { continue }
            for index in 0..<drafts.count {
                guard case .success(let draft) = drafts[index] else { continue }
                if let keyHash = draft.keyHash { sum &+= indexes[position].touch(keyHash) }
                for field in 0..<drafts.width {
                    guard let target = targets[position][field] else { continue }
                    switch drafts[field, of: index] {
                    case .pointer(let reference): if let keyHash = reference.keyHash { sum &+= target.touch(keyHash) }
                    case .links(let range): for case let keyHash? in drafts.references[range].lazy.map(\.keyHash) { sum &+= target.touch(keyHash) }
                    case .value, .upload, .relation: break
                    }
                }
            }
        }
        warmth &+= sum
    }

    /// Sends the class's waiting objects; the objects of a class whose cyclic pointers are
    /// patched later come back named when the target had them as they are (see
    /// ``unchangedBeforePatches``).
    private func send(_ load: ClassLoad) throws(PorterError) {
        try feeder?.send(&load.batch, of: load.mapping, namingUnchanged: !references.resolvesAhead && load.isCyclic.contains(true))
    }

    /// Reads one source once, for every class of `group`, record by record in group order; a
    /// source of several files is read one file after the other.
    private func load(_ group: [ClassMapping]) throws(PorterError) {
        let loads = group.map {
            ClassLoad(
                $0, manifest: manifest, chains: referenceChains, references: references, source: sourceIndex($0.className),
                cyclic: plan.cyclicFields[$0.className] ?? [])
        }
        let files = group[0].sources
        let phase = group.map(\.className).joined(separator: "+")
        let totalBytes = files.reduce(Int64(0)) { $0 + fileSize($1) }
        var records = 0, bytesBefore = Int64(0)
        var columns = SourceColumnCheck(group, manifest: manifest)
        let keyPath = "classes.\(group[0].className)"
        for file in files {
            var offset = 0, lastLine = 0, fileRecords = 0
            for load in loads {
                offset = sourceRows[load.source, default: SourceRows()].begin(file)
                if file != load.mapper.sourceName { load.mapper = ClassMapper(mapping: load.mapping, manifest: manifest, file: file, chains: referenceChains) }
                load.checkedHeader = false
            }
            // While this thread is behind, records are mapped where they are read ahead, onto each
            // class that reads them whole; a record that comes unmapped is mapped in `process`.
            // The reading thread maps with mappers of its own: with one set shared, both threads
            // counted references to the same objects, and the contended counts cost each thread
            // more than its parsing (validate, 1M books: `swift_retain` 1005 samples on this
            // thread and 641 on the reading one, against 424 and 198 with mappers of its own).
            // A batch's drafts of each class share their storage (``ObjectDrafts``).
            let mappers = loads.map { !$0.isExtracted ? ClassMapper(mapping: $0.mapping, manifest: manifest, file: file, chains: referenceChains) : nil }
            let indexes = loads.map(\.index)
            let targets = loads.map { $0.targets.map { $0?.index } }
            if var reader = openReader(
                file, memory: group[0].records, reading: group[0].reading, declaredAt: keyPath,
                prepare: { records in
                    mappers.map { mapper in
                        mapper.map { mapper in
                            var drafts = mapper.drafts(capacity: records.count)
                            for record in records { mapper.map(record, into: &drafts) }
                            return drafts
                        }
                    }
                },
                arriving: { [unowned self] batch in warmKeys(of: batch, in: indexes, targets: targets) })
            {
                while let (record, drafts, index) = try nextRecord(from: &reader, declaredAt: keyPath) {
                    records += 1
                    fileRecords += 1
                    lastLine = record.line
                    try columns.count(record)
                    if records % 20_000 == 0 {
                        progress?(ImportProgress(phase: phase, records: records, bytesRead: bytesBefore + reader.bytesRead, totalBytes: totalBytes))
                    }
                    if record.csvHeader == nil, !loads.contains(where: \.mapping.strict) {
                        countSkippedKeys(of: record.columnNames, line: record.line, file: file, loads: loads)
                    }
                    for (position, load) in loads.enumerated() {
                        if let values = load.mapper.extractedRecords(of: record) {
                            for value in values { try process(value, mappedAhead: nil, row: offset + record.line, for: load) }
                        } else {
                            try process(record, mappedAhead: drafts?[position].map { ($0, index) }, row: offset + record.line, for: load)
                        }
                    }
                    // The whole group goes out together, in plan order: a batch never points at
                    // objects of an earlier class that are still waiting in that class's batch.
                    if loads.contains(where: { $0.batch.objects.count >= options.batchSize }) {
                        for load in loads { try send(load) }
                    }
                }
            }
            for load in loads { sourceRows[load.source]!.read(offset + lastLine) }
            if files.count > 1 { sourceFiles += loads.map { SourceFileTally(reader: $0.className, file: file, records: fileRecords) } }
            bytesBefore += fileSize(file)
        }
        if !files.contains(where: references.unreadSources.contains) { notes += try columns.finish() }
        let sentInFull = loads.flatMap { partsSent(with: $0.mapping) }
        for load in loads {
            classTallies[load.className]!.read += load.read
            reportRecordsWithoutIdentity(of: load)
            try send(load)
            references.finished(load.className)
        }
        try sending?.finished(sentInFull)
        progress?(ImportProgress(phase: phase, records: records, bytesRead: totalBytes, totalBytes: totalBytes))
    }

    /// Whether a `_User` draft's `values` have `authData`, with which a Parse Server creates a user without a password.
    static func hasAuthData(_ values: ArraySlice<MappedValue>, _ mapper: ClassMapper) -> Bool {
        guard let index = mapper.fields.firstIndex(where: { $0.name == "authData" }) else { return false }
        return !values[values.startIndex + index].isNull
    }

    /// Counts the keys of a JSON record (`keys`, its member names) that no class of the group reads (a strict class makes them faults instead).
    /// They are named as keys of the group's first class read record by record, if it has one
    /// (an extracted class reads one column of the records).
    private func countSkippedKeys(of keys: [String], line: Int, file: String, loads: [ClassLoad]) {
        for key in keys where !loads.contains(where: { $0.mapper.reads(key) }) {
            let owner = loads.first { !$0.isExtracted } ?? loads[0]
            let className = owner.className, id = "\(className)\u{0}\(key)"
            if let index = skippedKeyIndex[id] {
                skippedKeys[index].count += 1
            } else {
                skippedKeyIndex[id] = skippedKeys.count
                skippedKeys.append(SkippedKey(className: className, key: key, file: file, firstLine: line, count: 1))
            }
        }
    }

    /// Maps one record onto one class (unless it was `mappedAhead`: its batch's drafts, and its
    /// index there): checks it, resolves its references, queues it for the sink. `rowNumber` is
    /// the record's row in the class's numbering (``sourceRows``).
    private func process(_ record: SourceRecord, mappedAhead: (drafts: ObjectDrafts, index: Int)?, row rowNumber: Int, for load: ClassLoad)
        throws(PorterError)
    {
        // `load.mapping` is read in place: a local copy of the struct would cost every record.
        let mapper = load.mapper, className = load.className
        load.read += 1
        if record.csvHeader == nil { load.checkedHeader = false }
        if !load.checkedHeader {
            load.checkedHeader = true
            for column in mapper.unknownColumns(of: record) {
                let line = record.csvHeader != nil ? 1 : record.line
                log.add(
                    Diagnostic(
                        .unknownColumn, SourceLocation(file: mapper.sourceName, line: line, column: column, className: className),
                        "unknown column (\(className) is strict)"), fatal: true)
                stopSending()
            }
        }
        let row = RowID(source: load.source, line: rowNumber)
        if let reason = givenRejects?.reason(for: row) {
            classTallies[className]!.rejected += 1
            if pruneTracker != nil {
                // A rejected row still holds its object: pruning never deletes it.
                let (drafts, slot) = mappedAhead ?? load.mapAlone(record)
                switch drafts[slot] {
                case .failure(let failure): pruneTracker!.hold(className, objectId: failure.objectId, keyHash: failure.keyHash)
                case .success(let draft): pruneTracker!.hold(className, objectId: draft.objectId, keyHash: draft.keyHash)
                }
            }
            try rejects?.add(record, reason: reason, to: className, file: fileOfRow(source: load.source, row: rowNumber))
            return
        }
        let (drafts, slot) = mappedAhead ?? load.mapAlone(record)
        let draft: ObjectDraft
        switch drafts[slot] {
        case .failure(let failure) where load.isExtracted:
            // The object of a value that cannot be read is not known: pruning leaves the class alone.
            pruneTracker?.hold(className, objectId: failure.objectId, keyHash: failure.keyHash)
            try valueFailed(record, className: className, failure.diagnostics)
            return
        case .failure(let failure) where failure.diagnostics.allSatisfy({ $0.kind == .objectIdMissing }):
            load.withoutIdentity += 1
            if load.firstWithoutIdentity == nil { load.firstWithoutIdentity = failure.diagnostics.first }
            rowFailed(row, className: className, [], reasons: failure.diagnostics.map(\.reason))
            return
        case .failure(let failure):
            pruneTracker?.hold(className, objectId: failure.objectId, keyHash: failure.keyHash)
            if let objectId = failure.objectId,
                load.index.register(objectId: objectId, keyHash: failure.keyHash, explicitId: failure.hasSourceObjectId, line: rowNumber) == .added
            {
                registerUniqueValues(failure.values[...], of: objectId, keyHash: failure.keyHash, line: rowNumber, record: record, in: load)
                load.index.reject(objectId: objectId, keyHash: failure.keyHash)
            }
            rowFailed(row, className: className, failure.diagnostics)
            return
        case .success(let mapped):
            draft = mapped
        }
        pruneTracker?.hold(className, objectId: draft.objectId, keyHash: draft.keyHash)
        var problems: [Diagnostic] = []
        var registered = false
        switch load.index.register(objectId: draft.objectId, keyHash: draft.keyHash, explicitId: draft.hasSourceObjectId, line: rowNumber) {
        case .added:
            registered = true
            if !load.uniqueIndices.isEmpty {
                registerUniqueValues(drafts.values(of: slot), of: draft.objectId, keyHash: draft.keyHash, line: rowNumber, record: record, in: load)
            }
        case .duplicateKey where load.isExtracted:
            // A value named again by another record, or twice in one cell: the object read already.
            load.read -= 1
            return
        case .duplicateKey(let first):
            let keyField = mapper.fields.first { $0.name == load.mapping.key.first }
            // Records keyed by line repeat a key only when they start on one line (a JSON array written on one line).
            let why = mapper.keyedByLine ? ": records that start on one line have one key \(ClassMapping.lineKey); give the class a key of fields" : ""
            problems.append(
                Diagnostic(
                    .duplicateKey,
                    mapper.location(draft.line, keyField, value: draft.key.map { ObjectReference(targetClass: className, identity: .key($0)).sourceText }),
                    "duplicate key, first seen at \(rowText(source: load.source, row: first, besides: mapper.sourceName))" + why))
        case .duplicateObjectId(let first):
            problems.append(
                Diagnostic(
                    .duplicateObjectId,
                    SourceLocation(
                        file: mapper.sourceName, line: draft.line, column: "objectId", className: className,
                        value: draft.objectId),
                    "duplicate objectId, first seen at \(rowText(source: load.source, row: first, besides: mapper.sourceName))"))
        }
        // The values to write; left empty when nothing is written (validating).
        var fields: [FieldValue] = []
        let ahead = references.resolvesAhead, feeding = sending
        if feeding != nil { fields.reserveCapacity(drafts.width) }
        for index in 0..<drafts.width {
            // A deferred reference outlives its record: it keeps its text, for messages.
            func later(_ waiting: [ObjectReference]) {
                references.deferred.append(
                    DeferredReference(
                        className: className, field: mapper.fields[index], ownerId: draft.objectId,
                        ownerKeyHash: draft.keyHash, row: row, references: mapper.named(waiting, field: index, in: record)))
            }
            let isCyclic = load.isCyclic[index] && !ahead
            switch drafts[index, of: slot] {
            case .value(let v) where isCyclic:
                if v != .null || load.mapping.mode != .merge { later([]) }
            case .value(let v):
                if feeding != nil { fields.append(FieldValue(load.fieldNames[index], v)) }
            case .pointer(let reference) where isCyclic:
                later([reference])
            case .pointer(let reference) where references.waits(reference, target: load.targets[index]!):
                later([reference])
            case .pointer(let reference):
                let referent = resolve(
                    reference, against: load.targets[index]!, from: row, record: record, line: draft.line, mapper: mapper, field: index,
                    problems: &problems)
                guard feeding != nil else { break }
                switch referent {
                case .object(let object), .dangling(let object?):
                    fields.append(FieldValue(load.fieldNames[index], .pointer(PointerRef(className: reference.targetClass, objectId: object.objectId))))
                case .dangling(nil):
                    fields.append(FieldValue(load.fieldNames[index], .null))
                case .none:
                    break
                }
            case .links(let range) where references.linksWait(for: load.targets[index]!):
                later(Array(drafts.references[range]))
            case .upload(let file):
                guard feeding != nil else { break }
                fields.append(FieldValue(load.fieldNames[index], .file(ParseFile(name: file.storedName))))
                load.batch.uploads[file.storedName] = file
            case .relation:
                preconditionFailure("a class's drafts hold a Relation's references in their store")
            case .links(let range):
                var ids: [String] = []
                for reference in drafts.references[range] {
                    let referent = resolve(
                        reference, against: load.targets[index]!, from: row, record: record, line: draft.line, mapper: mapper, field: index,
                        problems: &problems)
                    if let object = referent.object, feeding != nil {
                        ids.append(object.objectId)
                    }
                }
                if feeding != nil {
                    load.batch.links[load.fieldNames[index], default: []].append(RelationLinks(ownerId: draft.objectId, relatedIds: ids, line: draft.line))
                }
            }
        }
        guard problems.isEmpty else {
            if registered { load.index.reject(objectId: draft.objectId, keyHash: draft.keyHash) }
            rowFailed(row, className: className, problems)
            return
        }
        if draft.passwordHash != nil {
            passwordHashes += 1
        } else if !load.mapping.passwordHashKeys.isEmpty && !Self.hasAuthData(drafts.values(of: slot), mapper) {
            usersWithoutPassword += 1
        }
        guard let feeder = sending else { return }
        if feeder.holdsLinks {
            for field in load.mapping.fields where field.fromJoinFile {
                guard let links = feeder.takeLinks(relation: "\(className).\(field.name)", owner: draft.objectId) else { continue }
                load.batch.links[field.name, default: []] += links
            }
        }
        load.batch.rows.append(rowNumber)
        load.batch.objects.append(
            ResolvedObject(
                objectId: draft.objectId, line: draft.line, fields: fields, acl: draft.acl,
                createdAt: draft.createdAt, updatedAt: draft.updatedAt, passwordHash: draft.passwordHash))
        if feeder.keepsRecords { load.batch.records.append(record) }
    }

    /// Records the values of the fields `by:` references name the object by (those of `record`).
    private func registerUniqueValues(
        _ values: ArraySlice<MappedValue>, of objectId: String, keyHash: KeyHash?, line: Int, record: SourceRecord, in load: ClassLoad
    ) {
        for (name, index) in load.uniqueIndices where index < values.count {
            let text: String?
            switch values[values.startIndex + index] {
            case .value(let v): text = NaturalKey.text(of: [v])
            // As ``ReferenceParser`` names an object by a pointer of its: the text that names the target.
            case .pointer(let reference): text = NaturalKey.text(of: [.string(load.mapper.named([reference], field: index, in: record)[0].sourceText)])
            case .relation, .links, .upload: text = nil
            }
            guard let text else { continue }
            load.index.register(field: name, value: text, objectId: objectId, keyHash: keyHash, line: line)
        }
    }

    /// Counts a faulty row; references to it, if it was registered, already see it rejected.
    /// `reasons`: why the row is rejected, when its faults are reported otherwise than by `problems`.
    func rowFailed(_ row: RowID, className: String, _ problems: [Diagnostic], reasons: [String]? = nil) {
        for problem in problems { log.add(problem) }
        classTallies[className]!.rejected += 1
        stopSending()
        rejectTracker.reject(row, reasons: reasons ?? problems.map(\.reason))
    }

    /// One fault for the records of a class without a key that have no objectId, at the first
    /// of them: which class it is and what to do, not one fault per record.
    private func reportRecordsWithoutIdentity(of load: ClassLoad) {
        guard let first = load.firstWithoutIdentity else { return }
        let count = load.withoutIdentity
        log.add(
            Diagnostic(
                .objectIdMissing, first.location,
                "\(load.className) has no key, and \(count) of its records \(count == 1 ? "has" : "have") no objectId (the first at this line): "
                    + Self.identityAdvice(load.className)))
    }

    /// What to give a class whose records have no identity.
    static func identityAdvice(_ className: String) -> String {
        "give classes.\(className) a key of fields unique together (key: [a, b]), key: \(ClassMapping.lineKey) (each record's line in its file), or an objectId column"
    }

    /// Counts a value of an extracted class that cannot be read. It fails wherever it is named,
    /// and the rows naming it fail on their own; the other values of its line are not rejected
    /// with it, so it is no row of the reject plan.
    func valueFailed(_ record: SourceRecord, className: String, _ problems: [Diagnostic]) throws(PorterError) {
        classTallies[className]!.rejected += 1
        if givenRejects != nil {
            try rejects?.add(record, reason: problems.map(\.reason).joined(separator: "; "), to: className)
            return
        }
        for problem in problems { log.add(problem) }
        stopSending()
        rejectTracker.rejectValue()
    }
}
