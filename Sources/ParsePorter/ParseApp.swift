import Foundation
import MirrorQuery
import ParseMirrorServer
import ParseModel
import PorterMigrations
import PorterPipeline
import PorterREST
import PorterSQLite

/// A Parse app's backend, opened once, and every job ParsePorter does on it: import (a dataset
/// or `Encodable` values), export (to a folder or to memory), find with `Decodable` results,
/// pull into a mirror, migrate, and read, compare and push schemas.
///
/// ```swift
/// let app = try await ParseApp(target: .mirror(path: "library.sqlite"))
/// let report = try await app.importDataset("Fixtures/library")
/// let books = try await app.find(Book.self, in: "Book", where: ["publishingYear": ["$gte": 2000]])
/// ```
///
/// The handle holds no connection between jobs: each job opens what it needs (a SQLite
/// connection, an HTTP client, a PostgreSQL connection) and closes it before it returns, so a
/// mirror file may be moved or removed between jobs, and jobs may run at once from several
/// tasks (on one mirror, writers take turns, as SQLite allows one writer at a time). The work
/// of every job runs on threads of its own, never on Swift's cooperative pool. Cancelling the
/// task that awaits a job stops it and leaves the target as the job's own documentation says.
public final class ParseApp: Sendable {
    /// Where the app's data is: ``mirror(path:create:)``, ``server(url:applicationId:masterKey:allowInsecureHTTP:)``,
    /// or, with the ParsePorterPostgres product, a Parse Server's PostgreSQL database
    /// (`database(url:)`). Printed, it shows the path or URL and never the master key or a
    /// database password.
    public struct Target: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        package let backend: any AppBackend

        package init(_ backend: any AppBackend) { self.backend = backend }

        /// A SQLite mirror file; `create` makes an empty one when the file is missing.
        public static func mirror(path: String, create: Bool = true) -> Target { Target(MirrorApp(path: path, create: create)) }

        /// A Parse Server at `url` (`https://host/parse`), spoken to with the master key;
        /// `allowInsecureHTTP` allows plain `http://` to a host other than this machine.
        public static func server(url: String, applicationId: String, masterKey: String, allowInsecureHTTP: Bool = false) -> Target {
            Target(ServerApp(url: url, applicationId: applicationId, masterKey: masterKey, allowInsecureHTTP: allowInsecureHTTP))
        }

        /// The mirror's path, the server's URL or the database's URL without its password.
        public var description: String { backend.redactedAddress }

        /// The same as ``description``: no key or password.
        public var debugDescription: String { description }

