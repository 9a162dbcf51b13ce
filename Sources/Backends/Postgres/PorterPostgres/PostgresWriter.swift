import Foundation
import ParseModel
import PorterCore

/// The connection and the state of one ``PostgresTarget``: what the target does, on behalf of
/// the sink that holds it behind a mutex. Used by one thread at a time.
final class PostgresWriter {
    let url: String
    private var connection: PostgresConnection?
    /// This import's time, for `createdAt` and `updatedAt`.
    private var now = ""
    /// ``now`` as a date.
    private var nowDate = ParseDate(millisecondsSince1970: 0)
    /// The classes' schemas once ``begin(schemas:)`` merged them, by class name.
    private var schemas: [String: ClassSchema] = [:]
    /// Tables this import created: they hold no earlier rows, so rows are copied straight in.
    private(set) var freshTables: Set<String> = []
    /// Join tables whose links wait in staging tables until ``flushLinks()``, by join table.
    var stagedLinks: [String: LinkStage] = [:]
    /// Tables this import created without their primary key, and its columns: their rows go in
    /// unindexed and the key is built once (``addPrimaryKey(_:)``), before a row is looked up
    /// by it or when the links are flushed. Every insert into a keyed table would be a B-tree
    /// insert at a random place (objectIds are hashes).
    var unkeyedTables: [String: [String]] = [:]
    /// The indexes of the classes this import created, by class: made at commit, after the rows
    /// (`createIndexes`, as `createClass` makes them).
    private var pendingIndexes: [String: [JSONMember]] = [:]
    /// The temporary tables made in this transaction (dropped when it ends).
    var stagingTables: Set<String> = []
    /// The staging table of each class written through one (``stagingTable(for:)``), by class.
    private var classStages: [String: String] = [:]
    /// The natural key of each class that has one, by class name, as ``begin(schemas:naturalKeys:)`` gave it.
    private(set) var naturalKeys: [String: [String]] = [:]
    /// By class, the objectIds of objects the table had under another objectId than the one the
    /// loader derives from their natural key (Parse Server made them): loader id → stored id.
    /// Objects are matched by key, as over REST, and pointers and links name the stored ids.
    private(set) var storedIds: [String: [String: String]] = [:]
    /// The tables this import wrote rows into: `ANALYZE`d once it commits.
    private var writtenTables: Set<String> = []
    /// The digests of the stored rows of the classes this import writes into tables it did not
    /// make, by class (``storedRowDigests(_:schema:fields:)``).
    private var rowDigests: [String: StoredRowDigests] = [:]
    /// The stored links of the join tables this import adds to and did not make, by table.
    var linkSets: [String: StoredLinkSets] = [:]
    /// The classes and relations the import has sent in full (``finished(_:)``): their digests
    /// are gone, and none is read again.
    var finishedParts: Set<ImportPart> = []
    /// Where the join tables this import made are loaded, on a second connection (not in an
    /// owner's transaction); made for the first links.
    private(set) var staging: PostgresStagingSchema?
    /// Whether ``staging`` committed: its schema is then dropped if this import rolls back.
    var stagingCommitted = false
    /// The bytes of the last binary COPY rows sent, kept for the next (``withCopyBuffer(_:)``).
    private var copyBuffer = BinaryCopyRows()

    /// Whether the connection's transaction is its owner's: an import is a savepoint in it.
    let shared: Bool
    private static let savepoint = "porter_import"

    init(url: String) {
        self.url = url
        shared = false
    }

    /// A writer working inside the transaction its owner keeps open on `connection`.
    init(sharing connection: PostgresConnection) {
        url = connection.shownURL
        self.connection = connection
        shared = true
    }

    /// The staging schema of the join tables this import made, connected on first use.
    func stagingSchema() throws(PorterError) -> PostgresStagingSchema {
        if let staging { return staging }
        let made = try PostgresStagingSchema(url: url)
        staging = made
        return made
    }

    /// The open connection, made on first use.
    func database() throws(PorterError) -> PostgresConnection {
        if let connection { return connection }
        let opened = try PostgresConnection(url: url)
        connection = opened
        return opened
    }

