import ParseModel
import PorterReaders

/// One class's objects waiting to be sent, with what goes out with them.
struct ClassBatch {
    var objects: [ResolvedObject] = []
    /// The records of ``objects`` as read, when the feeder keeps them (``SinkFeeder/keepsRecords``).
    var records: [SourceRecord] = []
    /// The row numbers (``ImportPass/sourceRows``) of ``objects``.
    var rows: [Int] = []
    /// Relation links the objects carry, by field name.
    var links: [String: [RelationLinks]] = [:]
    /// The local files the objects name, by ``LocalFile/storedName``.
    var uploads: [String: LocalFile] = [:]

    var isEmpty: Bool { objects.isEmpty && links.isEmpty }

    mutating func removeAll() {
        objects.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
        links.removeAll(keepingCapacity: true)
        uploads.removeAll(keepingCapacity: true)
    }
}

/// What a finished sink call reports back to the pass (a ``SinkWriter``'s completion).
enum SinkCompletion {
    /// Objects written, and the links they carried by `Owner.field`; `lines` are the objects'
    /// row numbers (``ImportPass/sourceRows``), `records` their records as read, when the pass
    /// keeps them (else empty); `unchanged` the objectIds of the objects the target already
    /// had as they are, when asked for (else empty).
    case objects(
        className: String, source: String, lines: [Int], records: [SourceRecord], outcomes: [WriteOutcome],
        links: [String: LinkChanges], unchanged: [String])
    /// Pointer patches, with the objectIds patched in order.
    case patches(className: String, source: String, objectIds: [String], outcomes: [WriteOutcome])
    /// Link changes by `Owner.field` (from a link call, or reported late by ``ObjectSink/flush()``).
    case links([String: LinkChanges])
}

/// Runs an import's sink calls on a thread of their own, so that writing overlaps reading and mapping.
typealias SinkWriter = JobThread<SinkCompletion>

/// Feeds the sink of a writing pass: sends batches of objects with the links they carry,
/// relation links and pointer patches, each as a job of a ``SinkWriter`` thread, and hands
/// what the sink answered to ``answered`` as it comes back. Once closed (a fault, when
/// nothing may be written) it sends nothing more.
final class SinkFeeder {
    let sink: ObjectSink
    /// Whether batches keep their records until the sink has answered: a target that cannot
    /// roll back skips the objects it refuses, whose records go to the rejects folder.
    let keepsRecords: Bool
    /// Takes each answer of the sink, in the order the calls were sent.
    var answered: (SinkCompletion) throws(PorterError) -> Void = { _ throws(PorterError) in }
    /// Whether anything is still sent.
    private(set) var isOpen = true
    private lazy var writer = SinkWriter(name: "parse-porter sink writer")
    private var writerStarted = false
    /// Links read before their owners (``holdLinks(_:relation:)``), by `Owner.field` and owner objectId.
    private var linksAhead: [String: [String: [RelationLinks]]] = [:]

    init(sink: ObjectSink, keepsRecords: Bool) {
        self.sink = sink
        self.keepsRecords = keepsRecords
    }

    /// Sends nothing more; calls already handed to the writer still run.
    func close() {
        isOpen = false
    }

    /// Sends a class's waiting objects with the links they carry, then empties `batch`;
    /// `namingUnchanged` asks for the objectIds of the objects the target had as they are.
    func send(_ batch: inout ClassBatch, of mapping: ClassMapping, namingUnchanged: Bool = false) throws(PorterError) {
        defer { batch.removeAll() }
        guard isOpen, !batch.isEmpty else { return }
        let sink = sink, objects = batch.objects, records = batch.records, rows = batch.rows, uploads = Array(batch.uploads.values)
        let className = mapping.className, mode = mapping.mode, source = mapping.source
        let relations = batch.links.keys.sorted().map { name in
            let field = mapping.field(named: name)!
            // Links from a join file are added, as when they are sent on their own.
            return RelationBatch(
                field: name, targetClass: field.type.targetClass!, links: batch.links[name]!,
                replace: mode != .merge && !field.fromJoinFile)
        }
        try submit { () throws(PorterError) in
            let stored = uploads.isEmpty ? [:] : try sink.store(uploads)
            let objects = stored.isEmpty ? objects : objects.map { $0.naming(files: stored) }
            let written = try sink.write(objects, className: className, mode: mode, relations: relations)
            let unchanged = namingUnchanged ? zip(objects, written.outcomes).compactMap { $1 == .unchanged ? $0.objectId : nil } : []
            return .objects(
                className: className, source: source, lines: rows, records: records, outcomes: written.outcomes,
                links: Dictionary(uniqueKeysWithValues: written.links.map { ("\(className).\($0.key)", $0.value) }), unchanged: unchanged)
        }
    }

    /// Sends relation links of `owner.field`; with `replace`, each listed owner's links become exactly these.
    func sendLinks(_ links: [RelationLinks], owner: String, field: String, targetClass: String, replace: Bool) throws(PorterError) {
        guard isOpen, !links.isEmpty else { return }
        let sink = sink
        try submit { () throws(PorterError) in
            .links(["\(owner).\(field)": try sink.link(owner: owner, field: field, targetClass: targetClass, links, replace: replace)])
        }
    }

    /// Sets pointer `field` of objects already sent; `source` names the class's files.
    func sendPatches(_ values: [(objectId: String, value: ParseValue)], className: String, field: String, source: String) throws(PorterError) {
        guard isOpen, !values.isEmpty else { return }
        let sink = sink
        try submit { () throws(PorterError) in
            .patches(
                className: className, source: source, objectIds: values.map(\.objectId),
                outcomes: try sink.patch(className: className, field: field, values: values))
        }
    }

    /// Tells the sink that `parts` are sent in full (``ObjectSink/finished(_:)``), once the calls before have run.
    func finished(_ parts: [ImportPart]) throws(PorterError) {
        guard isOpen, !parts.isEmpty else { return }
        let sink = sink
        try submit { () throws(PorterError) in
            for part in parts { sink.finished(part) }
            return .links([:])  // nothing to count
        }
    }

    /// Whether the target has an object of a class outside the dataset; asked once every call
    /// sent so far has run.
    func targetHas(className: String, objectId: String) throws(PorterError) -> Bool {
        try drain()
        return try sink.hasObject(className: className, objectId: objectId)
    }

    /// Keeps links read before their owners, to go out with the owner (``takeLinks(relation:owner:)``).
    func holdLinks(_ links: RelationLinks, relation: String) {
        linksAhead[relation, default: [:]][links.ownerId, default: []].append(links)
    }

    /// Whether links are held for owners not sent yet.
    var holdsLinks: Bool { !linksAhead.isEmpty }

    /// The links held for `owner`, no longer held.
    func takeLinks(relation: String, owner: String) -> [RelationLinks]? {
        linksAhead[relation]?.removeValue(forKey: owner)
    }

    /// Sends what the sink still buffers (``ObjectSink/flush()``), and waits for every call to be answered.
    func finish() throws(PorterError) {
        if isOpen {
            let sink = sink
            try submit { () throws(PorterError) in .links(try sink.flush()) }
        }
        try drain()
    }

    /// Ends the writer thread; calls not yet run are dropped.
    func stop() {
        if writerStarted { writer.stop() }
    }

    private func submit(_ job: @escaping SinkWriter.Job) throws(PorterError) {
        writerStarted = true
        for completion in try writer.submit(job) { try answered(completion) }
    }

    private func drain() throws(PorterError) {
        guard writerStarted else { return }
        for completion in try writer.drain() { try answered(completion) }
    }
}