        /// What `dump` shows: ``description`` alone.
        public var customMirror: Mirror { Mirror(self, children: ["location": description]) }
    }

    /// The target this handle opened.
    public let target: Target
    /// The mirror's path, the server's URL or the database's URL, without keys or passwords: what
    /// messages name, and what a pull records as its source.
    public let location: String

    /// Opens `target`: a mirror's schemas are read (a missing mirror is made by the first job
    /// that writes, when `create`: an import makes it only if it commits); a server is asked
    /// for its schemas with the master key; a database is connected to. Throws a `PorterError`
    /// caused `.target` when it cannot be reached, `.invalidRequest` when the address is not one.
    public init(target: Target) async throws(PorterError) {
        self.target = target
        location = try target.backend.open()
        if target.backend.exists { _ = try await schemas() }
    }

    // MARK: Import

    /// Imports the dataset at `path`: a folder holding `dataset.yml`, a Parse export folder or
    /// its `.zip`, Parse Server's MongoDB collections, or the manifest file itself. Nothing is
    /// written unless the whole dataset is valid; the report says what was written and why not.
    /// `options` default to those that suit the target (a database takes larger writes).
    public func importDataset(_ path: String, options: ImportOptions? = nil) async throws(PorterError) -> ImportReport {
        let sink = try Lent(self.sink())
        let targetClasses = try await onThread { () throws(PorterError) in Set(try sink.value.existingSchemas().map(\.className)) }
        let manifest = try ManifestLoader.load(path, targetClasses: targetClasses)
        return try await Importer(manifest: manifest, options: options ?? defaultImportOptions).run(into: sink.value)
    }

    /// Imports the classes and relations of a manifest built in code (``DatasetManifest``, with
    /// files or ``MemorySource``s), checked as a `dataset.yml` would be.
    public func importDataset(_ manifest: DatasetManifest, options: ImportOptions? = nil) async throws(PorterError) -> ImportReport {
        try await Importer(manifest: manifest, options: options ?? defaultImportOptions).run(into: sink())
    }

    /// Saves `rows` as objects of `className`: each property is a field of the same name, its
    /// Parse type read off its Swift type (`String`, numbers, `Bool`, `Date` to the millisecond,
    /// `Data`, nested values, arrays). An object whose `key` fields match a stored one updates
    /// it; the others are created. `types` gives a field another type than its values suggest:
    /// `["author": .pointer(targetClass: "Author")]` for a property holding the author's key.
    /// A row that cannot be encoded is a `.invalidData` error naming its position (from 1).
    public func save<Row: Encodable>(
        _ rows: [Row], to className: String, key: [String], types: [String: FieldType] = [:],
        options: ImportOptions? = nil
    ) async throws(PorterError) -> ImportReport {
        var encoder = RowEncoder()
        var records: [[String: JSONValue]] = []
        records.reserveCapacity(rows.count)
        for (index, row) in rows.enumerated() {
            do {
                records.append(try encoder.encode(row))
            } catch {
                throw PorterError(.invalidData, "\(className) (in memory):\(index + 1): cannot encode the value: \(error)")
            }
        }
        var fields = encoder.fields.map { FieldMapping(name: $0.name, type: types[$0.name] ?? $0.type) }
        for (name, type) in types.sorted(by: { $0.key < $1.key }) where !fields.contains(where: { $0.name == name }) {
            fields.append(FieldMapping(name: name, type: type))
        }
        let mapping = ClassMapping(
            className: className, records: MemorySource(name: "\(className) (in memory)", rows: records),
            key: key, fields: fields)
        return try await importDataset(DatasetManifest(classes: [mapping]), options: options)
    }

    // MARK: Export

    /// Writes the classes `options` select into `folder` (missing or empty, unless
    /// `options.force`), in `options.format`; a failed or cancelled export leaves it as it was.
    public func export(to folder: String, options: ExportOptions = ExportOptions(format: .parse)) async throws(PorterError) -> ExportReport {
        try await Exporter(source: source(), options: options).run(to: folder)
    }

    /// Every object of `className` that matches `constraints` (a Parse `where`; `nil` for all),
    /// as Parse REST JSON (`objectId`, `createdAt`, `updatedAt`, `ACL`, the fields set), read a
    /// page at a time: an export into memory. Throws `.invalidData` when there is no such class.
    public func objects(of className: String, where constraints: JSONObject? = nil) async throws(PorterError) -> [JSONObject] {
        let source = try Lent(self.source())
        let location = location
        return try await onThread { () throws(PorterError) in
            guard let schema = try source.value.schemas().first(where: { $0.className == className }) else {
                throw PorterError(.invalidData, "\(location) has no class \(className)")
            }
            var objects: [JSONObject] = []
            try source.value.readObjects(of: schema, matching: constraints) { (page) throws(PorterError) in
                for object in page {
                    if case .object(let json) = object.wireJSON(schema.storedFields) { objects.append(json) }
                }
            }
            return objects
        }
    }

    /// ``objects(of:where:)`` decoded as `type`: each property reads the field of its name (`Date`
    /// properties read Parse dates and `createdAt`/`updatedAt`). Throws `.invalidData` naming the
    /// object and the property when one does not decode.
    public func objects<T: Decodable>(of className: String, as type: T.Type, where constraints: JSONObject? = nil)
        async throws(PorterError) -> [T]
    {
        try ObjectDecoding.decode(type, from: try await objects(of: className, where: constraints), className: className)
    }

    // MARK: Query

    /// The objects of `className` that match `constraints` (a Parse `where`, e.g.
    /// `["publishingYear": ["$gte": 2000]]`), as `GET /classes/<className>` answers them with
    /// the master key, decoded as `type`: sorted by `order` (`"-publishingYear,title"`), at most
    /// `limit` (Parse's default is 100), with the objects of the pointer fields `include` in
    /// place of their pointers. A database answers `where`, `keys` and `limit` only, in objectId order.
    /// A `className` that is not a class name (Parse error 103's rule) is ``PorterError/Cause/invalidRequest``,
    /// before any request.
    public func find<T: Decodable>(
        _ type: T.Type, in className: String, where constraints: JSONObject = JSONObject(), order: String? = nil,
        limit: Int? = nil, skip: Int? = nil, include: [String] = []
    ) async throws(PorterError) -> [T] {
        // The name becomes a path segment: one with `/`, `?` or `..` would ask another route.
        if let problem = ParseNames.classNameProblem(className) {
            throw PorterError(.invalidRequest, "\(location): finding \(className) objects: \(problem)")
        }
        var query: [(String, String)] = [("where", JSONValue.object(constraints).serialized())]
        if let order { query.append(("order", order)) }
        if let limit { query.append(("limit", String(limit))) }
        if let skip { query.append(("skip", String(skip))) }
        if !include.isEmpty { query.append(("include", include.joined(separator: ","))) }
        let answer = try await withTarget { (target) throws(PorterError) -> JSONValue in
            do throws(ParseAPIError) {
                return try await target.api.send("GET", "/classes/\(className)", query: query, body: nil)
            } catch {
                throw error.porterError("\(target.location): finding \(className) objects")
            }
        }
        guard case .array(let results)? = answer["results"] else {
            throw PorterError(.target, "\(location): finding \(className) objects: the answer has no results array")
        }
        let objects = results.compactMap { (result: JSONValue) -> JSONObject? in
            guard case .object(let object) = result else { return nil }
            return object
        }
        return try ObjectDecoding.decode(type, from: objects, className: className)
    }

    // MARK: Pull

    /// Copies every class of this app (or those `classes` names) into the mirror at `mirrorPath`,
    /// made if missing, in one transaction; a second pull reads only what changed since, unless
    /// `full`. From a database or a mirror, users' password hashes come too.
    public func pull(into mirrorPath: String, classes: [String]? = nil, full: Bool = false) async throws(PorterError) -> PullReport {
        let options = PullOptions(source: location, classes: classes, full: full)
        return try await Puller(source: source(), mirror: SQLiteMirror(path: mirrorPath), options: options).run()
    }

    // MARK: Migrate

    /// Applies the pending migrations of `folder` (`V1__create_books.yml`, …) up to `version`
    /// (all when `nil`), under the target's migration lock; each is recorded in the target's
    /// history. `events` hears of each migration and operation as it goes.
    public func migrate(
        _ folder: String, upTo version: MigrationVersion? = nil,
        events: (MigrationEvent) -> Void = { _ in }
    ) async throws(PorterError) -> [AppliedMigration] {
        try await migrations(folder).up(to: version, events: events)
    }

    /// A runner of the migrations in `folder` on this app, for ``MigrationRunner/status()``,
    /// ``MigrationRunner/baseline(version:)`` and ``MigrationRunner/repair()``. It keeps its own
    /// connection to the target until it is released.
    public func migrations(_ folder: String) throws(PorterError) -> MigrationRunner {
        MigrationRunner(target: try migrationTarget(), files: try MigrationDirectory.load(folder), folder: folder)
    }

    // MARK: Schemas

    /// Every class's schema, as `GET /schemas` answers it (ParsePorter's bookkeeping classes left out).
    public func schemas() async throws(PorterError) -> [ClassSchema] {
        try await withTarget { (target) throws(PorterError) in try await target.api.schemas() }
    }

    /// How this app's classes differ from those `declared` (``SchemaDocument/read(_:)`` reads a
    /// schema file); an empty diff is a passed check. `diff.text`, `diff.json` and `diff.junit` report it.
    public func schemaDiff(declared: [ClassSchema]) async throws(PorterError) -> SchemaDiff {
        SchemaDiff(declared: declared, live: try await schemas(), liveIndexKeysInJSONBOrder: target.backend.liveIndexKeysInJSONBOrder)
    }

    /// Changes this app's classes to those `declared`: adds classes, fields and indexes, sets
    /// class-level permissions; removes or retypes fields only when `options` allow. Returns what
    /// was sent. Throws `.invalidData` (nothing sent) when a change needs an option not given.
    public func pushSchema(declared: [ClassSchema], options: SchemaPushOptions = SchemaPushOptions()) async throws(PorterError) -> SchemaPush {
        let inJSONBOrder = target.backend.liveIndexKeysInJSONBOrder
        return try await withTarget { (target) throws(PorterError) in
            let live = try await target.api.schemas()
            let push = try SchemaPush(diff: SchemaDiff(declared: declared, live: live, liveIndexKeysInJSONBOrder: inJSONBOrder), options: options)
            try await push.apply(to: target)
            return push
        }
    }

    // MARK: Backends

    private var defaultImportOptions: ImportOptions { target.backend.defaultImportOptions }

    /// Where an import writes.
    private func sink() throws(PorterError) -> ObjectSink { try target.backend.sink() }

    /// Where an export, a pull or ``objects(of:where:)`` reads.
    private func source() throws(PorterError) -> ObjectSource { try target.backend.source() }

    /// Where migrations, schema requests and queries go.
    private func migrationTarget() throws(PorterError) -> MigrationTarget { try target.backend.migrationTarget() }

    /// Runs `body` with a migration target opened for it, on a thread of its own (a mirror's
    /// requests block while another connection writes), and closes the target after.
    private func withTarget<T>(_ body: (MigrationTarget) async throws(PorterError) -> T) async throws(PorterError) -> T {
        try await ThreadExecutor.run(named: "parse-porter app") { (_) throws(PorterError) in
            let target = try migrationTarget()
            defer { (target as? MirrorTarget)?.close() }
            return try await body(target)
        }
    }

    private func onThread<T: Sendable>(_ work: @escaping @Sendable () throws(PorterError) -> T) async throws(PorterError) -> T {
        try await Cancellation.onThread(named: "parse-porter app") { (_) throws(PorterError) in try work() }
    }
}
