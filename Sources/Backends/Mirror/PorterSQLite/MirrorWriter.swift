import CSQLite
import Foundation
import ParseModel
import PorterCore

/// The connection and the state of one ``SQLiteMirror`` (Docs/MirrorLayout.md): what the mirror does, on
/// behalf of the sink that holds it behind a mutex. Used by one thread at a time.
final class MirrorWriter {
    let path: String
    var database: SQLiteDatabase?
    /// The mirror this run creates, built under a hidden name until it commits; `nil` when the
    /// mirror existed (its own transaction keeps it as it was until then).
    private var newFile: NewMirrorFile?
    /// Whether ``database`` belongs to a caller's transaction (``init(sharing:)``).
    private let shared: Bool
    /// This import's time, for `createdAt` and `updatedAt`, in stored form.
    private(set) var now = ParseDate(millisecondsSince1970: 0).iso
    private var schemas: [String: ClassSchema] = [:]
    private(set) var naturalKeys: [String: [String]] = [:]
    /// Tables this import created: they hold no earlier rows, so rows go in by multi-row INSERTs.
    private var freshTables: Set<String> = []
    /// Join tables this import created, whose links wait in a TEMP staging table until
    /// ``flush()`` inserts them all in key order: B-tree pages are then filled one after
    /// another instead of at random, which matters once the tables outgrow the page cache.
    private var stagedJoinTables: Set<String> = []
    private var statements: [String: SQLiteStatement] = [:]
    /// Per class, the rowid of the last stored row a batch found: the next batch's rows are
    /// looked for after it first (``storedStates(_:_:)``).
    private var lastRowFound: [String: Int64] = [:]
    /// Classes whose batches do not come in the order their rows are stored.
    private var unorderedClasses: Set<String> = []
    /// Per join table whose links a re-import replaces: its stored links' digests, read once
    /// looking owners up one by one would cost more (``storedLinkDigests(_:ownerClass:)``).
    private var linkDigests: [String: StoredLinkDigests] = [:]
    /// Owners whose stored links were looked up one by one, per join table.
    private var ownersLookedUp: [String: Int] = [:]
    /// Join tables whose digests are being read on a thread of their own (``LinkDigestScan``).
    /// Such a scan shows the file as committed: it starts only on a table this transaction has
    /// not linked before, and the owners linked while it runs are kept (``linkedDuringScan``).
    private var digestScans: [String: LinkDigestScan] = [:]
    /// Whether digests may be read apart: no link has changed but through ``link(owner:field:targetClass:_:replace:)``.
    private var scansApartAllowed = false
    /// Join tables this transaction has linked.
    private var linkedTables: Set<String> = []
    /// Per join table being scanned apart, the owners (by ``StoredLinkDigests/ownerHash(_:)``)
    /// whose links may have changed since the scan began: its digests forget them.
    private var linkedDuringScan: [String: Set<UInt64>] = [:]
    /// Files to write into the files folder when the import commits, by stored name.
    var stagedFiles: [String: LocalFile] = [:]

    /// A mirror at `path`; the file is created by the first import that commits.
    init(path: String) {
        self.path = path
        shared = false
    }

    /// A mirror on a connection whose owner has a transaction open (a migration): the import
    /// runs in a savepoint of it, and commit or rollback end only the savepoint.
    init(sharing database: SQLiteDatabase) {
        self.path = database.path
        self.database = database
        shared = true
    }

    private func open(create: Bool) throws(PorterError) -> SQLiteDatabase {
        if let database { return database }
        if create && !FileManager.default.fileExists(atPath: path) {
            let file = NewMirrorFile(path: path)
            do {
                database = try SQLiteDatabase(path: file.buildingPath, create: true, shownAs: path)
            } catch {
                file.discard()
                throw error
            }
            newFile = file
        } else {
            database = try SQLiteDatabase(path: path, create: create)
        }
        return database!
    }

    /// The path whose `.files` folder takes uploaded files (``MirrorFiles``).
    var filesMirrorPath: String { newFile?.filesMirrorPath ?? path }

