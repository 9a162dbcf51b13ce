import Foundation
import ParseModel
import PorterCore

/// Settings of a pull.
public struct PullOptions: Sendable {
    /// Who the source is (a server URL without keys, a database URL without its password): a
    /// watermark counts only for the source that set it.
    public var source: String
    /// Only these classes; `nil` for every class the source has.
    public var classes: [String]?
    /// Also compare objectIds, and delete from the mirror the objects the source no longer has.
    public var full: Bool

    /// A pull of every class (or `classes`) from the source named `source`; `full` also deletes.
    public init(source: String, classes: [String]? = nil, full: Bool = false) {
        self.source = source
        self.classes = classes
        self.full = full
    }
}

/// What a pull did, per class and per relation.
public struct PullReport: Sendable {
    /// What the pull did to one class.
    public struct ClassTally: Sendable, Equatable {
        /// The class.
        public let className: String
        /// Objects read from the source: all of them the first time, then those updated since the watermark.
        public var read = 0
        /// Objects new to the mirror.
        public var added = 0
        /// Objects the mirror had with other values.
        public var updated = 0
        /// Objects the mirror already had as they are.
        public var unchanged = 0
        /// Objects the source no longer has (only with ``PullOptions/full``).
        public var deleted = 0
    }

    /// What the pull did to one relation's links.
    public struct RelationTally: Sendable, Equatable {
        /// `Owner.field`
        public let relation: String
        /// Links new to the mirror.
        public var added = 0
        /// Links the mirror had and the source no longer has.
        public var removed = 0
    }

    /// Per class, in name order.
    public var classes: [ClassTally]
    /// Per relation, by `Owner.field`.
    public var relations: [RelationTally]
    /// How long the pull took.
    public var elapsedSeconds: Double
    /// Requests sent to the source, by phase (the caller, which knows the source, fills them in).
    public var requests: [RequestTally] = []
    /// What the user should know: values the source stores that an import would refuse (a
    /// GeoPoint out of range), copied as they are.
    public var notes: [String] = []

    /// Per class: read, added, updated, unchanged, deleted; per relation: links added and removed.
    public var table: String {
        var text = TextTable.aligned(
            [["class", "read", "added", "updated", "unchanged", "deleted"]]
                + classes.map { [$0.className, "\($0.read)", "\($0.added)", "\($0.updated)", "\($0.unchanged)", "\($0.deleted)"] })
        if !relations.isEmpty {
            text += "\n\n" + TextTable.aligned([["relation", "links added", "removed"]] + relations.map { [$0.relation, "\($0.added)", "\($0.removed)"] })
        }
        return text
    }

    /// The report as JSON: `elapsedSeconds`, `classes`, `relations`, `requests`, `notes`.
    public var json: JSONValue {
        func number(_ value: Int) -> JSONValue { .integer(Int64(value)) }
        return .object(
            JSONObject([
                "elapsedSeconds": .double((elapsedSeconds * 1000).rounded() / 1000),
                "classes": .array(
                    classes.map { tally in
                        .object(
                            JSONObject([
                                "className": .string(tally.className), "read": number(tally.read), "added": number(tally.added),
                                "updated": number(tally.updated), "unchanged": number(tally.unchanged), "deleted": number(tally.deleted),
                            ]))
                    }),
                "relations": .array(
                    relations.map { tally in
                        .object(JSONObject(["relation": .string(tally.relation), "added": number(tally.added), "removed": number(tally.removed)]))
                    }),
                "requests": .array(
                    requests.map { tally in
                        .object(JSONObject(["phase": .string(tally.phase), "requests": number(tally.requests), "operations": number(tally.operations)]))
                    }),
                "notes": .array(notes.map(JSONValue.string)),
            ]))
    }
}

