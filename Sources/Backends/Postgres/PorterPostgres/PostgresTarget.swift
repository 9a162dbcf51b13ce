import ParseModel
import PorterCore
import Synchronization

/// A Parse Server's own PostgreSQL database as an import target, written in the layout of
/// Parse Server's `PostgresStorageAdapter`: `_SCHEMA` rows, one table per class,
/// `_Join:<field>:<Class>` tables, `_User._hashed_password`. Rows go in by `COPY`; an import is
/// one transaction, so a failed one leaves the database as it was. A re-import, or an import
/// into a live app, updates the objects whose values changed and inserts the missing ones,
/// matched by natural key (an object Parse Server made keeps its objectId); the tables written
/// are `ANALYZE`d once it commits.
///
/// ```swift
/// let options = ImportOptions(batchSize: PostgresTarget.objectsPerWrite)
/// let report = try await Importer(manifest: manifest, options: options).run(into: PostgresTarget(url: "postgres://parse@db/parse"))
/// ```
///
/// What a running Parse Server does not do for a direct load: see ``caveats``.
///
/// `Sendable`: its connection is held behind a mutex. Give a target to one import at a time.
public final class PostgresTarget: ObjectSink, Sendable {
    /// Objects per write that suit this target (``ImportOptions/batchSize``): each write is a
    /// `COPY` per class, and PostgreSQL spends less per row on fewer, larger ones (1M books:
    /// about 8.7 s of server CPU at 10,000 against 12.5 s at the default 1,000).
    public static let objectsPerWrite = 10_000

    /// The database URL as messages show it, without its password.
    public let shownURL: String
    private let connection: Mutex<PostgresWriter>

    /// The database at `url` (`postgres://user@host:port/db`); nothing connects before the first call.
    public init(url: String) {
        shownURL = PostgresURL.redacted(url)
        connection = Mutex(PostgresWriter(url: url))
    }

    /// A target writing on `connection` inside the transaction its owner keeps open there: an
    /// import is a savepoint in it, rolled back alone when the import fails.
    package init(sharing connection: PostgresConnection) {
        shownURL = connection.shownURL
        self.connection = Mutex(PostgresWriter(sharing: connection))
    }

    /// What a load straight into Parse Server's database skips, for the user to know.
    public static let caveats = [
        "Cloud Code triggers (beforeSave, afterSave) do not run: the rows are written to the database directly, not through Parse Server.",
        "A running Parse Server keeps its schema cache: restart it, or wait for the cache to expire, before it sees new classes and fields.",
    ]

    /// The classes of the `_SCHEMA` table; none when there is no such table yet.
    public func existingSchemas() throws(PorterError) -> [ClassSchema] {
        try connection.withLock { (writer) throws(PorterError) in try writer.existingSchemas() }
    }

    /// Names longer than the 63 bytes PostgreSQL keeps, among those the import would create:
    /// every name of a new class, the new fields of a class the database has.
    public func refusedNames(in schemas: [ClassSchema], existing: [ClassSchema]) -> [RefusedName] {
        PostgresIdentifiers.longNames(in: schemas, existing: existing)
    }

    /// Opens the import's transaction and creates the missing classes, columns and join tables.
    public func begin(schemas: [ClassSchema], naturalKeys: [String: [String]]) throws(PorterError) {
        try connection.withLock { (writer) throws(PorterError) in try writer.begin(schemas: schemas, naturalKeys: naturalKeys) }
    }

    /// `_User` password hashes go into `_hashed_password`, where Parse Server's log-in reads them.
    public var storesPasswordHashes: Bool { true }

    /// The caveats of a direct load, for the summary.
    public var notes: [String] { Self.caveats }

    /// Copies objects in: new ones inserted, changed ones updated (as `mode` says).
    public func write(_ objects: [ResolvedObject], className: String, mode: WriteMode) throws(PorterError) -> [WriteOutcome] {
        try connection.withLock { (writer) throws(PorterError) in try writer.write(objects, className: className, mode: mode) }
    }

    /// Files to upload are refused: a database holds only file names, the files live in Parse
    /// Server's files adapter.
    public func store(_ files: [LocalFile]) throws(PorterError) -> [String: ParseFile] {
        guard files.isEmpty else {
            throw PorterError(
                .target, "\(shownURL): a PostgreSQL target stores no files (\(files.count) to upload): upload them to the Parse Server, or import into a mirror"
            )
        }
        return [:]
    }

    /// Sets one pointer field of objects already written.
    public func patch(className: String, field: String, values: [(objectId: String, value: ParseValue)]) throws(PorterError) -> [WriteOutcome] {
        try connection.withLock { (writer) throws(PorterError) in try writer.patch(className: className, field: field, values: values) }
    }

    /// Stages links for the field's `_Join` table, written by ``flush()``; with `replace`, each
    /// owner keeps only the given ones. The changes are counted by ``flush()``.
    public func link(owner className: String, field: String, targetClass: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) -> LinkChanges {
        try connection.withLock { (writer) throws(PorterError) in
            try writer.link(owner: className, field: field, targetClass: targetClass, links, replace: replace)
        }
        return LinkChanges()
    }

    /// Lets go of the digests of the stored rows (a class) or links (a relation) a re-import
    /// keeps to leave out what the database holds already. Objects of the class written
    /// afterwards are compared on the server; links of the relation afterwards are refused.
    public func finished(_ part: ImportPart) {
        connection.withLock { $0.finished(part) }
    }

    /// How many stored rows or owners the digests this import keeps cover, by class or join
    /// table (a re-import reads them at a class's or relation's first write, ``finished(_:)`` lets them go).
    package var heldDigests: [String: Int] {
        connection.withLock { $0.heldDigests }
    }

    /// Writes the staged links into their `_Join` tables; link changes by relation (`Book.authors`).
    public func flush() throws(PorterError) -> [String: LinkChanges] {
        try connection.withLock { (writer) throws(PorterError) in try writer.flushLinks() }
    }

    /// Deletes the class's objects `held` does not list, with their relation links and, for
    /// `_User`, their sessions.
    public func prune(_ className: String, keeping held: HeldObjects) throws(PorterError) -> PruneResult {
        try connection.withLock { (writer) throws(PorterError) in try writer.prune(className, keeping: held) }
    }

    /// Deletes the links of the relation that `held` no longer lists.
    public func pruneLinks(owner className: String, field: String, targetClass: String, keeping held: [String: Set<String>]) throws(PorterError) -> PruneResult
    {
        try connection.withLock { (writer) throws(PorterError) in
            try writer.pruneLinks(owner: className, field: field, targetClass: targetClass, keeping: held)
        }
    }

    /// Whether the class's table holds the object.
    public func hasObject(className: String, objectId: String) throws(PorterError) -> Bool {
        try connection.withLock { (writer) throws(PorterError) in try writer.hasObject(className: className, objectId: objectId) }
    }

    /// Commits the import's transaction.
    public func commit() throws(PorterError) {
        try connection.withLock { (writer) throws(PorterError) in try writer.commit() }
    }

    /// Rolls the import's transaction back: the database is as it was.
    public func rollback() {
        connection.withLock { $0.rollback() }
    }
}
