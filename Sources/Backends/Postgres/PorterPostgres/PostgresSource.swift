import ParseModel
import PorterCore

/// A Parse Server's PostgreSQL database as a source: its classes from `_SCHEMA`, objects read a
/// page at a time in objectId order, links from the `_Join` tables, each value read back as
/// Parse Server's `postgresObjectToParseObject` reads it. Constraints (a `where`: an export's,
/// a pull's `updatedAt $gte`) are those ``PostgresWhere`` compiles; others are refused by name.
public final class PostgresSource: ObjectSource {
    /// The database URL without its password.
    public var location: String { PostgresURL.redacted(writer.url) }
    private let writer: PostgresWriter
    /// Objects (or links) per page.
    private let pageSize = 1000

    /// The database at `url`; nothing connects before the first call.
    public init(url: String) {
        writer = PostgresWriter(url: url)
    }

    /// The database on an open connection, read inside the transaction its owner keeps.
    package init(sharing connection: PostgresConnection) {
        writer = PostgresWriter(sharing: connection)
    }

    /// The classes of `_SCHEMA`. A database without that table is not one a Parse Server has
    /// used (it creates `_SCHEMA` when it starts), and is refused.
    public func schemas() throws(PorterError) -> [ClassSchema] {
        guard try writer.tableExists("_SCHEMA") else {
            throw PorterError(.target, "\(location): has no _SCHEMA table: not a Parse Server database (Parse Server creates it when it starts)")
        }
        return try writer.existingSchemas()
    }

    /// How many objects of the class's table match `constraints`.
    public func count(of schema: ClassSchema, matching constraints: JSONObject?) throws(PorterError) -> Int {
        let condition = try PostgresWhere(constraints, schema: schema)
        guard try writer.tableExists(schema.className) else { return 0 }
        let sql = "SELECT count(*) FROM \(quoted(schema.className)) WHERE \(condition.sql)"
        return Int(try writer.database().execute(sql, condition.parameters).first?.first.flatMap { $0 } ?? "0") ?? 0
    }

    /// The class's objects that match `constraints`, `pageSize` per page, in objectId order.
    public func readObjects(
        of schema: ClassSchema, matching constraints: JSONObject?,
        page: ([StoredObject]) throws(PorterError) -> Void
    ) throws(PorterError) {
        try dropLinkCopies()
        var after = ""
        while true {
            let objects = try readPage(of: schema, matching: constraints, after: after, limit: pageSize)
            guard let last = objects.last?.objectId else { return }
            try page(objects)
            after = last
        }
    }

    /// Up to `limit` objects of the class that match `constraints` and whose objectId sorts
    /// after `after`, in objectId order.
    package func readPage(of schema: ClassSchema, matching constraints: JSONObject?, after: String, limit: Int) throws(PorterError) -> [StoredObject] {
        let condition = try PostgresWhere(constraints, schema: schema, firstParameter: 2)
        guard try writer.tableExists(schema.className) else { return [] }
        let fields = schema.storedFields
        let columns =
            [
                #""objectId""#, PostgresColumnText.dateSQL(#""createdAt""#), PostgresColumnText.dateSQL(#""updatedAt""#),
                #""_rperm"::text"#, #""_wperm"::text"#,
            ]
            + fields.map { $0.type == .date ? PostgresColumnText.dateSQL(quoted($0.name)) : quoted($0.name) + "::text" }
        let sql = """
            SELECT \(columns.joined(separator: ", ")) FROM \(quoted(schema.className))
            WHERE "objectId" > $1 AND \(condition.sql) ORDER BY "objectId" LIMIT \(max(0, limit))
            """
        return try writer.database().execute(sql, [after] + condition.parameters).map { (row) throws(PorterError) -> StoredObject in
            let objectId = row[0] ?? ""
            var values: [ParseValue] = []
            for (index, field) in fields.enumerated() {
                do throws(ParseValueError) {
                    values.append(try PostgresColumnText.value(row[index + 5], as: field.type))
                } catch {
                    throw PorterError(.target, "\(location): \(schema.className) \(objectId): \(field.name): \(error.message)")
                }
            }
            return StoredObject(
                objectId: objectId, createdAt: row[1].flatMap(ParseDate.init(iso:)), updatedAt: row[2].flatMap(ParseDate.init(iso:)),
                acl: PostgresColumnText.acl(read: row[3], write: row[4]), values: values)
        }
    }

    /// Every objectId of the class, in order.
    public func readObjectIds(of className: String, page: ([String]) throws(PorterError) -> Void) throws(PorterError) {
        guard try writer.tableExists(className) else { return }
        let sql = "SELECT \"objectId\" FROM \(quoted(className)) WHERE \"objectId\" > $1 ORDER BY \"objectId\" LIMIT \(pageSize)"
        var after = ""
        while true {
            let ids = try writer.database().execute(sql, [after]).compactMap { $0[0] }
            guard let last = ids.last else { return }
            try page(ids)
            after = last
        }
    }

