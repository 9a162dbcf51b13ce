import ParseModel

/// One field value of an object on its way to a target.
public struct FieldValue: Sendable, Equatable {
    /// The field's name.
    public let name: String
    /// The value to write.
    public let value: ParseValue
    /// The value `value` of field `name`.
    public init(_ name: String, _ value: ParseValue) {
        self.name = name
        self.value = value
    }
}

/// An object ready to write: references resolved to objectIds, provenance kept for rejects.
public struct ResolvedObject: Sendable {
    /// The object's objectId on the target.
    public let objectId: String
    /// The source line of its record, for faults and rejects.
    public let line: Int
    /// The fields to write; fields not listed are left as the target has them.
    public let fields: [FieldValue]
    /// The object's ACL; `nil` when the record gives none.
    public let acl: ParseACL?
    /// The creation time the record gives; `nil` when it gives none.
    public let createdAt: ParseDate?
    /// The update time the record gives; `nil` when it gives none.
    public let updatedAt: ParseDate?
    /// A `_User`'s bcrypt password hash, which a target that ``ObjectSink/storesPasswordHashes``
    /// keeps in Parse Server's `_hashed_password`; never a readable field.
    public let passwordHash: String?

    /// An object to write, with its fields and provenance.
    public init(
        objectId: String, line: Int, fields: [FieldValue], acl: ParseACL?, createdAt: ParseDate? = nil, updatedAt: ParseDate? = nil,
        passwordHash: String? = nil
    ) {
        self.objectId = objectId
        self.line = line
        self.fields = fields
        self.acl = acl
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.passwordHash = passwordHash
    }
}

/// What writing one object did.
public enum WriteOutcome: Sendable, Equatable {
    case inserted, updated, unchanged
    /// The target refused the object; the reason names the conflict.
    case failed(String)
}

/// The links of one owner object in one relation field.
public struct RelationLinks: Sendable {
    /// The owner object's objectId.
    public let ownerId: String
    /// The objectIds of the objects it links to.
    public let relatedIds: [String]
    /// The source line the links were read from.
    public let line: Int
    /// The links `relatedIds` of owner `ownerId`, read at `line`.
    package init(ownerId: String, relatedIds: [String], line: Int) {
        self.ownerId = ownerId
        self.relatedIds = relatedIds
        self.line = line
    }
}

/// Counts of relation links a write added and removed, and the links a target refused.
public struct LinkChanges: Sendable, Equatable {
    /// Links added.
    public var added = 0
    /// Links removed (replacing writes only).
    public var removed = 0
    /// Why the target refused links: one entry per owner whose links it refused together, or
    /// per link refused alone.
    public var refused: [String] = []
    /// How many links the target refused, all of ``refused``'s together.
    public var refusedLinks = 0
    /// Counts as given; zero and nothing refused by default (`refusedLinks`: one per reason).
    public init(added: Int = 0, removed: Int = 0, refused: [String] = [], refusedLinks: Int? = nil) {
        self.added = added
        self.removed = removed
        self.refused = refused
        self.refusedLinks = refusedLinks ?? refused.count
    }
}

/// The relation links of one field that a batch of objects carries.
public struct RelationBatch: Sendable {
    /// The relation field's name.
    public let field: String
    /// The class the relation points to.
    public let targetClass: String
    /// The links, one entry per owner object.
    public let links: [RelationLinks]
    /// Each listed owner's links become exactly the given set (else links are only added).
    public let replace: Bool
    /// A batch of links of `field` to `targetClass`; `replace` makes each owner's links exactly these.
    package init(field: String, targetClass: String, links: [RelationLinks], replace: Bool) {
        self.field = field
        self.targetClass = targetClass
        self.links = links
        self.replace = replace
    }
}

/// Requests a network target sent (or, in a dry run, would send) in one phase of an import.
public struct RequestTally: Sendable, Equatable {
    /// The phase's name, as the summary lists it (`read Book`, `schemas`).
    public let phase: String
    /// HTTP requests sent in the phase.
    public var requests = 0
    /// Operations inside those requests (a `/batch` request carries several).
    public var operations = 0
    /// A tally with counts as given.
    public init(phase: String, requests: Int = 0, operations: Int = 0) {
        self.phase = phase
        self.requests = requests
        self.operations = operations
    }
}