/// Copies a source (a Parse Server) into a SQLite mirror, in one transaction: a pull that fails
/// half-way leaves the mirror as it was.
///
/// Each class's schema is stored as the source reports it (class-level permissions and indexes
/// included), its objects with their objectIds, `createdAt`, `updatedAt`, ACLs and values, and
/// its relations' links; `_User`s with the password hashes the source reads (a Parse Server's
/// database has them, its REST API never gives them). The mirror keeps a watermark per class (`_PorterPull`): the newest
/// `updatedAt` the source had when the class's pull began. The next pull reads only the objects
/// updated since (`updatedAt $gte` the watermark, so that a write in the same millisecond is not
/// missed), stores those that differ, and reads the links of exactly those owners again. Objects
/// the source deleted are noticed only by comparing objectIds (``PullOptions/full``).
///
/// ```swift
/// // client: a PorterREST `ParseRESTClient` for the server, holding the master key
/// let puller = Puller(source: RESTObjectSource(client: client), mirror: SQLiteMirror(path: "app.sqlite"),
///                     options: PullOptions(source: client.address.description))
/// let report = try await puller.run()
/// ```
///
/// A Parse Server's PostgreSQL database is pulled the same way, with a PorterPostgres
/// `PostgresSource(url:)` as the source and `PostgresURL.redacted(url)` as ``PullOptions/source``.
///
/// Cancelling the task that awaits ``run(progress:)`` stops the pull between pages: the mirror
/// is rolled back and a ``PorterError`` caused ``PorterError/Cause/cancelled`` is thrown.
public final class Puller {
    private let source: ObjectSource
    private let mirror: SQLiteMirror
    private let options: PullOptions
    private var classTallies: [String: PullReport.ClassTally] = [:]
    private var relationTallies: [String: PullReport.RelationTally] = [:]
    /// The token of the run under way.
    private var cancellation = Cancellation()
    /// Values of the run under way that an import would refuse, copied as they are.
    private var problems = StoredValueProblems()

    /// A pull from `source` into `mirror`.
    public init(source: ObjectSource, mirror: SQLiteMirror, options: PullOptions) {
        self.source = source
        self.mirror = mirror
        self.options = options
    }

    /// Pulls and commits; on any failure or cancellation the mirror is rolled back and the
    /// error thrown. Runs on a thread of its own (see ``ObjectSource``); `progress` is called
    /// there after each page of objects.
    @concurrent
    public func run(progress: (@Sendable (ClassProgress) -> Void)? = nil) async throws(PorterError) -> PullReport {
        let lent = Lent(self)
        return try await Cancellation.onThread(named: "parse-porter pull") { (cancellation) throws(PorterError) in
            try lent.value.run(progress: progress, cancellation: cancellation)
        }
    }

    /// ``run(progress:)`` on the calling thread, stopped by `cancellation`.
    package func run(progress: (@Sendable (ClassProgress) -> Void)? = nil, cancellation: Cancellation = Cancellation()) throws(PorterError) -> PullReport {
        self.cancellation = cancellation
        problems = StoredValueProblems()
        let started = Date()
        // A file that is not a mirror is refused before the source is asked anything.
        let mirrored = try mirror.existingSchemas()
        let schemas = try selected(try source.schemas())
        try checkTypes(of: schemas, against: mirrored)
        classTallies = Dictionary(uniqueKeysWithValues: schemas.map { ($0.className, PullReport.ClassTally(className: $0.className)) })
        relationTallies = [:]
        for schema in schemas {
            for field in schema.relationFields { tallyLinks("\(schema.className).\(field.name)") }
        }
        do {
            try mirror.begin(schemas: schemas, naturalKeys: [:])
            for schema in schemas { try pull(schema, progress: progress) }
            for (relation, changes) in try mirror.flush() { tallyLinks(relation, added: changes.added) }
            try mirror.commit()
        } catch {
            mirror.rollback()
            throw error
        }
        var report = PullReport(
            classes: schemas.map { classTallies[$0.className]! }, relations: relationTallies.values.sorted { $0.relation < $1.relation },
            elapsedSeconds: Date().timeIntervalSince(started))
        report.notes = [problems.note].compactMap { $0 }
        return report
    }

    /// The source's classes (each name once) in name order, or those ``PullOptions/classes`` names.
    private func selected(_ schemas: [ClassSchema]) throws(PorterError) -> [ClassSchema] {
        let byName = Dictionary(schemas.map { ($0.className, $0) }, uniquingKeysWith: { first, _ in first })
        let sorted = byName.values.sorted { $0.className < $1.className }
        guard let wanted = options.classes else { return sorted }
        let unknown = wanted.filter { name in !sorted.contains { $0.className == name } }
        guard unknown.isEmpty else {
            throw PorterError(
                .invalidRequest, "\(options.source) has no class \(unknown.joined(separator: ", ")); it has \(sorted.map(\.className).joined(separator: ", "))")
        }
        return sorted.filter { wanted.contains($0.className) }
    }

    /// A field whose type differs between the mirror and the source cannot be copied into the
    /// mirror's column without losing what it holds.
    private func checkTypes(of schemas: [ClassSchema], against mirrored: [ClassSchema]) throws(PorterError) {
        var conflicts: [String] = []
        for schema in schemas {
            guard let existing = mirrored.first(where: { $0.className == schema.className }) else { continue }
            for field in schema.fields {
                guard let current = existing.field(named: field.name), current.type != field.type else { continue }
                conflicts.append("\(schema.className).\(field.name) is \(current.type) in the mirror and \(field.type) on \(options.source)")
            }
        }
        guard conflicts.isEmpty else {
            throw PorterError(.invalidData, "\(mirror.path): \(conflicts.joined(separator: "; ")). Nothing was changed; pull into a new mirror file.")
        }
    }