    /// Every link of the field's `_Join` table, a page at a time in the order of its primary key
    /// (`relatedId`, `owningId`), which is how it is read without a sort: links whose owner no
    /// longer exists included, as the table holds them (Parse keeps them when it deletes an object).
    public func readLinks(
        owner className: String, field: String, targetClass: String,
        page: ([RelationLink]) throws(PorterError) -> Void
    ) throws(PorterError) {
        let table = PostgresLayout.joinTable(owner: className, field: field)
        guard try writer.tableExists(table) else { return }
        let sql = """
            SELECT "owningId", "relatedId" FROM \(quoted(table)) WHERE ("relatedId", "owningId") > ($1, $2)
            ORDER BY "relatedId", "owningId" LIMIT \(pageSize)
            """
        var after = ("", "")
        while true {
            let links = try writer.database().execute(sql, [after.0, after.1]).map { RelationLink(owningId: $0[0] ?? "", relatedId: $0[1] ?? "") }
            guard let last = links.last else { return }
            try page(links)
            after = (last.relatedId, last.owningId)
        }
    }

    /// The links of the owners `ownerIds` in the field's `_Join` table.
    ///
    /// That table's only index, its primary key, begins with `relatedId` (Parse Server's
    /// `createTable`), so a lookup by owner reads the whole table. Asked a second time for one
    /// table (a class of more than a page of owners), the source copies the table's links into
    /// a temporary table indexed by owner, once per read of objects, and looks them up there: a
    /// pull or export then reads each join table about twice instead of once per page of owners.
    public func links(owner className: String, field: String, targetClass: String, ownerIds: [String]) throws(PorterError) -> [RelationLink] {
        let table = PostgresLayout.joinTable(owner: className, field: field)
        guard !ownerIds.isEmpty, try writer.tableExists(table) else { return [] }
        let rows = try writer.database().execute(
            """
            SELECT "owningId", "relatedId" FROM \(try linksByOwner(of: table)) WHERE "owningId" = ANY($1::text[]) ORDER BY "owningId", "relatedId"
            """, [ParseACL.textArray(ownerIds)])
        return rows.map { RelationLink(owningId: $0[0] ?? "", relatedId: $0[1] ?? "") }
    }

    /// Join tables whose links were looked up by owner once, in the table itself.
    private var lookedUp: Set<String> = []
    /// Per join table, its temporary copy indexed by owner (quoted), made on the second lookup.
    private var copies: [String: String] = [:]
    /// Whether the database refused a temporary table: links are then looked up in the tables.
    private var copiesRefused = false

    /// What to read `table`'s links by owner from (quoted): the table on the first call, then a
    /// temporary copy indexed by `owningId`. A database that allows no temporary table (a
    /// read-only standby, a user without the TEMP privilege) is read from the table each time.
    private func linksByOwner(of table: String) throws(PorterError) -> String {
        if let copy = copies[table] { return copy }
        guard !copiesRefused, lookedUp.contains(table) else {
            lookedUp.insert(table)
            return quoted(table)
        }
        let copy = quoted("porter:links:\(copies.count)")
        let db = try writer.database()
        do throws(PorterError) {
            try db.execute(#"CREATE TEMP TABLE \#(copy) AS SELECT "owningId", "relatedId" FROM \#(quoted(table))"#)
            try db.execute(#"CREATE INDEX ON \#(copy) ("owningId")"#)
            try db.execute("ANALYZE pg_temp.\(copy)")
            copies[table] = copy
            return copy
        } catch  where ["25006", "42501"].contains(error.postgresError?.sqlState) {
            copiesRefused = true
            return quoted(table)
        }
    }

    /// Drops the copies of the join tables: a new read of objects looks their links up as the
    /// tables hold them now, not as when an earlier read copied them.
    private func dropLinkCopies() throws(PorterError) {
        guard !copies.isEmpty || !lookedUp.isEmpty else { return }
        for copy in copies.values { try writer.database().execute("DROP TABLE IF EXISTS pg_temp.\(copy)") }
        copies = [:]
        lookedUp = []
    }

    /// The users' bcrypt hashes in `_User._hashed_password`, where Parse Server keeps them (an
    /// export in the MongoDB layout carries them on).
    public func passwordHashes(ofUsers userIds: [String]) throws(PorterError) -> [String: String] {
        guard !userIds.isEmpty, try writer.tableExists("_User") else { return [:] }
        let rows = try writer.database().execute(
            """
            SELECT "objectId", "\(PostgresLayout.passwordHashColumn)" FROM "_User"
            WHERE "objectId" = ANY($1::text[]) AND "\(PostgresLayout.passwordHashColumn)" IS NOT NULL
            """, [ParseACL.textArray(userIds)])
        return Dictionary(rows.compactMap { row in row[0].flatMap { id in row[1].map { (id, $0) } } }, uniquingKeysWith: { first, _ in first })
    }

    /// A user ``passwordHashes(ofUsers:)`` leaves out has a NULL `_hashed_password`: no password.
    public var readsPasswordHashes: Bool { true }

    /// The newest `updatedAt` of the class.
    public func newestUpdate(of className: String) throws(PorterError) -> ParseDate? {
        guard try writer.tableExists(className) else { return nil }
        let newest = try writer.database().execute("SELECT \(PostgresColumnText.dateSQL("max(\"updatedAt\")")) FROM \(quoted(className))")
        return newest.first?.first.flatMap { $0 }.flatMap(ParseDate.init(iso:))
    }
}
