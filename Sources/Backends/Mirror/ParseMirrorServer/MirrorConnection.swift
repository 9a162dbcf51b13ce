import MirrorQuery
import ParseModel
import ParseRules
import PorterCore
import PorterSQLite

/// One connection to the mirror with the server's operations on it: the schemas, class and
/// field DDL (in the importer's layout, ``MirrorLayout``), and single-row reads and writes in
/// the importer's column codec, so a mirror filled through the server and one filled by
/// `parse-porter import` compare row by row. Used by one thread at a time.
final class MirrorConnection {
    let database: SQLiteDatabase
    private let schemaCache: SchemaCache
    private var cachedReader: MirrorReader?
    private let queryTimeLimit: Double
    /// Prepared row statements by SQL text (SQLite re-prepares them itself after schema changes),
    /// at most ``statementLimit``: each set of columns a write names is a statement of its own.
    private var statements: [String: SQLiteStatement] = [:]
    private static let statementLimit = 256

    init(database: SQLiteDatabase, schemaCache: SchemaCache, queryTimeLimit: Double) {
        self.database = database
        self.schemaCache = schemaCache
        self.queryTimeLimit = queryTimeLimit
    }

    /// Finalises the kept statements and closes the connection (its query engine first, which
    /// unhooks itself from it).
    func close() {
        cachedReader = nil
        statements = [:]
        database.close()
    }

    /// A prepared statement for `sql`, kept for the next call with the same text.
    private func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        if statements.count >= Self.statementLimit { statements.removeAll() }
        let prepared = try database.prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    /// The query engine on this connection.
    func reader() throws -> MirrorReader {
        if let cachedReader { return cachedReader }
        let reader = try MirrorReader(database: database, timeLimit: queryTimeLimit)
        cachedReader = reader
        return reader
    }

    // MARK: Schemas

    /// Every class's schema as committed (or as changed by the running transaction).
    func schemas() throws -> [String: ClassSchema] {
        var result: [String: ClassSchema] = [:]
        for row in try database.rows("SELECT className, schema FROM _SCHEMA") {
            guard let className = row[0], let text = row[1] else { continue }
            result[className] = try schemaCache.schema(className: className, text: text)
        }
        return result
    }

    func schema(_ className: String) throws -> ClassSchema? {
        guard let text = try database.rows("SELECT schema FROM _SCHEMA WHERE className = ?1", [className]).first?[0] else { return nil }
        return try schemaCache.schema(className: className, text: text)
    }

    func saveSchema(_ schema: ClassSchema) throws {
        let statement = try database.prepare(MirrorLayout.saveSchemaSQL)
        statement.bind(text: schema.className, at: 1)
        statement.bind(text: schema.schemaJSON.serialized(), at: 2)
        try statement.run()
    }

    /// Creates the table of a new class and its fields' columns and join tables.
    func createClass(_ schema: ClassSchema) throws {
        try checkTableNameIsFree(schema.className)
        try checkFieldNamesAreDistinct(schema.fields.map(\.name), in: schema)
        try database.execute(MirrorLayout.createClassTableSQL(schema.className, fields: schema.fields))
        for field in schema.fields {
            guard case .relation = field.type else { continue }
            try database.execute(MirrorLayout.addFieldSQL(className: schema.className, field))
        }
        try saveSchema(schema)
    }

    /// Adds fields to an existing class (columns or join tables) and saves its schema, which
    /// already lists them.
    func addFields(_ fields: [SchemaField], savingSchema schema: ClassSchema) throws {
        try checkFieldNamesAreDistinct(fields.map(\.name), in: schema)
        for field in fields { try database.execute(MirrorLayout.addFieldSQL(className: schema.className, field)) }
        try saveSchema(schema)
    }

