import ParseModel
import PorterCore
import Synchronization

/// The SQLite mirror (Docs/MirrorLayout.md): `_SCHEMA` with each class's `/schemas` JSON, one table per
/// class, `_Join:<field>:<Class>` tables for relations, a unique index on each natural key.
/// An import is one transaction; a mirror the import creates is built under a hidden name and
/// takes its own only when it commits (``NewMirrorFile``), so a failed or killed import leaves
/// no file under the mirror's name.
///
/// ```swift
/// let report = try await Importer(manifest: manifest).run(into: SQLiteMirror(path: "app.sqlite"))
/// ```
///
/// `Sendable`: its connection is held behind a mutex, so one call runs at a time whichever
/// thread or task makes it. An import's calls still belong together (one transaction from
/// ``begin(schemas:naturalKeys:)`` to ``commit()``): give a mirror to one import at a time.
public final class SQLiteMirror: ObjectSink, Sendable {
    /// The mirror file.
    public let path: String
    private let connection: Mutex<MirrorWriter>

    /// A mirror at `path`; the file is created by the first import that commits.
    public init(path: String) {
        self.path = path
        connection = Mutex(MirrorWriter(path: path))
    }

    /// A mirror on a connection whose owner has a transaction open (a migration): the import
    /// runs in a savepoint of it, and commit or rollback end only the savepoint.
    ///
    /// The owner must not use `database` while the mirror is in use, nor hand the mirror to
    /// another task: the connection is then reached around the mutex, by the owner's code, which
    /// the compiler cannot see (hence `nonisolated(unsafe)`, and `package` access: migrations
    /// keep to this: they wait for the import to end before they use the connection again).
    package init(sharing database: SQLiteDatabase) {
        path = database.path
        nonisolated(unsafe) let shared = MirrorWriter(sharing: database)
        connection = Mutex(shared)
    }

    /// The classes of the mirror's `_SCHEMA` table; none when the file does not exist yet.
    public func existingSchemas() throws(PorterError) -> [ClassSchema] {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.existingSchemas() }
    }

    /// Creates the file when missing, opens the import's transaction and adds the missing classes,
    /// fields and join tables.
    public func begin(schemas: [ClassSchema], naturalKeys: [String: [String]]) throws(PorterError) {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.begin(schemas: schemas, naturalKeys: naturalKeys) }
    }

    /// `_User` password hashes go into Parse Server's own column, `_hashed_password`, which no
    /// `_SCHEMA` field names: queries and exports never read it, `serve`'s log-in does.
    public var storesPasswordHashes: Bool { true }

    /// Inserts new objects and updates changed ones (as `mode` says), keeping `_User` password hashes.
    public func write(_ objects: [ResolvedObject], className: String, mode: WriteMode) throws(PorterError) -> [WriteOutcome] {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.write(objects, className: className, mode: mode) }
    }

    /// Names uploaded files by their content hash; they are written into `<mirror>.files` on commit.
    public func store(_ files: [LocalFile]) throws(PorterError) -> [String: ParseFile] {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.store(files) }
    }

    /// Sets one pointer field of objects already written.
    public func patch(className: String, field: String, values: [(objectId: String, value: ParseValue)]) throws(PorterError) -> [WriteOutcome] {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.patch(className: className, field: field, values: values) }
    }

    /// Adds relation links to the field's join table; with `replace`, each owner keeps only the given ones.
    public func link(owner className: String, field: String, targetClass: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) -> LinkChanges {
        try connection.withLock { (mirror) throws(PorterError) in
            try mirror.link(owner: className, field: field, targetClass: targetClass, links, replace: replace)
        }
    }

    /// Moves the staged links into their join tables, sorted; reports how many were new.
    public func flush() throws(PorterError) -> [String: LinkChanges] {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.flush() }
    }

    /// Deletes the class's objects `held` does not list, with their relation links.
    public func prune(_ className: String, keeping held: HeldObjects) throws(PorterError) -> PruneResult {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.prune(className, keeping: held) }
    }

    /// Deletes the links of the relation that `held` no longer lists.
    public func pruneLinks(owner className: String, field: String, targetClass: String, keeping held: [String: Set<String>]) throws(PorterError) -> PruneResult
    {
        try connection.withLock { (mirror) throws(PorterError) in
            try mirror.pruneLinks(owner: className, field: field, targetClass: targetClass, keeping: held)
        }
    }

    /// Whether the mirror has this object.
    public func hasObject(className: String, objectId: String) throws(PorterError) -> Bool {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.hasObject(className: className, objectId: objectId) }
    }

    /// Creates the natural-key indexes, writes the staged files and commits the transaction.
    public func commit() throws(PorterError) {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.commit() }
    }

    /// Rolls the transaction back; a mirror file the import created is removed.
    public func rollback() {
        connection.withLock { $0.rollback() }
    }
}

/// What a pull (``Puller``) does to the mirror, inside the transaction ``begin(schemas:naturalKeys:)`` starts.
extension SQLiteMirror {
    /// Stores objects read from a source as they are there: new ones are inserted; existing ones
    /// whose values, ACL, `createdAt` or `updatedAt` differ are replaced. `values` follow
    /// `schema.storedFields`; `_User`s get their `passwordHashes` (by objectId) in `_hashed_password`,
    /// and lose the one the mirror has when `passwordHashes` is given and lacks them. `nil`: the
    /// source reads no hashes, every user keeps the mirror's.
    package func store(_ objects: [StoredObject], of schema: ClassSchema, passwordHashes: [String: String]? = nil) throws(PorterError) -> [WriteOutcome] {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.store(objects, of: schema, passwordHashes: passwordHashes) }
    }

    /// Notes objectIds the source still has, for ``deleteObjectsNotKept(of:)``.
    package func keepObjectIds(_ objectIds: [String]) throws(PorterError) {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.keepObjectIds(objectIds) }
    }

    /// Deletes the class's objects whose ids were not kept since the last call, with their relation links.
    package func deleteObjectsNotKept(of className: String) throws(PorterError) -> ObjectDeletion {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.deleteObjectsNotKept(of: className) }
    }

    /// The watermark of the class's last pull from `source`; `nil` when it was never pulled from there.
    package func pullWatermark(of className: String, source: String) throws(PorterError) -> ParseDate? {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.pullWatermark(of: className, source: source) }
    }

    /// Records a pull of the class from `source` up to `watermark`, now.
    package func recordPull(of className: String, source: String, watermark: ParseDate?) throws(PorterError) {
        try connection.withLock { (mirror) throws(PorterError) in try mirror.recordPull(of: className, source: source, watermark: watermark) }
    }
}
