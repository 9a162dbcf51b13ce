import Foundation
import ParseModel
import PorterCore
import PorterSQLite
import Synchronization

/// Reads a SQLite mirror for an export: its classes from `_SCHEMA`, objects in insertion order
/// straight from the class tables (one statement per class, stepped a page at a time), and
/// relation links from the `_Join` tables. A `where` is compiled as `serve` compiles it.
///
/// `Sendable`: the connection is held behind a mutex, taken for each call and for each page
/// read, and released while a page is handed on (so the page's consumer may ask the source
/// again, as an export asks for the links of the page's owners).
public final class MirrorObjectSource: ObjectSource, Sendable {
    /// The mirror file.
    public let path: String
    /// The mirror file, for messages.
    public var location: String { path }
    private let reading: Mutex<MirrorReading>
    /// Objects per page handed on.
    static let pageSize = 1000

    /// Opens the mirror at `path`; a missing file or one that is not a mirror is a target error (``PorterError/Cause/target``).
    public init(path: String) throws(PorterError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw PorterError(.target, "\(path): no such mirror")
        }
        self.path = path
        reading = Mutex(try MirrorReading(path: path))
    }

    /// The classes of the mirror's `_SCHEMA` table; a file without one is not a mirror (``PorterError/Cause/target``).
    public func schemas() throws(PorterError) -> [ClassSchema] {
        try reading.withLock { (mirror) throws(PorterError) in try mirror.schemas() }
    }

    /// How many objects of the class match `constraints`.
    public func count(of schema: ClassSchema, matching constraints: JSONObject?) throws(PorterError) -> Int {
        try reading.withLock { (mirror) throws(PorterError) in try mirror.count(of: schema, matching: constraints) }
    }

    /// The class's objects matching `constraints`, in insertion order, a page at a time.
    public func readObjects(
        of schema: ClassSchema, matching constraints: JSONObject?,
        page: ([StoredObject]) throws(PorterError) -> Void
    ) throws(PorterError) {
        let cursor = try reading.withLock { (mirror) throws(PorterError) in try mirror.openObjects(of: schema, matching: constraints) }
        try read(cursor, page: page) { if case .objects(let objects) = $0 { objects } else { [] } }
    }

    /// Every objectId of the class, a page at a time.
    public func readObjectIds(of className: String, page: ([String]) throws(PorterError) -> Void) throws(PorterError) {
        let cursor = try reading.withLock { (mirror) throws(PorterError) in try mirror.openObjectIds(of: className) }
        try read(cursor, page: page) { if case .objectIds(let ids) = $0 { ids } else { [] } }
    }

    /// The links of `owner.field` whose owners are among `ownerIds`, by owner.
    public func links(owner className: String, field: String, targetClass: String, ownerIds: [String]) throws(PorterError) -> [RelationLink] {
        try reading.withLock { (mirror) throws(PorterError) in try mirror.links(owner: className, field: field, ownerIds: ownerIds) }
    }

    /// The newest `updatedAt` of the class's objects.
    public func newestUpdate(of className: String) throws(PorterError) -> ParseDate? {
        try reading.withLock { (mirror) throws(PorterError) in try mirror.newestUpdate(of: className) }
    }

    /// The users' `_hashed_password` column, which no `_SCHEMA` field names.
    public func passwordHashes(ofUsers userIds: [String]) throws(PorterError) -> [String: String] {
        try reading.withLock { (mirror) throws(PorterError) in try mirror.passwordHashes(ofUsers: userIds) }
    }

    /// A user ``passwordHashes(ofUsers:)`` leaves out has no `_hashed_password` in the mirror.
    public var readsPasswordHashes: Bool { true }

    /// The join table in its stored order.
    public func readLinks(
        owner className: String, field: String, targetClass: String,
        page: ([RelationLink]) throws(PorterError) -> Void
    ) throws(PorterError) {
        let cursor = try reading.withLock { (mirror) throws(PorterError) in try mirror.openLinks(owner: className, field: field) }
        try read(cursor, page: page) { if case .links(let links) = $0 { links } else { [] } }
    }

    /// Hands the pages of `cursor` (`nil`: nothing to read) to `page`, the lock released meanwhile.
    private func read<Item>(_ cursor: Int?, page: ([Item]) throws(PorterError) -> Void, _ items: (MirrorReading.Page) -> [Item]) throws(PorterError) {
        guard let cursor else { return }
        defer { reading.withLock { $0.close(cursor) } }
        while true {
            let next = try reading.withLock { (mirror) throws(PorterError) in try mirror.nextPage(of: cursor) }
            let found = items(next)
            guard !found.isEmpty else { return }
            try page(found)
        }
    }
}

/// The connection of a ``MirrorObjectSource`` and what it remembers: the schemas, the tables,
/// and the statements being read a page at a time. Used under the source's mutex only.
private final class MirrorReading {
    /// One page read from a cursor; empty at the end.
    enum Page: Sendable {
        case objects([StoredObject])
        case objectIds([String])
        case links([RelationLink])
    }

    /// A statement being stepped, and how its rows are decoded.
    private enum Cursor {
        case objects(SQLiteStatement, RowDecoder)
        case objectIds(SQLiteStatement)
        case links(SQLiteStatement)
    }