    /// SQLite's table names ignore case and `sqlite_` names are its own, so a class is refused
    /// (103) when the mirror has a table of that name in any case (`metA` beside `meta`).
    private func checkTableNameIsFree(_ className: String) throws {
        if className.lowercased().hasPrefix("sqlite_") {
            throw APIError.parse(.invalidClassName, "Invalid classname: \(className), names starting with sqlite_ are reserved by the mirror's SQLite.")
        }
        let taken = try database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?1 COLLATE NOCASE", [className])
        if let existing = taken.first?[0] ?? nil {
            throw APIError.parse(.invalidClassName, "Class \(className) cannot be created beside \(existing): the mirror's SQLite table names ignore case.")
        }
    }

    /// SQLite's column names ignore case, and so would the names of Relation join tables: a new
    /// field whose name equals another field's (or objectId, createdAt, updatedAt, ACL) in all but
    /// case is refused (105), so no two fields share storage.
    private func checkFieldNamesAreDistinct(_ names: [String], in schema: ClassSchema) throws {
        let all = ParseNames.defaultFields + schema.fields.map(\.name)
        for name in names {
            if let other = all.first(where: { $0 != name && $0.lowercased() == name.lowercased() }) {
                throw APIError.parse(.invalidKeyName, "Invalid field name: \(name). The class has \(other), and the mirror's SQLite column names ignore case.")
            }
        }
    }

    /// Removes a field with its data: the column, or the join table of a Relation.
    func dropField(_ name: String, from schema: inout ClassSchema) throws {
        guard let index = schema.fields.firstIndex(where: { $0.name == name }) else { return }
        if case .relation = schema.fields[index].type {
            try database.execute("DROP TABLE IF EXISTS \(quoted(MirrorLayout.joinTable(owner: schema.className, field: name)))")
        } else {
            try dropIndexes(on: name, of: schema.className)
            try database.execute("ALTER TABLE \(quoted(schema.className)) DROP COLUMN \(quoted(name))")
        }
        schema.fields.remove(at: index)
        try saveSchema(schema)
    }

    /// Drops a class: its table, its join tables and its schema row.
    func dropClass(_ schema: ClassSchema) throws {
        for field in schema.fields {
            guard case .relation = field.type else { continue }
            try database.execute("DROP TABLE IF EXISTS \(quoted(MirrorLayout.joinTable(owner: schema.className, field: field.name)))")
        }
        try database.execute("DROP TABLE IF EXISTS \(quoted(schema.className))")
        let delete = try database.prepare("DELETE FROM _SCHEMA WHERE className = ?1")
        delete.bind(text: schema.className, at: 1)
        try delete.run()
    }