    func existingSchemas() throws(PorterError) -> [ClassSchema] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let db = try open(create: false)
        let hasSchemaTable = try db.rows("SELECT 1 FROM sqlite_master WHERE type='table' AND name='_SCHEMA'")
        guard !hasSchemaTable.isEmpty else { return [] }
        var result: [ClassSchema] = []
        for row in try db.rows("SELECT className, schema FROM _SCHEMA ORDER BY className") {
            guard let text = row[1], let json = try? JSONParser.parse(text), let schema = try? ClassSchema(schemaJSON: json) else {
                throw PorterError(.target, "\(path): _SCHEMA row for \(row[0] ?? "?") is not a valid /schemas JSON")
            }
            result.append(schema)
        }
        return result
    }

    func begin(schemas declared: [ClassSchema], naturalKeys: [String: [String]]) throws(PorterError) {
        let db = try open(create: true)
        now = ParseDate(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))).iso
        self.naturalKeys = naturalKeys
        lastRowFound = [:]
        unorderedClasses = []
        forgetLinkDigests()
        scansApartAllowed = !shared
        try db.execute("PRAGMA cache_size = -65536")
        try startWriting(db)
        // Read under the write lock: another import may have added classes since this one read them.
        let existing = Dictionary(try existingSchemas().map { ($0.className, $0) }, uniquingKeysWith: { a, _ in a })
        for sql in MirrorLayout.bookkeepingTablesSQL { try db.execute(sql) }
        let saveSchema = try db.prepare(MirrorLayout.saveSchemaSQL)
        for schema in declared {
            var merged = existing[schema.className] ?? ClassSchema(className: schema.className, fields: [])
            let isNewClass = existing[schema.className] == nil
            var positions = Dictionary(merged.fields.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            var added: [SchemaField] = []
            for field in schema.fields {
                if let index = positions[field.name] {
                    guard merged.fields[index].type == field.type else {
                        throw PorterError(
                            .target,
                            "\(path): \(schema.className).\(field.name) is a \(merged.fields[index].type) field now, "
                                + "not a \(field.type): another run changed the mirror while this one read the dataset; nothing of this run was kept")
                    }
                    merged.fields[index] = field
                    continue
                }
                positions[field.name] = merged.fields.count
                merged.fields.append(field)
                added.append(field)
            }
            // A new class's table is made with its columns: each ALTER TABLE makes SQLite parse
            // the whole schema again, which over thousands of classes or fields is quadratic.
            if isNewClass {
                try db.execute(MirrorLayout.createClassTableSQL(schema.className, fields: added))
                freshTables.insert(schema.className)
            }
            for field in added {
                if isNewClass, !field.type.isRelation { continue }
                try db.execute(MirrorLayout.addFieldSQL(className: schema.className, field))
                if field.type.isRelation { freshTables.insert(MirrorLayout.joinTable(owner: schema.className, field: field.name)) }
            }
            // A manifest declares neither; a pulled schema brings the server's.
            if let permissions = schema.classLevelPermissions { merged.classLevelPermissions = permissions }
            if let indexes = schema.indexes { merged.indexes = indexes }
            schemas[schema.className] = merged
            saveSchema.bind(text: schema.className, at: 1)
            saveSchema.bind(text: merged.schemaJSON.serialized(), at: 2)
            try saveSchema.run()
        }
    }

    /// Opens the import's transaction (a savepoint in a caller's), waiting for another run's
    /// write transaction as long as the busy timeout allows; a run still writing then is a
    /// target error saying so, with SQLite's `SQLITE_BUSY` under it.
    private func startWriting(_ db: SQLiteDatabase) throws(PorterError) {
        do {
            try db.execute(shared ? "SAVEPOINT porter_import" : "BEGIN IMMEDIATE")
        } catch {
            guard let busy = error.sqliteError, busy.resultCode == .SQLITE_BUSY else { throw error }
            throw PorterError(
                .target,
                "\(path): another run is writing this mirror and did not finish in time; nothing of this run was written: "
                    + "run it again once the other has finished", underlying: busy)
        }
    }

    func write(_ objects: [ResolvedObject], className: String, mode: WriteMode) throws(PorterError) -> [WriteOutcome] {
        var outcomes = try upsert(objects, className: className, mode: mode, copyingTimestamps: false)
        if className == "_User" {
            try storePasswordHashes(objects.map(\.passwordHash), ofUsers: objects.map(\.objectId), outcomes: &outcomes)
        }
        return outcomes
    }

    /// Sets the `_hashed_password` of the users `userIds` that were written (by `outcomes`) and
    /// have a hash in `hashes` (same order); a user whose hash alone changed becomes `.updated`.
    func storePasswordHashes(_ hashes: [String?], ofUsers userIds: [String], outcomes: inout [WriteOutcome]) throws(PorterError) {
        guard hashes.contains(where: { $0 != nil }) else { return }
        try addPasswordHashColumn()
        for (index, hash) in hashes.enumerated() {
            guard let hash else { continue }
            if case .failed = outcomes[index] { continue }
            if try storePasswordHash(hash, userId: userIds[index]), outcomes[index] == .unchanged { outcomes[index] = .updated }
        }
    }

    /// Adds `_hashed_password` to a `_User` table that has none.
    private func addPasswordHashColumn() throws(PorterError) {
        guard let db = database else { return }
        let column = MirrorLayout.passwordHashColumn
        if try db.rows("SELECT 1 FROM pragma_table_info('_User') WHERE name = ?1", [column]).isEmpty {
            statements = [:]
            try db.execute("ALTER TABLE _User ADD COLUMN \(quoted(column)) TEXT")
        }
    }

    /// Sets a user's `_hashed_password`; whether it changed.
    private func storePasswordHash(_ hash: String, userId: String) throws(PorterError) -> Bool {
        guard let db = database else { return false }
        let column = MirrorLayout.passwordHashColumn
        let update = try statement("passwordHash", "_User", []) {
            "UPDATE _User SET \(quoted(column)) = ?2 WHERE objectId = ?1 AND \(quoted(column)) IS NOT ?2"
        }
        update.bind(text: userId, at: 1)
        update.bind(text: hash, at: 2)
        try update.run()
        return db.changes == 1
    }

    /// Inserts new objects and updates changed ones. An import sets `updatedAt` of an object whose
    /// fields changed; a copy (`copyingTimestamps`) compares and sets `createdAt` and `updatedAt` like fields.
    ///
    /// On a table that holds earlier rows, the batch's stored rows are read first, a few hundred
    /// per statement; an object that holds what it would write costs no write, missing ones go
    /// in by multi-row INSERTs and only the others are updated, in the batch's order.
    func upsert(_ objects: [ResolvedObject], className: String, mode: WriteMode, copyingTimestamps: Bool) throws(PorterError) -> [WriteOutcome] {
        guard database != nil, let first = objects.first else { return [] }
        let columns = first.fields.map(\.name)
        // One class's objects carry the same fields (the loader writes every mapped field).
        for object in objects { precondition(object.fields.count == columns.count, "objects of one batch must carry the same fields") }
        if freshTables.contains(className) { return try insertFresh(objects, className: className, columns: columns) }
        let write = RowWrite(className: className, columns: columns, mode: mode, copyingTimestamps: copyingTimestamps)
        var positions: [String: Int] = [:]
        positions.reserveCapacity(objects.count)
        for (index, object) in objects.enumerated() {
            guard positions.updateValue(index, forKey: object.objectId) == nil else {
                // An object named twice must see its first write: one statement after another.
                return try objects.map { object throws(PorterError) in try writeOne(object, write) }
            }
        }
        let stored = try storedStates(objects, positions: positions, write)
        var outcomes = [WriteOutcome](repeating: .unchanged, count: objects.count)
        var missing: [Int] = []
        for (index, state) in stored.enumerated() {
            switch state {
            case .missing:
                missing.append(index)
            case _ where mode == .insert:
                outcomes[index] = .failed("\(className) \(objects[index].objectId) already exists in the target (mode: insert)")
            case .same:
                break
            case .differs:
                // Inserts before it first: a natural key it gives up or takes decides theirs.
                try insertMissing(missing, of: objects, write, into: &outcomes)
                missing = []
                outcomes[index] = try update(objects[index], write)
            }
        }
        try insertMissing(missing, of: objects, write, into: &outcomes)
        return outcomes
    }

    /// What one batch writes: its class, columns and mode.
    private struct RowWrite {
        let className: String
        let columns: [String]
        let mode: WriteMode
        let copyingTimestamps: Bool
    }

    /// How an object of a batch compares with its stored row.
    private enum StoredState { case missing, same, differs }

    /// Stored object ids read per statement.
    private static let idsPerLookup = 500

    /// Reads the stored rows of the objects and compares each with the values its UPDATE would
    /// bind: `.differs` also when unsure (the UPDATE decides).
    ///
    /// A re-import of the same source brings a class's objects in the order the first import
    /// stored them, so the rows after the last one found are read first, in rowid order: one
    /// sequential read instead of a seek per object. The objects not among them are looked up by
    /// objectId, ``idsPerLookup`` per statement; a class whose batches do not follow the stored
    /// order is only looked up.
    /// `positions` gives each object's index in `objects` by objectId.
    private func storedStates(_ objects: [ResolvedObject], positions: [String: Int], _ write: RowWrite) throws(PorterError) -> [StoredState] {
        // objectId, createdAt, updatedAt, ACL, the fields, then the rowid
        let names = (ParseNames.defaultFields + write.columns).map(quoted).joined(separator: ", ") + ", rowid"
        var states = [StoredState](repeating: .missing, count: objects.count)
        var found = 0
        func compare(_ row: SQLiteStatement, _ affinities: [ColumnAffinity]) -> Int64? {
            guard let id = row.text(at: 0), let index = positions[id], states[index] == .missing else { return nil }
            states[index] = holdsAll(objects[index], row, affinities, write) ? .same : .differs
            found += 1
            return row.integer(at: affinities.count - 1)
        }
        if !unorderedClasses.contains(write.className) {
            let following = try statement("storedFollowing", write.className, write.columns) {
                "SELECT \(names) FROM \(quoted(write.className)) WHERE rowid > ?1 ORDER BY rowid LIMIT ?2"
            }
            let affinities = (0..<following.columnCount).map { ColumnAffinity(declaredType: following.declaredType(at: $0)) }
            following.bind(integer: lastRowFound[write.className] ?? 0, at: 1)
            following.bind(integer: Int64(objects.count), at: 2)
            defer { following.reset() }
            while try following.step() {
                if let row = compare(following, affinities) { lastRowFound[write.className] = row }
            }
            if found < objects.count / 2 { unorderedClasses.insert(write.className) }
        }
        guard found < objects.count else { return states }
        let select = try statement("stored", write.className, write.columns) {
            let ids = (1...Self.idsPerLookup).map { "?\($0)" }.joined(separator: ", ")
            return "SELECT \(names) FROM \(quoted(write.className)) WHERE objectId IN (\(ids))"
        }
        let affinities = (0..<select.columnCount).map { ColumnAffinity(declaredType: select.declaredType(at: $0)) }
        let unread = states.indices.filter { states[$0] == .missing }
        var start = 0
        while start < unread.count {
            let end = min(start + Self.idsPerLookup, unread.count)
            for (parameter, index) in unread[start..<end].enumerated() { select.bind(text: objects[index].objectId, at: parameter + 1) }
            defer { select.reset() }
            while try select.step() { _ = compare(select, affinities) }
            start = end
        }
        return states
    }

    /// Whether the stored row at `row` holds every value the object's UPDATE would set; merge
    /// keeps a stored value where the object's is null.
    private func holdsAll(_ object: ResolvedObject, _ row: SQLiteStatement, _ affinities: [ColumnAffinity], _ write: RowWrite) -> Bool {
        func holds(_ value: ParseValue, _ column: Int) -> Bool {
            (write.mode == .merge && value == .null) || row.holds(value, at: column, affinity: affinities[column])
        }
        if write.copyingTimestamps {
            guard row.holds(.string(object.createdAt?.iso ?? now), at: 1, affinity: affinities[1]),
                row.holds(.string(object.updatedAt?.iso ?? now), at: 2, affinity: affinities[2])
            else { return false }
        }
        guard holds(object.acl.map(ParseValue.acl) ?? .null, 3) else { return false }
        for (i, field) in object.fields.enumerated() where !holds(field.value, i + 4) { return false }
        return true
    }

    /// Inserts objects the table lacks, 100 per statement; a statement that fails (a natural
    /// key taken) is undone and its objects are written one by one, each with its own outcome.
    private func insertMissing(_ indexes: [Int], of objects: [ResolvedObject], _ write: RowWrite, into outcomes: inout [WriteOutcome]) throws(PorterError) {
        let width = write.columns.count + 4
        var start = indexes.startIndex
        while start < indexes.endIndex {
            let chunk = indexes[start..<min(start + Self.rowsPerStatement(columns: width), indexes.endIndex)]
            start = chunk.endIndex
            let insert = try statement("insertMissing\(chunk.count)", write.className, write.columns) {
                insertSQL(write.className, write.columns, rows: chunk.count)
            }
            var parameter = 1
            for index in chunk {
                bindInsert(objects[index], to: insert, at: parameter)
                parameter += width
            }
            do {
                try insert.run()
                for index in chunk { outcomes[index] = .inserted }
            } catch {
                for index in chunk { outcomes[index] = try writeOne(objects[index], write) }
            }
        }
    }

    /// Binds an object's INSERT values from parameter `first` on, in ``insertSQL(_:_:rows:verb:)``'s order.
    private func bindInsert(_ object: ResolvedObject, to insert: SQLiteStatement, at first: Int) {
        insert.bind(text: object.objectId, at: first)
        insert.bind(text: object.createdAt?.iso ?? now, at: first + 1)
        insert.bind(text: (object.updatedAt ?? object.createdAt)?.iso ?? now, at: first + 2)
        insert.bind(object.acl.map(ParseValue.acl) ?? .null, at: first + 3)
        for (i, field) in object.fields.enumerated() { insert.bind(field.value, at: first + 4 + i) }
    }

    /// Writes one object on its own: an INSERT that leaves an existing objectId alone, then
    /// (unless `mode` is insert) an UPDATE where a value differs.
    private func writeOne(_ object: ResolvedObject, _ write: RowWrite) throws(PorterError) -> WriteOutcome {
        guard let db = database else { return .unchanged }
        let insert = try statement("insert", write.className, write.columns) {
            insertSQL(write.className, write.columns, rows: 1) + " ON CONFLICT(objectId) DO NOTHING"
        }
        bindInsert(object, to: insert, at: 1)
        do { try insert.run() } catch { return .failed(conflictReason(write.className, object, error)) }
        if db.changes == 1 { return .inserted }
        if write.mode == .insert { return .failed("\(write.className) \(object.objectId) already exists in the target (mode: insert)") }
        return try update(object, write)
    }

    /// Updates a stored object where a value differs: `.updated`, or `.unchanged` when none does.
    private func update(_ object: ResolvedObject, _ write: RowWrite) throws(PorterError) -> WriteOutcome {
        guard let db = database else { return .unchanged }
        let (className, columns, mode) = (write.className, write.columns, write.mode)
        let update = try statement(write.copyingTimestamps ? "copy" : mode.rawValue, className, columns) {
            // ?1 objectId, ?2 updatedAt, ?3 ACL, ?4… the fields, then createdAt when copying timestamps
            let targets = ["ACL"] + columns
            var assignments = targets.enumerated().map { i, name in
                mode == .merge ? "\(quoted(name)) = coalesce(?\(i + 3), \(quoted(name)))" : "\(quoted(name)) = ?\(i + 3)"
            }
            var differences = targets.enumerated().map { i, name in
                mode == .merge ? "(?\(i + 3) IS NOT NULL AND \(quoted(name)) IS NOT ?\(i + 3))" : "\(quoted(name)) IS NOT ?\(i + 3)"
            }
            if write.copyingTimestamps {
                let createdAt = "?\(targets.count + 3)"
                assignments.append("createdAt = \(createdAt)")
                differences += ["updatedAt IS NOT ?2", "createdAt IS NOT \(createdAt)"]
            }
            return
                "UPDATE \(quoted(className)) SET \(assignments.joined(separator: ", ")), updatedAt = ?2 WHERE objectId = ?1 AND (\(differences.joined(separator: " OR ")))"
        }
        update.bind(text: object.objectId, at: 1)
        update.bind(text: object.updatedAt?.iso ?? now, at: 2)
        update.bind(object.acl.map(ParseValue.acl) ?? .null, at: 3)
        for (i, field) in object.fields.enumerated() { update.bind(field.value, at: i + 4) }
        if write.copyingTimestamps { update.bind(text: object.createdAt?.iso ?? now, at: columns.count + 4) }
        do { try update.run() } catch { return .failed(conflictReason(className, object, error)) }
        return db.changes == 1 ? .updated : .unchanged
    }

    /// `INSERT INTO "Class" (objectId, createdAt, updatedAt, ACL, <columns>) VALUES (?, …), …`:
    /// the parameter order every write binds in.
    private func insertSQL(_ className: String, _ columns: [String], rows: Int, verb: String = "INSERT") -> String {
        let names = (ParseNames.defaultFields + columns).map(quoted).joined(separator: ", ")
        let row = "(" + Array(repeating: "?", count: ParseNames.defaultFields.count + columns.count).joined(separator: ", ") + ")"
        return "\(verb) INTO \(quoted(className)) (\(names)) VALUES " + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// Rows per multi-row INSERT: as many as SQLite's 32,766 bound parameters allow, at most 100.
    private static func rowsPerStatement(columns: Int) -> Int { max(1, min(100, 32_000 / columns)) }

    /// Inserts into a table this import created, many rows per statement. Nothing there can
    /// clash with the objects (the loader has checked keys and objectIds), so a failure is a
    /// fault of the target.
    private func insertFresh(_ objects: [ResolvedObject], className: String, columns: [String]) throws(PorterError) -> [WriteOutcome] {
        guard let db = database else { return [] }
        let width = columns.count + 4
        var start = objects.startIndex
        while start < objects.endIndex {
            let chunk = objects[start..<min(start + Self.rowsPerStatement(columns: width), objects.endIndex)]
            // OR IGNORE: a statement that cannot abort needs no statement journal, which would
            // copy every index page the rows touch; a row left out is still caught below.
            let insert = try statement("insert\(chunk.count)", className, columns) {
                insertSQL(className, columns, rows: chunk.count, verb: "INSERT OR IGNORE")
            }
            var parameter = 1
            for object in chunk {
                bindInsert(object, to: insert, at: parameter)
                parameter += width
            }
            do {
                try insert.run()
            } catch {
                throw PorterError(
                    .target, "\(className): \(chunk.count) objects from line \(chunk.map(\.line).min() ?? 0) could not be written: \(error.message)")
            }
            if db.changes != chunk.count {
                throw PorterError(
                    .target,
                    "\(className): \(chunk.count - db.changes) of \(chunk.count) objects from line \(chunk.map(\.line).min() ?? 0) "
                        + "clash with objects already written (same objectId or key)")
            }
            start = chunk.endIndex
        }
        return Array(repeating: .inserted, count: objects.count)
    }

    private func conflictReason(_ className: String, _ object: ResolvedObject, _ error: PorterError) -> String {
        switch error.sqliteError?.extendedResultCode {
        case .SQLITE_CONSTRAINT_UNIQUE?, .SQLITE_CONSTRAINT_PRIMARYKEY?:
            let key = naturalKeys[className]?.joined(separator: ", ") ?? "key"
            return "\(className) \(object.objectId): another object in the target already has this \(key)"
        default:
            return error.message
        }
    }

    func patch(className: String, field: String, values: [(objectId: String, value: ParseValue)]) throws(PorterError) -> [WriteOutcome] {
        guard let db = database else { return [] }
        // A table this import created holds only objects it has just written, whose updatedAt
        // (the source's, or this import's time) the patch keeps.
        let touchesUpdatedAt = !freshTables.contains(className)
        let update = try statement("patch", className, [field]) {
            "UPDATE \(quoted(className)) SET \(quoted(field)) = ?2\(touchesUpdatedAt ? ", updatedAt = ?3" : "") WHERE objectId = ?1 AND \(quoted(field)) IS NOT ?2"
        }
        var outcomes: [WriteOutcome] = []
        for (objectId, value) in values {
            update.bind(text: objectId, at: 1)
            update.bind(value, at: 2)
            if touchesUpdatedAt { update.bind(text: now, at: 3) }
            try update.run()
            outcomes.append(db.changes == 1 ? .updated : .unchanged)
        }
        return outcomes
    }

    func link(owner className: String, field: String, targetClass: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) -> LinkChanges {
        guard let db = database else { return LinkChanges() }
        let table = MirrorLayout.joinTable(owner: className, field: field)
        var changes = LinkChanges()
        defer { linkedTables.insert(table) }
        if replace && !freshTables.contains(table) {
            // Each owner's links become the given ones: its stored links the given ones lack are
            // deleted, the given ones it lacks inserted. An owner listed twice keeps what both list.
            let delete = try statement("unlink", table, []) { "DELETE FROM \(quoted(table)) WHERE owningId = ?1 AND relatedId = ?2" }
            let links = try linksThatMayChange(links, in: table, ownerClass: className)
            noteLinkedDuringScan(links, in: table)
            var (first, kept) = try storedLinks(table, owners: links)
            for (index, link) in links.enumerated() {
                let wanted = IdSet(link.relatedIds)
                let stale = kept[first[index]].filter { !wanted.contains($0) }
                guard !stale.isEmpty else { continue }
                for related in stale {
                    delete.bind(text: link.ownerId, at: 1)
                    delete.bind(text: related, at: 2)
                    try delete.run()
                    changes.removed += db.changes
                }
                kept[first[index]].removeAll { !wanted.contains($0) }
            }
            var missing: [(String, String)] = []
            for (index, link) in links.enumerated() {
                let present = IdSet(kept[first[index]])
                for id in link.relatedIds where !present.contains(id) { missing.append((link.ownerId, id)) }
            }
            changes.added = try insertLinks(missing, into: quoted(table))
            return changes
        }
        let pairs = links.lazy.flatMap { link in link.relatedIds.lazy.map { (link.ownerId, $0) } }
        guard freshTables.contains(table) else {
            // These owners' stored links grow: the digests no longer know them.
            if var digests = linkDigests.removeValue(forKey: table) {
                for link in links { digests.forget(StoredLinkDigests.ownerHash(link.ownerId)) }
                linkDigests[table] = digests
            }
            noteLinkedDuringScan(links, in: table)
            changes.added = try insertLinks(pairs, into: quoted(table))
            return changes
        }
        if stagedJoinTables.insert(table).inserted {
            try database?.execute("CREATE TEMP TABLE \(quoted(Self.stagingTable(table))) (owningId TEXT, relatedId TEXT)")
        }
        _ = try insertLinks(pairs, into: "temp." + quoted(Self.stagingTable(table)))
        return changes
    }

    /// The entries of `links` whose owners' stored links may differ from theirs: those the
    /// table's digests do not show to hold exactly their links, and owners listed twice.
    private func linksThatMayChange(_ links: [RelationLinks], in table: String, ownerClass: String) throws(PorterError) -> [RelationLinks] {
        // Taken out of the dictionary while in use, so that forgetting owners copies nothing.
        guard var digests = try storedLinkDigests(table, ownerClass: ownerClass) else {
            ownersLookedUp[table, default: 0] += links.count
            return links
        }
        defer { linkDigests[table] = digests }
        let owners = links.map { StoredLinkDigests.ownerHash($0.ownerId) }
        var listed = Set<UInt64>(minimumCapacity: owners.count), listedTwice = Set<UInt64>()
        for owner in owners where !listed.insert(owner).inserted { listedTwice.insert(owner) }
        let held = digests.holdAll(zip(links, owners).lazy.map { ($0.relatedIds, $1) })
        var mayChange: [RelationLinks] = []
        for (index, owner) in owners.enumerated() where !held[index] || listedTwice.contains(owner) {
            mayChange.append(links[index])
            digests.forget(owner)
        }
        return mayChange
    }

    /// Owners looked up one by one before a join table's links may be scanned instead.
    private static let ownersBeforeScan = 20_000

    /// The join table's digests, taken out of ``linkDigests``; read once the owners looked up
    /// one by one reach ``ownersBeforeScan`` and a 32nd of the owner class's rows. A seek costs
    /// about as much as reading the links of ten owners in the scan, so a re-import of the same
    /// objects gains from the scan, and no import spends on it more than a few times what its
    /// seeks cost; its 8 bytes per stored owner stay within 256 per owner looked up.
    ///
    /// Where it may (``scansApartAllowed``), the scan starts on a thread of its own as soon as
    /// the table's links are first replaced, and its digests are taken once it has ended, or
    /// waited for once they pay; only the scan's own core is spent before then, for no longer
    /// than the import lasts (the commit stops it).
    private func storedLinkDigests(_ table: String, ownerClass: String) throws(PorterError) -> StoredLinkDigests? {
        if let digests = linkDigests.removeValue(forKey: table) { return digests }
        if scansApartAllowed && !linkedTables.contains(table) {
            digestScans[table] = LinkDigestScan(path: path, table: table, expectedOwners: try lastRow(of: ownerClass))
            return nil
        }
        let lookedUp = ownersLookedUp[table] ?? 0
        if let scan = digestScans[table] {
            if !scan.hasEnded {
                // Waited for once it pays, as a scan here would.
                guard lookedUp >= Self.ownersBeforeScan else { return nil }
                guard lookedUp * 32 >= (try lastRow(of: ownerClass)) else { return nil }
            }
            digestScans[table] = nil
            let linked = linkedDuringScan.removeValue(forKey: table) ?? []
            if var digests = scan.wait() {
                for owner in linked { digests.forget(owner) }
                return digests
            }
            // Not read apart: read here, as the transaction sees the table.
        }
        guard lookedUp >= Self.ownersBeforeScan, let db = database else { return nil }
        let rows = try lastRow(of: ownerClass)
        guard lookedUp * 32 >= rows else { return nil }
        return try StoredLinkDigests(scanning: table, of: db, expectedOwners: rows)
    }

    /// Keeps the owners of `links` while `table` is scanned apart.
    private func noteLinkedDuringScan(_ links: [RelationLinks], in table: String) {
        guard digestScans[table] != nil else { return }
        linkedDuringScan[table, default: []].formUnion(links.lazy.map { StoredLinkDigests.ownerHash($0.ownerId) })
    }

    /// The largest rowid of a class's table: about its row count.
    private func lastRow(of className: String) throws(PorterError) -> Int {
        // Asked again for each batch until the scan pays: a cached statement.
        let lastRow = try statement("lastRow", className, []) { "SELECT max(rowid) FROM \(quoted(className))" }
        defer { lastRow.reset() }
        return try lastRow.step() ? Int(lastRow.integer(at: 0)) : 0
    }

    /// Drops what is known of stored links: they changed other than by ``link(owner:field:targetClass:_:replace:)``
    /// (or the transaction ends). Digests are read in the writer's own transaction from now on.
    func forgetLinkDigests() {
        for scan in digestScans.values { scan.cancel() }
        digestScans = [:]
        scansApartAllowed = false
        linkedTables = []
        linkedDuringScan = [:]
        linkDigests = [:]
        ownersLookedUp = [:]
    }

    /// The stored links of the owners, ``idsPerLookup`` owners per statement: for each entry,
    /// the index of its owner's first entry, and at that index the owner's stored links.
    private func storedLinks(_ table: String, owners links: [RelationLinks]) throws(PorterError) -> (first: [Int], stored: [[String]]) {
        let select = try statement("storedLinks", table, []) {
            let ids = (1...Self.idsPerLookup).map { "?\($0)" }.joined(separator: ", ")
            return "SELECT owningId, relatedId FROM \(quoted(table)) WHERE owningId IN (\(ids))"
        }
        var indexes: [String: Int] = [:]
        indexes.reserveCapacity(links.count)
        let first = links.indices.map { index in
            if let earlier = indexes[links[index].ownerId] { return earlier }
            indexes[links[index].ownerId] = index
            return index
        }
        var stored = [[String]](repeating: [], count: links.count)
        let owners = links.indices.filter { first[$0] == $0 }
        var start = 0
        while start < owners.count {
            let end = min(start + Self.idsPerLookup, owners.count)
            for (parameter, index) in owners[start..<end].enumerated() { select.bind(text: links[index].ownerId, at: parameter + 1) }
            defer { select.reset() }
            while try select.step() {
                guard let owner = select.text(at: 0), let index = indexes[owner], let related = select.text(at: 1) else { continue }
                stored[index].append(related)
            }
            start = end
        }
        return (first, stored)
    }

    /// Membership in a list of ids: a scan of a short list, a hash set of a long one.
    private struct IdSet {
        let ids: [String]
        let set: Set<String>?
        init(_ ids: [String]) {
            self.ids = ids
            set = ids.count > 16 ? Set(ids) : nil
        }
        func contains(_ id: String) -> Bool { set?.contains(id) ?? ids.contains(id) }
    }

    private static func stagingTable(_ joinTable: String) -> String { "staged:" + joinTable }

    /// Moves the staged links into their join tables, sorted; reports how many were new.
    func flush() throws(PorterError) -> [String: LinkChanges] {
        guard let db = database else { return [:] }
        var added: [String: LinkChanges] = [:]
        for table in stagedJoinTables.sorted() {
            let staged = "temp." + quoted(Self.stagingTable(table))
            try db.execute(
                "INSERT OR IGNORE INTO main.\(quoted(table)) (owningId, relatedId) SELECT owningId, relatedId FROM \(staged) ORDER BY owningId, relatedId")
            let parts = table.split(separator: ":")  // _Join:<field>:<Owner>
            added["\(parts[2]).\(parts[1])"] = LinkChanges(added: db.changes)
            try db.execute("DROP TABLE \(staged)")
        }
        stagedJoinTables = []
        return added
    }

    /// `INSERT OR IGNORE`s the pairs into `target` (a quoted, possibly schema-qualified table
    /// name), 100 per statement; returns how many were new.
    private func insertLinks(_ pairs: some Sequence<(String, String)>, into target: String) throws(PorterError) -> Int {
        guard let db = database else { return 0 }
        var added = 0
        var pending: [(String, String)] = []
        pending.reserveCapacity(100)
        func flush() throws(PorterError) {
            guard !pending.isEmpty else { return }
            let insert = try statement("link\(pending.count)", target, []) {
                "INSERT OR IGNORE INTO \(target) (owningId, relatedId) VALUES " + Array(repeating: "(?, ?)", count: pending.count).joined(separator: ", ")
            }
            for (i, pair) in pending.enumerated() {
                insert.bind(text: pair.0, at: 2 * i + 1)
                insert.bind(text: pair.1, at: 2 * i + 2)
            }
            try insert.run()
            added += db.changes
            pending.removeAll(keepingCapacity: true)
        }
        for pair in pairs {
            pending.append(pair)
            if pending.count == 100 { try flush() }
        }
        try flush()
        return added
    }

    func hasObject(className: String, objectId: String) throws(PorterError) -> Bool {
        guard database != nil || FileManager.default.fileExists(atPath: path) else { return false }
        if schemas[className] == nil {
            let existing = try existingSchemas()
            guard existing.contains(where: { $0.className == className }) else { return false }
        }
        let db = try open(create: false)
        return !(try db.rows("SELECT 1 FROM \(quoted(className)) WHERE objectId = ?1", [objectId])).isEmpty
    }

    func commit() throws(PorterError) {
        guard let db = database else { return }
        guard stagedJoinTables.isEmpty else { throw PorterError(.target, "\(path): commit before the staged links were flushed") }
        // Before the writes below: a scan apart still reading holds a lock they may have to wait for.
        forgetLinkDigests()
        for (className, key) in naturalKeys where !key.isEmpty {
            let name = "\(className)_naturalKey"
            let sql = "CREATE UNIQUE INDEX \(quoted(name)) ON \(quoted(className)) (\(key.map(quoted).joined(separator: ", ")))"
            let current = try db.rows("SELECT sql FROM sqlite_master WHERE type='index' AND name=?1", [name]).first?.first ?? nil
            guard current != sql else { continue }
            if current != nil { try db.execute("DROP INDEX \(quoted(name))") }
            do {
                try db.execute(sql)
            } catch {
                throw PorterError(
                    .invalidData, "\(path): \(className) objects in the mirror share a natural key (\(key.joined(separator: ", "))): \(error.message)")
            }
        }
        statements = [:]
        try writeStagedFiles()
        try db.execute(shared ? "RELEASE porter_import" : "COMMIT")
        if let file = newFile {
            db.close()
            database = nil
            newFile = nil
            try file.moveIntoPlace()
        }
    }

    func rollback() {
        statements = [:]
        forgetLinkDigests()
        stagedJoinTables = []
        stagedFiles = [:]
        guard let db = database else { return }
        if shared {
            try? db.execute("ROLLBACK TO porter_import")
            try? db.execute("RELEASE porter_import")
            return
        }
        try? db.execute("ROLLBACK")
        db.close()
        database = nil
        newFile?.discard()
        newFile = nil
    }

    /// A cached statement for one purpose, class and column list.
    func statement(_ purpose: String, _ table: String, _ columns: [String], _ sql: () -> String) throws(PorterError) -> SQLiteStatement {
        let cacheKey = ([purpose, table] + columns).joined(separator: "\u{1F}")
        if let cached = statements[cacheKey] { return cached }
        let prepared = try database!.prepare(sql())
        statements[cacheKey] = prepared
        return prepared
    }
}