    let path: String
    private let database: SQLiteDatabase
    private let regexes = RegexCache()
    private var knownSchemas: [String: ClassSchema]?
    /// The mirror's tables, read once: a relation declared in `_SCHEMA` may have no join table yet.
    private var tables: Set<String>?
    private var cursors: [Int: Cursor] = [:]
    private var lastCursor = 0

    init(path: String) throws(PorterError) {
        self.path = path
        database = try SQLiteDatabase(path: path, create: false)
        // Relation links are looked up by owner in join tables that outgrow SQLite's default cache.
        try database.execute("PRAGMA cache_size = -65536")
        do { try RegexFunction.register(on: database, cache: regexes) } catch { throw PorterError(.target, "\(path): \(error.message)") }
    }

    func schemas() throws(PorterError) -> [ClassSchema] {
        if let knownSchemas { return knownSchemas.values.sorted { $0.className < $1.className } }
        let schemas = try SQLiteMirror(path: path).existingSchemas()
        guard !schemas.isEmpty || (try? database.rows("SELECT 1 FROM _SCHEMA LIMIT 1")) != nil else {
            throw PorterError(.target, "\(path): not a ParsePorter mirror (it has no _SCHEMA table)")
        }
        knownSchemas = Dictionary(schemas.map { ($0.className, $0) }, uniquingKeysWith: { a, _ in a })
        return schemas
    }

    func count(of schema: ClassSchema, matching constraints: JSONObject?) throws(PorterError) -> Int {
        let statement = try prepare(SQLFragment("SELECT count(*) FROM \(quoted(schema.className)) AS t WHERE ") + condition(schema, constraints))
        return try statement.step() ? Int(statement.integer(at: 0)) : 0
    }

    func openObjects(of schema: ClassSchema, matching constraints: JSONObject?) throws(PorterError) -> Int? {
        let fields = schema.storedFields
        let columns = (ParseNames.defaultFields + fields.map(\.name)).map { "t." + quoted($0) }.joined(separator: ", ")
        let statement = try prepare(SQLFragment("SELECT \(columns) FROM \(quoted(schema.className)) AS t WHERE ") + condition(schema, constraints))
        return open(.objects(statement, RowDecoder(className: schema.className, fields: fields, path: path)))
    }

    func openObjectIds(of className: String) throws(PorterError) -> Int? {
        open(.objectIds(try database.prepare("SELECT objectId FROM \(quoted(className))")))
    }

    func openLinks(owner className: String, field: String) throws(PorterError) -> Int? {
        let table = MirrorLayout.joinTable(owner: className, field: field)
        guard try hasTable(table) else { return nil }
        return open(.links(try database.prepare("SELECT owningId, relatedId FROM \(quoted(table))")))
    }

    private func open(_ cursor: Cursor) -> Int {
        lastCursor += 1
        cursors[lastCursor] = cursor
        return lastCursor
    }

    func close(_ cursor: Int) { cursors[cursor] = nil }

    /// The next page of rows of `cursor`, up to ``MirrorObjectSource/pageSize``; an empty page
    /// at the end. A statement that reached its end is dropped at once: stepped again, SQLite
    /// would start it over.
    func nextPage(of cursor: Int) throws(PorterError) -> Page {
        var done = false
        func more(_ statement: SQLiteStatement) throws(PorterError) -> Bool {
            if !done, try !statement.step() { done = true }
            return !done
        }
        defer { if done { cursors[cursor] = nil } }
        switch cursors[cursor] {
        case .objects(let statement, var decoder)?:
            var objects: [StoredObject] = []
            objects.reserveCapacity(MirrorObjectSource.pageSize)
            while objects.count < MirrorObjectSource.pageSize, try more(statement) { objects.append(try decoder.decode(statement)) }
            cursors[cursor] = .objects(statement, decoder)
            return .objects(objects)
        case .objectIds(let statement)?:
            var ids: [String] = []
            while ids.count < MirrorObjectSource.pageSize, try more(statement) { ids.append(statement.text(at: 0) ?? "") }
            return .objectIds(ids)
        case .links(let statement)?:
            var links: [RelationLink] = []
            links.reserveCapacity(MirrorObjectSource.pageSize)
            while links.count < MirrorObjectSource.pageSize, try more(statement) {
                links.append(RelationLink(owningId: statement.text(at: 0) ?? "", relatedId: statement.text(at: 1) ?? ""))
            }
            return .links(links)
        case nil:
            return .objectIds([])
        }
    }

    func links(owner className: String, field: String, ownerIds: [String]) throws(PorterError) -> [RelationLink] {
        let table = MirrorLayout.joinTable(owner: className, field: field)
        guard try hasTable(table) else { return [] }
        var links: [RelationLink] = []
        let query = { (placeholders: String) in
            "SELECT owningId, relatedId FROM \(quoted(table)) WHERE owningId IN (\(placeholders)) ORDER BY owningId, relatedId"
        }
        try eachRow(ofIds: ownerIds, sql: query) { row in
            links.append(RelationLink(owningId: row.text(at: 0) ?? "", relatedId: row.text(at: 1) ?? ""))
        }
        return links
    }