    private func pull(_ schema: ClassSchema, progress: (@Sendable (ClassProgress) -> Void)?) throws(PorterError) {
        let className = schema.className
        // Asked first: whatever is written while the class is read has a newer updatedAt, and comes with the next pull.
        let newest = try source.newestUpdate(of: className)
        let watermark = try mirror.pullWatermark(of: className, source: options.source)
        let constraints = watermark.map { JSONObject(["updatedAt": .object(JSONObject(["$gte": ParseValue.date($0).wireJSON]))]) }
        let total = try source.count(of: schema, matching: constraints)
        progress?(ClassProgress(className: className, objects: 0, total: total))
        var tally = classTallies[className]!
        // The mirror is written on a thread of its own while the source is asked for the next page.
        let writing = JobThread<PageWrite>(name: "parse-porter pull writer")
        defer { writing.stop() }
        func record(_ writes: [PageWrite]) throws(PorterError) {
            for write in writes {
                for outcome in write.outcomes {
                    switch outcome {
                    case .inserted: tally.added += 1
                    case .updated: tally.updated += 1
                    case .unchanged: tally.unchanged += 1
                    case .failed(let reason): throw PorterError(.target, "\(mirror.path): \(reason)")
                    }
                }
                for (relation, changes) in write.links { tallyLinks(relation, added: changes.added, removed: changes.removed) }
            }
        }
        try source.readObjects(of: schema, matching: constraints) { (objects) throws(PorterError) in
            try stopIfCancelled(className)
            problems.check(objects, className: className, fields: schema.storedFields)
            // Only a database or a mirror gives the users' hashes (a Parse Server never does, Docs/ParseServer.md#users-and-passwords).
            let hashes = className == "_User" && source.readsPasswordHashes ? try source.passwordHashes(ofUsers: objects.map(\.objectId)) : nil
            let links = try relationLinks(of: schema, owners: objects.map(\.objectId))
            let mirror = mirror
            try record(
                try writing.submit { () throws(PorterError) in
                    let outcomes = try mirror.store(objects, of: schema, passwordHashes: hashes)
                    // Each owner's links become the source's.
                    let changes = try links.map { (field, targetClass, owners) throws(PorterError) in
                        ("\(className).\(field)", try mirror.link(owner: className, field: field, targetClass: targetClass, owners, replace: true))
                    }
                    return PageWrite(outcomes: outcomes, links: changes)
                })
            tally.read += objects.count
            progress?(ClassProgress(className: className, objects: tally.read, total: max(total, tally.read)))
        }
        try record(try writing.drain())
        if options.full {
            try source.readObjectIds(of: className) { (ids) throws(PorterError) in
                try stopIfCancelled(className)
                try mirror.keepObjectIds(ids)
            }
            let deletion = try mirror.deleteObjectsNotKept(of: className)
            tally.deleted = deletion.objects
            for (relation, removed) in deletion.links { tallyLinks(relation, removed: removed) }
        }
        classTallies[className] = tally
        try mirror.recordPull(of: className, source: options.source, watermark: newest ?? watermark)
    }

    /// What one page did to the mirror: each object's outcome, and the link changes by `Owner.field`.
    private struct PageWrite {
        let outcomes: [WriteOutcome]
        let links: [(relation: String, changes: LinkChanges)]
    }

    /// The source's links of `owners` in each of the class's relations: the field, its target
    /// class and each owner's links (none for an owner the source has none of).
    private func relationLinks(of schema: ClassSchema, owners: [String]) throws(PorterError) -> [(field: String, targetClass: String, owners: [RelationLinks])]
    {
        guard !owners.isEmpty else { return [] }
        return try schema.relationFields.map { (field) throws(PorterError) in
            let targetClass = field.type.targetClass ?? ""
            let links = try source.links(owner: schema.className, field: field.name, targetClass: targetClass, ownerIds: owners)
            let byOwner = Dictionary(grouping: links, by: \.owningId)
            return (field.name, targetClass, owners.map { RelationLinks(ownerId: $0, relatedIds: byOwner[$0]?.map(\.relatedId) ?? [], line: 0) })
        }
    }

    /// A cancelled run stops between pages; the mirror is then rolled back.
    private func stopIfCancelled(_ className: String) throws(PorterError) {
        try cancellation.check("pulling \(className)", "the mirror was left as it was")
    }

    private func tallyLinks(_ relation: String, added: Int = 0, removed: Int = 0) {
        relationTallies[relation, default: PullReport.RelationTally(relation: relation)].added += added
        relationTallies[relation, default: PullReport.RelationTally(relation: relation)].removed += removed
    }
}