/// A target an import writes to: the SQLite mirror, or a Parse Server over REST.
/// Calls come in plan order: ``begin(schemas:naturalKeys:)``, object writes class by class,
/// patches, relation links, ``flush()``, with pruning the deletions, then ``commit()`` or ``rollback()``.
/// Each class's objects and each relation's links are followed by ``finished(_:)`` once the
/// import has sent them all (an import that stops early need not tell).
///
/// Concurrency: an import calls its sink one call at a time, never concurrently, from two
/// threads of its own: the import's thread (``existingSchemas()``, ``begin(schemas:naturalKeys:)``,
/// ``commit()``, ``rollback()``, …) and its writer thread (writes, patches, links, ``flush()``),
/// each call finished before the next one starts. Neither is a thread of Swift's cooperative
/// pool, so a sink may block: wait on SQLite, or on a network reply, a semaphore or another
/// task's result. A sink need not be `Sendable`; it must not be used elsewhere while an import
/// has it.
public protocol ObjectSink: AnyObject {
    /// Whether ``rollback()`` undoes everything. A target that cannot (a Parse Server) is
    /// written only after the whole dataset validated, and an object it refuses is reported
    /// and skipped instead of stopping the import.
    var isTransactional: Bool { get }
    /// Whether an object may point at, or link to, objects not sent yet: true when the target
    /// stores the loader's objectIds as they are. Cyclic pointers and relations to classes read
    /// later then go out with their object, and there is no patch phase.
    var takesReferencesAhead: Bool { get }
    /// The class schemas the target has now (empty for a new target).
    func existingSchemas() throws(PorterError) -> [ClassSchema]
    /// The names among `schemas` (the dataset's classes) the target cannot store as they are,
    /// given the classes it has (`existing`): the import refuses them as schema faults before
    /// anything is written. None by default.
    func refusedNames(in schemas: [ClassSchema], existing: [ClassSchema]) -> [RefusedName]
    /// Creates missing classes and fields and starts the import's unit of work.
    /// `naturalKeys` maps class names to their key fields.
    func begin(schemas: [ClassSchema], naturalKeys: [String: [String]]) throws(PorterError)
    /// ``begin(schemas:naturalKeys:)`` for an import that follows `plan`: a target that cannot
    /// carry out the plan (e.g. create objects whose required pointers it patches in later)
    /// refuses here, before anything is written. By default the plan is not looked at.
    func begin(schemas: [ClassSchema], naturalKeys: [String: [String]], plan: ImportPlan) throws(PorterError)
    /// Writes objects of one class, one outcome per object in order.
    func write(_ objects: [ResolvedObject], className: String, mode: WriteMode) throws(PorterError) -> [WriteOutcome]
    /// Writes objects with the relation links they carry; link changes by field name.
    /// A sink that can send both in one request overrides the default (write, then link).
    func write(_ objects: [ResolvedObject], className: String, mode: WriteMode, relations: [RelationBatch]) throws(PorterError)
        -> (outcomes: [WriteOutcome], links: [String: LinkChanges])
    /// Stores local files (File fields with `upload: true`) before the objects naming them are
    /// written: each content once, reusing what an earlier run stored. Returns the File value
    /// the target gives each, by ``LocalFile/storedName``.
    func store(_ files: [LocalFile]) throws(PorterError) -> [String: ParseFile]
    /// Sets one pointer field of objects already written (the plan's patch phase).
    func patch(className: String, field: String, values: [(objectId: String, value: ParseValue)]) throws(PorterError) -> [WriteOutcome]
    /// Adds relation links; with `replace`, each listed owner's links become exactly the given set.
    func link(owner className: String, field: String, targetClass: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) -> LinkChanges
    /// Tells the sink that the import has sent `part` in full, on the writer thread once the
    /// calls before it have run: what the sink keeps to write that part (a re-import's digests
    /// of the stored rows or links) may go. A call for that part afterwards breaks this contract;
    /// a sink may refuse it. By default nothing is kept, and nothing is done.
    func finished(_ part: ImportPart)
    /// Writes whatever the sink still buffers. Returns the link changes it has not reported
    /// from ``link(owner:field:targetClass:_:replace:)`` yet, by `Owner.field`.
    func flush() throws(PorterError) -> [String: LinkChanges]
    /// Pruning: deletes the objects of `className` the sources no longer hold, with their
    /// relation links (as owner and as related object). Called after every write, before
    /// ``commit()``; a dry run only finds them.
    func prune(_ className: String, keeping held: HeldObjects) throws(PorterError) -> PruneResult
    /// Pruning: removes the links of a relation read from a join file that it no longer
    /// lists. `held` maps owner objectIds to related objectIds (the loader's ids).
    func pruneLinks(owner className: String, field: String, targetClass: String, keeping held: [String: Set<String>]) throws(PorterError) -> PruneResult
    /// Whether the target has this object (for references to classes outside the dataset).
    func hasObject(className: String, objectId: String) throws(PorterError) -> Bool
    /// Makes everything since ``begin(schemas:naturalKeys:)`` durable.
    func commit() throws(PorterError)
    /// Leaves the target as it was before ``begin(schemas:naturalKeys:)`` (when transactional).
    func rollback()
    /// The requests sent so far, by phase (empty for targets that are not reached over a network).
    var requestTallies: [RequestTally] { get }
    /// Whether `_User` password hashes are stored (a mirror); a Parse Server takes none over REST.
    var storesPasswordHashes: Bool { get }
    /// Whether a relation link whose owner is not in the target can be written (a join table
    /// row, as a mirror and a database hold them); a Parse Server adds links by updating the
    /// owner, so it cannot. Only references ``DanglingReferencePolicy/keep`` keeps ask.
    var holdsLinksOfMissingOwners: Bool { get }
    /// What the import could not carry over as the source had it (timestamps a server set
    /// itself), for the summary.
    var notes: [String] { get }
}