    /// Deletes every object of a class and every link of its Relations.
    func deleteAllObjects(of schema: ClassSchema) throws {
        for field in schema.fields where field.type.isRelation {
            let table = MirrorLayout.joinTable(owner: schema.className, field: field.name)
            guard !(try database.rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", [table])).isEmpty else { continue }
            try database.execute("DELETE FROM \(quoted(table))")
        }
        try database.execute("DELETE FROM \(quoted(schema.className))")
    }

    /// SQLite refuses to drop a column an index uses (the importer's natural-key index).
    private func dropIndexes(on column: String, of table: String) throws {
        let indexes = try database.rows(
            "SELECT DISTINCT il.name FROM pragma_index_list(?1) AS il, pragma_index_info(il.name) AS ii WHERE ii.name = ?2 AND il.origin = 'c'",
            [table, column])
        for row in indexes { if let name = row[0] { try database.execute("DROP INDEX \(quoted(name))") } }
    }

    func objectCount(_ className: String) throws -> Int {
        try database.rows("SELECT count(*) FROM \(quoted(className))").first?[0].flatMap { Int($0) } ?? 0
    }

    // MARK: Rows

    /// One stored object's ACL and the values of `fields`; `nil` when there is no such object.
    func row(_ className: String, objectId: String, fields: [SchemaField]) throws -> StoredRow? {
        let columns = (["ACL"] + fields.map(\.name)).map(quoted).joined(separator: ", ")
        let select = try statement("SELECT \(columns) FROM \(quoted(className)) WHERE objectId = ?1")
        select.bind(text: objectId, at: 1)
        defer { select.reset() }
        guard try select.step() else { return nil }
        var values: [String: ParseValue] = [:]
        for (i, field) in fields.enumerated() { values[field.name] = select.value(at: i + 1, as: field.type) ?? .null }
        var acl: ParseACL?
        if case .acl(let stored)? = select.value(at: 0, as: .acl) { acl = stored }
        return StoredRow(acl: acl, values: values)
    }

    /// Inserts one object; a taken objectId (or a value the importer's natural-key index holds) is error 137.
    func insert(
        _ className: String, objectId: String, createdAt: ParseDate, updatedAt: ParseDate? = nil, acl: ParseACL?,
        columns: [(name: String, value: ParseValue)]
    ) throws {
        let names = (ParseNames.defaultFields + columns.map(\.name)).map(quoted).joined(separator: ", ")
        let placeholders = (1...(4 + columns.count)).map { "?\($0)" }.joined(separator: ", ")
        let insert = try statement("INSERT INTO \(quoted(className)) (\(names)) VALUES (\(placeholders))")
        insert.bind(text: objectId, at: 1)
        insert.bind(text: createdAt.iso, at: 2)
        insert.bind(text: (updatedAt ?? createdAt).iso, at: 3)
        insert.bind(acl.map(ParseValue.acl) ?? .null, at: 4)
        for (i, column) in columns.enumerated() { insert.bind(column.value, at: i + 5) }
        try runReportingDuplicates(insert)
    }

    /// Sets `updatedAt` and the given columns of one object.
    func update(_ className: String, objectId: String, updatedAt: ParseDate, columns: [(name: String, value: ParseValue)]) throws {
        let assignments = (["updatedAt"] + columns.map(\.name)).enumerated().map { "\(quoted($1)) = ?\($0 + 2)" }.joined(separator: ", ")
        let update = try statement("UPDATE \(quoted(className)) SET \(assignments) WHERE objectId = ?1")
        update.bind(text: objectId, at: 1)
        update.bind(text: updatedAt.iso, at: 2)
        for (i, column) in columns.enumerated() { update.bind(column.value, at: i + 3) }
        try runReportingDuplicates(update)
    }

    /// Runs a write; a unique-constraint failure is Parse's 137.
    private func runReportingDuplicates(_ statement: SQLiteStatement) throws {
        do {
            try statement.run()
        } catch {
            guard case .SQLITE_CONSTRAINT? = error.sqliteError?.resultCode else { throw error }
            throw APIError.parse(.duplicateValue, "A duplicate value for a field with unique values was provided")
        }
    }

    func delete(_ className: String, objectId: String) throws {
        let delete = try database.prepare("DELETE FROM \(quoted(className)) WHERE objectId = ?1")
        delete.bind(text: objectId, at: 1)
        try delete.run()
    }

    /// Adds and removes the links of one owner in a relation's join table.
    func link(_ className: String, field: String, owner: String, add: [String], remove: [String]) throws {
        let table = quoted(MirrorLayout.joinTable(owner: className, field: field))
        let insert = try statement("INSERT OR IGNORE INTO \(table) (owningId, relatedId) VALUES (?1, ?2)")
        for related in add {
            insert.bind(text: owner, at: 1)
            insert.bind(text: related, at: 2)
            try insert.run()
        }
        let delete = try statement("DELETE FROM \(table) WHERE owningId = ?1 AND relatedId = ?2")
        for related in remove {
            delete.bind(text: owner, at: 1)
            delete.bind(text: related, at: 2)
            try delete.run()
        }
    }
}

/// What the server reads of a stored object before changing it.
struct StoredRow {
    /// `nil`: the object has no ACL and is public.
    var acl: ParseACL?
    var values: [String: ParseValue]
}