    func passwordHashes(ofUsers userIds: [String]) throws(PorterError) -> [String: String] {
        let column = MirrorLayout.passwordHashColumn
        guard try !database.rows("SELECT 1 FROM pragma_table_info('_User') WHERE name = '\(column)'").isEmpty else { return [:] }
        var hashes: [String: String] = [:]
        let query = { (placeholders: String) in
            "SELECT objectId, \(quoted(column)) FROM _User WHERE objectId IN (\(placeholders)) AND \(quoted(column)) IS NOT NULL"
        }
        try eachRow(ofIds: userIds, sql: query) { row in
            if let id = row.text(at: 0), let hash = row.text(at: 1) { hashes[id] = hash }
        }
        return hashes
    }

    /// Runs the query `sql` makes of a list of placeholders once per 500 of `ids`, bound in
    /// order, and hands each row it returns to `row`.
    private func eachRow(ofIds ids: [String], sql: (String) -> String, _ row: (SQLiteStatement) -> Void) throws(PorterError) {
        var start = ids.startIndex
        while start < ids.endIndex {
            let chunk = ids[start..<min(start + 500, ids.endIndex)]
            let statement = try database.prepare(sql(Array(repeating: "?", count: chunk.count).joined(separator: ", ")))
            for (i, id) in chunk.enumerated() { statement.bind(text: id, at: i + 1) }
            while try statement.step() { row(statement) }
            start = chunk.endIndex
        }
    }

    func newestUpdate(of className: String) throws(PorterError) -> ParseDate? {
        let statement = try database.prepare("SELECT max(updatedAt) FROM \(quoted(className))")
        return try statement.step() ? statement.text(at: 0).flatMap(ParseDate.init(iso:)) : nil
    }

    private func hasTable(_ name: String) throws(PorterError) -> Bool {
        if tables == nil { tables = Set(try database.rows("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0[0] }) }
        return tables!.contains(name)
    }

    /// The SQL condition of a `where`; a `where` the mirror cannot run is an invalid request (``PorterError/Cause/invalidRequest``).
    private func condition(_ schema: ClassSchema, _ constraints: JSONObject?) throws(PorterError) -> SQLFragment {
        guard let constraints else { return .alwaysTrue }
        let compiler = WhereCompiler(schema: schema, schemas: knownSchemas ?? [schema.className: schema], isMaster: true, regexes: regexes)
        do { return try compiler.compile(constraints) } catch {
            throw PorterError(.invalidRequest, "constraints on \(schema.className): \(error.message)", setting: .constraints)
        }
    }

    private func prepare(_ sql: SQLFragment) throws(PorterError) -> SQLiteStatement {
        let statement = try database.prepare(sql.sql)
        sql.bind(to: statement)
        return statement
    }
}

/// Decodes rows of `objectId, createdAt, updatedAt, ACL, <stored fields>`; a value that does not
/// decode as its field's type means the mirror was changed behind our back (``PorterError/Cause/target``).
private struct RowDecoder {
    let className: String
    let fields: [SchemaField]
    let path: String
    /// Most objects of a class share their ACL: its text is parsed once while it repeats.
    private var lastACL: (text: String, acl: ParseACL?)?

    init(className: String, fields: [SchemaField], path: String) {
        self.className = className
        self.fields = fields
        self.path = path
    }

    mutating func decode(_ row: SQLiteStatement) throws(PorterError) -> StoredObject {
        let objectId = row.text(at: 0) ?? ""
        var values: [ParseValue] = []
        values.reserveCapacity(fields.count)
        for (i, field) in fields.enumerated() {
            guard let value = row.value(at: i + 4, as: field.type) else {
                throw PorterError(
                    .target, "\(path): \(className) \(objectId): the stored \(field.name) \"\(row.text(at: i + 4) ?? "")\" is not a \(field.type)")
            }
            values.append(value)
        }
        return StoredObject(
            objectId: objectId, createdAt: try date(row, 1, "createdAt", objectId), updatedAt: try date(row, 2, "updatedAt", objectId),
            acl: try acl(row, objectId), values: values)
    }

    private func date(_ row: SQLiteStatement, _ column: Int, _ name: String, _ objectId: String) throws(PorterError) -> ParseDate? {
        switch row.value(at: column, as: .date) {
        case .date(let date)?: return date
        case .null?: return nil
        default: throw PorterError(.target, "\(path): \(className) \(objectId): the stored \(name) \"\(row.text(at: column) ?? "")\" is not an ISO 8601 date")
        }
    }

    private mutating func acl(_ row: SQLiteStatement, _ objectId: String) throws(PorterError) -> ParseACL? {
        if let lastACL, row.holdsText(lastACL.text, at: 3) { return lastACL.acl }
        guard let text = row.text(at: 3) else { return nil }
        guard case .acl(let acl)? = row.value(at: 3, as: .acl) else {
            throw PorterError(.target, "\(path): \(className) \(objectId): the stored ACL \(text) is not a Parse ACL")
        }
        lastACL = (text, acl)
        return acl
    }
}