extension ResolvedObject {
    /// The object with the placeholder names of its uploaded files replaced by the target's files.
    package func naming(files: [String: ParseFile]) -> ResolvedObject {
        let named = fields.map { field -> FieldValue in
            guard case .file(let file) = field.value, let stored = files[file.name] else { return field }
            return FieldValue(field.name, .file(stored))
        }
        return ResolvedObject(
            objectId: objectId, line: line, fields: named, acl: acl, createdAt: createdAt, updatedAt: updatedAt,
            passwordHash: passwordHash)
    }
}

extension ObjectSink {
    /// By default a sink is transactional: a failed import leaves the target as it was.
    public var isTransactional: Bool { true }
    /// By default references are resolved by the import before objects are written.
    public var takesReferencesAhead: Bool { false }
    /// By default no requests are counted (a sink not reached over a network).
    public var requestTallies: [RequestTally] { [] }
    /// By default password hashes are not stored.
    public var storesPasswordHashes: Bool { false }
    /// By default links are rows of their own, whose owner need not exist.
    public var holdsLinksOfMissingOwners: Bool { true }
    /// By default there is nothing to note.
    public var notes: [String] { [] }
    /// By default a sink keeps nothing per class or relation to let go of.
    public func finished(_ part: ImportPart) {}
    /// By default every name can be stored.
    public func refusedNames(in schemas: [ClassSchema], existing: [ClassSchema]) -> [RefusedName] { [] }

    /// A sink that does not implement pruning refuses pruning (before anything is committed).
    public func prune(_ className: String, keeping held: HeldObjects) throws(PorterError) -> PruneResult {
        throw PorterError(.target, "this target cannot delete the objects the sources no longer hold")
    }

    /// A sink that does not implement pruning refuses pruning of join-file links too.
    public func pruneLinks(owner className: String, field: String, targetClass: String, keeping held: [String: Set<String>]) throws(PorterError) -> PruneResult
    {
        throw PorterError(.target, "this target cannot delete the relation links the sources no longer list")
    }

    /// By default the plan is not looked at: calls ``begin(schemas:naturalKeys:)``.
    public func begin(schemas: [ClassSchema], naturalKeys: [String: [String]], plan: ImportPlan) throws(PorterError) {
        try begin(schemas: schemas, naturalKeys: naturalKeys)
    }

    /// By default writes the objects, then links each batch's relations; returns the outcomes and the link changes by field.
    public func write(_ objects: [ResolvedObject], className: String, mode: WriteMode, relations: [RelationBatch]) throws(PorterError)
        -> (outcomes: [WriteOutcome], links: [String: LinkChanges])
    {
        let outcomes = objects.isEmpty ? [] : try write(objects, className: className, mode: mode)
        var links: [String: LinkChanges] = [:]
        for batch in relations where !batch.links.isEmpty {
            links[batch.field] = try link(owner: className, field: batch.field, targetClass: batch.targetClass, batch.links, replace: batch.replace)
        }
        return (outcomes, links)
    }
}