    /// The class DDL on the connection.
    func classes() throws(PorterError) -> PostgresSchemas { PostgresSchemas(connection: try database()) }

    func tableExists(_ name: String) throws(PorterError) -> Bool { try classes().tableExists(name) }

    func existingSchemas() throws(PorterError) -> [ClassSchema] { try classes().all() }

    /// Opens the import's transaction (a savepoint in a shared one) and creates the missing
    /// `_SCHEMA` table, classes, columns and join tables; `_SCHEMA` gets the fields added.
    func begin(schemas declared: [ClassSchema], naturalKeys: [String: [String]]) throws(PorterError) {
        self.naturalKeys = naturalKeys
        let existing = Dictionary(try existingSchemas().map { ($0.className, $0) }, uniquingKeysWith: { a, _ in a })
        let db = try database()
        nowDate = ParseDate(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        now = nowDate.iso
        try db.execute(shared ? "SAVEPOINT \(Self.savepoint)" : "BEGIN")
        try db.execute(PostgresLayout.schemaTableSQL)
        for schema in declared {
            guard var merged = existing[schema.className] else {
                track(try classes().createClass(schema, keyed: false))
                schemas[schema.className] = schema
                if case .object(let indexes)? = schema.indexes {
                    let own = indexes.members.filter { $0.key != "_id_" }
                    if !own.isEmpty { pendingIndexes[schema.className] = own }
                }
                continue
            }
            for field in schema.fields where PostgresLayout.isStored(field, of: schema.className) {
                if let index = merged.fields.firstIndex(where: { $0.name == field.name }) {
                    merged.fields[index] = field
                    continue
                }
                merged.fields.append(field)
                track(try classes().addField(field, to: schema.className, keyed: false))
            }
            if let permissions = schema.classLevelPermissions {
                merged.classLevelPermissions = permissions
                try db.execute(
                    #"UPDATE "_SCHEMA" SET "schema" = jsonb_set("schema", '{classLevelPermissions}', $2::jsonb) WHERE "className" = $1"#,
                    [schema.className, permissions.serialized()])
            }
            schemas[schema.className] = merged
        }
    }

    /// Tables this import made: rows go straight in, the primary key comes after them.
    private func track(_ created: [PostgresSchemas.CreatedTable]) {
        for table in created {
            freshTables.insert(table.name)
            unkeyedTables[table.name] = table.key
        }
    }

    /// Copies the objects in. Into a table this import created they go straight in; otherwise
    /// through a staging table, from which changed rows update the table and missing ones are
    /// inserted, all by objectId (which the loader derives from the natural key).
    func write(_ objects: [ResolvedObject], className: String, mode: WriteMode) throws(PorterError) -> [WriteOutcome] {
        guard let first = objects.first else { return [] }
        let schema = schemas[className]
        let fields = first.fields.map(\.name).filter { name in
            schema?.field(named: name).map { PostgresLayout.columnType($0.type) != nil } ?? true
        }
        let hashes = className == "_User"
        // An objectId repeated in a batch: the part before the repeat is written first.
        var seen = Set<String>()
        if let repeated = objects.firstIndex(where: { !seen.insert($0.objectId).inserted }) {
            return try write(Array(objects[..<repeated]), className: className, mode: mode)
                + write(Array(objects[repeated...]), className: className, mode: mode)
        }
        markWritten(className)
        do {
            if let schema, freshTables.contains(className) {
                try streamRows(objects, schema: schema, hashes: hashes)
                return Array(repeating: .inserted, count: objects.count)
            }
            // Objects the table holds as they are (by their digests) are not sent again.
            var outcomes = [WriteOutcome?](repeating: nil, count: objects.count)
            var changed = objects
            var matchesByKey = true
            if mode == .upsert && !hashes, let schema, var digests = try storedRowDigests(className, schema: schema, fields: fields) {
                var index = 0
                changed = []
                try eachRow(objects, fields: fields) { (object, values) throws(PorterError) in
                    if digests.holds(object.objectId, values: values, acl: object.acl) {
                        outcomes[index] = .unchanged
                    } else {
                        changed.append(object)
                    }
                    index += 1
                }
                // The loader derives an object's objectId from its natural key: an object stored
                // under it is that object, and only the others are looked up by key.
                matchesByKey = changed.contains { !digests.contains($0.objectId) }
                digests.forget(changed.map(\.objectId))
                rowDigests[className] = digests
            }
            if !changed.isEmpty {
                let rows = try copyRows(changed, className: className, fields: fields, hashes: hashes, touchedAt: true)
                let columns = PostgresLayout.defaultColumns + fields + (hashes ? [PostgresLayout.passwordHashColumn] : [])
                var written = try store(changed, rows, className: className, columns: columns, fields: fields, mode: mode, matchesByKey: matchesByKey)
                    .makeIterator()
                for index in outcomes.indices where outcomes[index] == nil { outcomes[index] = written.next() }
            }
            return outcomes.map { $0! }
        } catch  where error.cause == .target {
            throw PorterError(
                .target,
                "\(className): \(objects.count) objects from line \(objects.map(\.line).min() ?? 0) could not be written: "
                    + (error.postgresError?.description ?? error.message), underlying: error.underlyingError ?? error)
        }
    }

    /// Writes the objects' rows into a table this import created, in binary, on the COPY kept
    /// open for the table (``PostgresConnection/stream(_:into:columns:freeze:)``), frozen
    /// unless the import is a savepoint in its owner's transaction. Every column of the class
    /// is listed, so that every batch goes into the same COPY.
    private func streamRows(_ objects: [ResolvedObject], schema: ClassSchema, hashes: Bool) throws(PorterError) {
        let fields = PostgresLayout.fields(of: schema).filter { PostgresLayout.columnType($0.type) != nil }
        let names = fields.map(\.name)
        let columns = PostgresLayout.defaultColumns + names + (hashes ? [PostgresLayout.passwordHashColumn] : [])
        try withCopyBuffer { (rows) throws(PorterError) in
            try encodeRows(objects, schema: schema, fields: fields, hashes: hashes, into: &rows)
            try database().stream(rows, into: schema.className, columns: columns, freeze: !shared)
        }
    }

    /// Calls `body` with empty binary COPY rows whose bytes' room is kept from call to call.
    func withCopyBuffer(_ body: (inout BinaryCopyRows) throws(PorterError) -> Void) throws(PorterError) {
        var rows = BinaryCopyRows()
        swap(&rows, &copyBuffer)
        defer {
            rows.removeAll()
            copyBuffer = rows
        }
        try body(&rows)
    }

    /// The objects' rows in ``streamRows(_:schema:hashes:)``'s columns, `fields` of the class.
    private func encodeRows(
        _ objects: [ResolvedObject], schema: ClassSchema, fields: [SchemaField], hashes: Bool, into rows: inout BinaryCopyRows
    ) throws(PorterError) {
        let types = fields.map { BinaryCopyRows.Column($0.type)! }
        let width = PostgresLayout.defaultColumns.count + fields.count + (hashes ? 1 : 0)
        // The class's name alone, not its schema, goes into the per-row closure (a copy per value).
        let className = schema.className
        try eachRow(objects, fields: fields.map(\.name)) { (object, values) throws(PorterError) in
            rows.startRow(fields: width)
            rows.append(text: object.objectId)
            rows.append(date: object.createdAt ?? nowDate)
            rows.append(date: object.updatedAt ?? object.createdAt ?? nowDate)
            let permissions = object.acl?.permissionNames
            rows.append(textArray: permissions?.read)
            rows.append(textArray: permissions?.write)
            for index in values.indices {
                let appended = rows.append(values[index], as: types[index])
                if appended != .appended { throw Self.unwritable(values[index], appended, className: className, object: object, field: fields[index]) }
            }
            if hashes && rows.append(text: object.passwordHash) {
                throw Self.holdsNUL(object.passwordHash ?? "", className: className, object: object, field: PostgresLayout.passwordHashColumn)
            }
        }
    }

    /// Why `value` of `field` could not be encoded (``BinaryCopyRows/append(_:as:)`` said `appended`).
    private static func unwritable(
        _ value: ParseValue?, _ appended: BinaryCopyRows.Appended, className: String, object: ResolvedObject, field: SchemaField
    ) -> PorterError {
        guard appended == .mismatch else { return holdsNUL(value?.postgresText ?? "", className: className, object: object, field: field.name) }
        return PorterError(
            .invalidData,
            "\(className) \(object.objectId) (line \(object.line)): \(field.name): "
                + "value \(value?.wireJSON.serialized() ?? "null") does not fit its \(field.type.name) column")
    }

    /// Writes the objects' rows through the staging table: a COPY into it, then an UPDATE of
    /// the changed rows and an INSERT of the missing ones.
    private func store(
        _ objects: [ResolvedObject], _ rows: CopyRows, className: String, columns: [String], fields: [String],
        mode: WriteMode, matchesByKey: Bool
    ) throws(PorterError) -> [WriteOutcome] {
        let db = try database()
        let stage = try stagingTable(for: className)
        try db.execute("TRUNCATE \(quoted(stage))")
        try db.copy(into: stage, columns: columns + [Self.touchedAtColumn], rows)
        if matchesByKey { try matchByKey(className, stage: stage) }
        let hashes = columns.contains(PostgresLayout.passwordHashColumn)
        let updated = mode == .insert ? [] : try update(className, from: stage, fields: ["_rperm", "_wperm"] + fields, mode: mode, hashes: hashes)
        let names = columns.map(quoted).joined(separator: ", ")
        let inserted = try db.execute(
            """
            INSERT INTO \(quoted(className)) (\(names)) SELECT \(names) FROM \(quoted(stage)) s
            WHERE NOT EXISTS (SELECT 1 FROM \(quoted(className)) t WHERE t."objectId" = s."objectId") RETURNING "objectId"
            """)
        let insertedIds = Set(inserted.compactMap { $0[0] })
        return objects.map { object in
            let objectId = storedId(className, object.objectId)
            if insertedIds.contains(objectId) { return .inserted }
            if mode == .insert { return .failed("\(className) \(objectId) already exists in the target (mode: insert)") }
            return updated.contains(objectId) ? .updated : .unchanged
        }
    }

    /// The digests of the class's stored rows over `fields`, read at its first write; `nil`
    /// when a batch writes other fields than the first did, or after the class was finished.
    /// The digests are taken out of ``rowDigests`` (so that changing them copies nothing), to be put back.
    private func storedRowDigests(_ className: String, schema: ClassSchema, fields: [String]) throws(PorterError) -> StoredRowDigests? {
        guard !finishedParts.contains(.objects(className: className)) else { return nil }
        if let digests = rowDigests.removeValue(forKey: className) {
            guard digests.fields == fields else {
                rowDigests[className] = digests
                return nil
            }
            return digests
        }
        var types: [FieldType] = []
        for field in fields {
            guard let type = schema.field(named: field)?.type else { return nil }
            types.append(type)
        }
        return try StoredRowDigests(scanning: className, fields: fields, types: types, on: try database())
    }

    /// Gives the staged objects the objectIds of the stored objects with their natural key, where
    /// those differ from the loader's (objects Parse Server created): of two stored objects with
    /// one key, the first by objectId, as the REST import reads them; the loader's own id when a
    /// stored object has it. Records them in ``storedIds``.
    private func matchByKey(_ className: String, stage: String) throws(PorterError) {
        guard let key = naturalKeys[className], !key.isEmpty else { return }
        let schema = schemas[className]
        // point and polygon have no equality operator: compared as text.
        let matches = key.map { name -> String in
            let type = schema?.field(named: name)?.type
            return type == .geoPoint || type == .polygon ? "t.\(quoted(name))::text = s.\(quoted(name))::text" : "t.\(quoted(name)) = s.\(quoted(name))"
        }
        let rows = try database().execute(
            """
            WITH m AS (SELECT s."objectId" AS loader, min(t."objectId") AS stored FROM \(quoted(stage)) s JOIN \(quoted(className)) t
                       ON \(matches.joined(separator: " AND ")) GROUP BY s."objectId" HAVING bool_and(t."objectId" <> s."objectId"))
            UPDATE \(quoted(stage)) s SET "objectId" = m.stored FROM m WHERE s."objectId" = m.loader RETURNING m.loader, m.stored
            """)
        for row in rows { if let loader = row[0], let stored = row[1] { storedIds[className, default: [:]][loader] = stored } }
    }

    /// Notes a table rows were written into, to be `ANALYZE`d after the commit.
    func markWritten(_ table: String) {
        writtenTables.insert(table)
    }

    /// The objectId the target stores the object under (``storedIds``): the loader's unless
    /// the table had the object under another.
    func storedId(_ className: String, _ objectId: String) -> String {
        storedIds[className]?[objectId] ?? objectId
    }

    /// A value with a pointer to an object stored under another objectId (``storedIds``) turned to that one.
    private func stored(_ value: ParseValue?) -> ParseValue? {
        guard case .pointer(let pointer)? = value, let id = storedIds[pointer.className]?[pointer.objectId] else { return value }
        return .pointer(PointerRef(className: pointer.className, objectId: id))
    }

    /// The staging table's column of the `updatedAt` a changed object gets.
    private static let touchedAtColumn = "porter:touchedAt"

    /// Updates the stored objects whose values differ from the staged ones; returns their ids.
    /// Merge keeps a stored value where the staged one is null; a password hash is never cleared.
    private func update(_ className: String, from stage: String, fields: [String], mode: WriteMode, hashes: Bool) throws(PorterError) -> Set<String> {
        var assignments: [String] = []
        var differences: [String] = []
        for field in fields {
            let (stored, staged) = ("t.\(quoted(field))", "s.\(quoted(field))")
            let keeps = mode == .merge
            assignments.append("\(quoted(field)) = " + (keeps ? "COALESCE(\(staged), \(stored))" : staged))
            // As text: point and polygon have no equality operator.
            let differs = "\(stored)::text IS DISTINCT FROM \(staged)::text"
            differences.append(keeps ? "(\(staged) IS NOT NULL AND \(differs))" : differs)
        }
        if hashes {
            let column = quoted(PostgresLayout.passwordHashColumn)
            assignments.append("\(column) = COALESCE(s.\(column), t.\(column))")
            differences.append("(s.\(column) IS NOT NULL AND t.\(column) IS DISTINCT FROM s.\(column))")
        }
        assignments.append("\"updatedAt\" = s.\(quoted(Self.touchedAtColumn))")
        let rows = try database().execute(
            """
            UPDATE \(quoted(className)) t SET \(assignments.joined(separator: ", ")) FROM \(quoted(stage)) s
            WHERE t."objectId" = s."objectId" AND (\(differences.joined(separator: " OR "))) RETURNING t."objectId"
            """)
        return Set(rows.compactMap { $0[0] })
    }

    /// The rows of the objects in ``PostgresLayout/defaultColumns``, `fields`, hash order, then
    /// (`touchedAt`) the `updatedAt` an update gives them. A NUL character is refused here,
    /// naming the object, before PostgreSQL would refuse the whole COPY.
    private func copyRows(_ objects: [ResolvedObject], className: String, fields: [String], hashes: Bool, touchedAt: Bool) throws(PorterError) -> CopyRows {
        var rows = CopyRows()
        try eachRow(objects, fields: fields) { (object, values) throws(PorterError) in
            let permissions = object.acl?.permissionArrays
            rows.append(object.objectId)
            append(object.createdAt, or: now, to: &rows)
            append(object.updatedAt ?? object.createdAt, or: now, to: &rows)
            rows.append(permissions?.read)
            rows.append(permissions?.write)
            for (index, value) in values.enumerated() {
                if case .date(let date)? = value {
                    rows.append(date: date)
                } else if rows.append(value?.postgresText) {
                    throw Self.holdsNUL(value?.postgresText ?? "", className: className, object: object, field: fields[index])
                }
            }
            if hashes && rows.append(object.passwordHash) {
                throw Self.holdsNUL(object.passwordHash ?? "", className: className, object: object, field: PostgresLayout.passwordHashColumn)
            }
            if touchedAt { append(object.updatedAt, or: now, to: &rows) }
            rows.endRow()
        }
        return rows
    }

    /// Calls `body` with each object and its values in the order of `fields` (`nil` where it
    /// has none), pointers turned to the objectIds the target stores their objects under.
    private func eachRow(
        _ objects: [ResolvedObject], fields: [String],
        _ body: (ResolvedObject, [ParseValue?]) throws(PorterError) -> Void
    ) throws(PorterError) {
        let column = Dictionary(fields.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // The objects of a batch list their fields in one order: where each goes is looked up
        // once for the first object, and again only for an object whose fields differ.
        var layout: [String] = [], slots: [Int?] = []
        var values = [ParseValue?](repeating: nil, count: fields.count)
        for object in objects {
            if !object.fields.elementsEqual(layout, by: { $0.name == $1 }) {
                layout = object.fields.map(\.name)
                slots = layout.map { column[$0] }
            }
            for index in values.indices { values[index] = nil }
            for (field, slot) in zip(object.fields, slots) {
                if let slot, values[slot] == nil { values[slot] = storedIds.isEmpty ? field.value : stored(field.value) }
            }
            try body(object, values)
        }
    }

    private func append(_ date: ParseDate?, or fallback: String, to rows: inout CopyRows) {
        if let date { rows.append(date: date) } else { rows.append(fallback) }
    }

    private static func holdsNUL(_ text: String, className: String, object: ResolvedObject, field: String) -> PorterError {
        let shown = text.replacingOccurrences(of: "\u{0}", with: "\\u0000")
        return PorterError(
            .invalidData,
            "\(className) \(object.objectId) (line \(object.line)): \(field): value \"\(shown)\": "
                + "holds a NUL character (\\u0000), which PostgreSQL cannot store")
    }

    /// A temporary table shaped like `className`'s, plus ``touchedAtColumn``; made once per
    /// transaction. Numbered, not named after the class: with a class name of 51 bytes or more
    /// the name would pass the 63 bytes PostgreSQL keeps, and two classes could get one table.
    private func stagingTable(for className: String) throws(PorterError) -> String {
        if let name = classStages[className] { return name }
        let name = "porter:stage:\(classStages.count)"
        try database().execute("CREATE TEMP TABLE \(quoted(name)) (LIKE \(quoted(className))) ON COMMIT DROP")
        try database().execute("ALTER TABLE \(quoted(name)) ADD COLUMN \(quoted(Self.touchedAtColumn)) timestamp with time zone")
        classStages[className] = name
        stagingTables.insert(name)
        return name
    }

    /// Sets one pointer field of objects already written, in one UPDATE from a staging table;
    /// `updatedAt` too unless this import created the table (its objects keep the time they
    /// were written with). An objectId listed twice takes its last value.
    func patch(className: String, field: String, values: [(objectId: String, value: ParseValue)]) throws(PorterError) -> [WriteOutcome] {
        guard !values.isEmpty else { return [] }
        try addPrimaryKey(className)
        let db = try database()
        let stage = "porter:patch"
        if stagingTables.insert(stage).inserted {
            try db.execute("CREATE TEMP TABLE \(quoted(stage)) (\"objectId\" text PRIMARY KEY, \"value\" text) ON COMMIT DROP")
        }
        try db.execute("TRUNCATE \(quoted(stage))")
        var rows = CopyRows()
        var last: [String: Int] = [:]
        for (index, item) in values.enumerated() { last[item.objectId] = index }
        for (index, item) in values.enumerated() where last[item.objectId] == index {
            rows.append(storedId(className, item.objectId))
            rows.append(stored(item.value)?.postgresText)
            rows.endRow()
        }
        try db.copy(into: stage, columns: ["objectId", "value"], rows)
        rowDigests[className]?.forget(values.map { storedId(className, $0.objectId) })
        let touches = !freshTables.contains(className)
        let column = quoted(field)
        let changed = Set(
            try db.execute(
                """
                UPDATE \(quoted(className)) t SET \(column) = s."value"\(touches ? ", \"updatedAt\" = $1" : "")
                FROM \(quoted(stage)) s WHERE t."objectId" = s."objectId" AND t.\(column) IS DISTINCT FROM s."value" RETURNING t."objectId"
                """, touches ? [now] : []
            ).compactMap { $0[0] })
        return values.map { changed.contains(storedId(className, $0.objectId)) ? .updated : .unchanged }
    }

    /// Lets go of the digests kept for `part`, which the import has sent in full: a class's row
    /// digests (its patches compare on the server) or a join table's link sets.
    func finished(_ part: ImportPart) {
        finishedParts.insert(part)
        switch part {
        case .objects(let className): rowDigests[className] = nil
        case .links(let owner, let field): linkSets[PostgresLayout.joinTable(owner: owner, field: field)] = nil
        }
    }

    /// How many stored rows or owners the digests kept now cover, by class or join table.
    var heldDigests: [String: Int] {
        rowDigests.mapValues(\.count).merging(linkSets.mapValues(\.count)) { rows, _ in rows }
    }

    /// Whether the class's table holds the object.
    func hasObject(className: String, objectId: String) throws(PorterError) -> Bool {
        guard try tableExists(className) else { return false }
        try addPrimaryKey(className)
        return try !database().execute("SELECT 1 FROM \(quoted(className)) WHERE \"objectId\" = $1", [objectId]).isEmpty
    }

    /// Builds the primary key of a table this import made without it; a table that has its key
    /// is left alone. Two rows with one key (objectIds the loader derived alike) fail the import.
    func addPrimaryKey(_ table: String) throws(PorterError) {
        guard let columns = unkeyedTables[table] else { return }
        do {
            try database().execute(PostgresLayout.addPrimaryKeySQL(table, columns))
        } catch {
            guard error.postgresError?.sqlState == "23505" else { throw error }
            throw PorterError(
                .target, "\(table): two rows share \(columns.joined(separator: ", ")): \(error.postgresError?.detail ?? error.message)",
                underlying: error.underlyingError ?? error)
        }
        unkeyedTables[table] = nil
    }

    func commit() throws(PorterError) {
        guard stagedLinks.isEmpty, unkeyedTables.isEmpty else {
            throw PorterError(.target, "\(PostgresURL.redacted(url)): commit before the staged links were flushed")
        }
        do {
            for (className, indexes) in pendingIndexes.sorted(by: { $0.key < $1.key }) { try classes().createIndexes(indexes, on: className) }
        } catch {
            rollback()
            throw error
        }
        if shared {
            for table in stagingTables { try database().execute("DROP TABLE \(quoted(table))") }
            try analyzeWrittenTables()
            try database().execute("RELEASE SAVEPOINT \(Self.savepoint)")
        } else {
            try database().execute("COMMIT")
            staging?.close()
            staging = nil
            try analyzeWrittenTables()
        }
        reset()
    }

    /// `ANALYZE` of the tables the import wrote: Parse Server answers a `count` without `where`
    /// from PostgreSQL's estimate (`PostgresStorageAdapter.js`, `count`: `reltuples`), which
    /// is stale after rows were written behind its back (it said 3 users for 6).
    private func analyzeWrittenTables() throws(PorterError) {
        for table in writtenTables.sorted() where try tableExists(table) { try database().execute("ANALYZE \(quoted(table))") }
    }

    func rollback() {
        connection?.abandonStream()
        if shared {
            _ = try? connection?.execute("ROLLBACK TO SAVEPOINT \(Self.savepoint)")
            _ = try? connection?.execute("RELEASE SAVEPOINT \(Self.savepoint)")
        } else {
            _ = try? connection?.execute("ROLLBACK")
        }
        staging?.discard(committed: stagingCommitted)
        reset()
    }

    private func reset() {
        stagingTables = []
        classStages = [:]
        pendingIndexes = [:]
        stagedLinks = [:]
        unkeyedTables = [:]
        freshTables = []
        schemas = [:]
        naturalKeys = [:]
        storedIds = [:]
        writtenTables = []
        staging = nil
        stagingCommitted = false
        rowDigests = [:]
        linkSets = [:]
        finishedParts = []
    }
}
