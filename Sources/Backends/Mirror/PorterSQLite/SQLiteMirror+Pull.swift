import ParseModel
import PorterCore

/// What deleting the objects a source no longer has removed.
package struct ObjectDeletion: Sendable, Equatable {
    package var objects = 0
    /// Relation links removed with them (as owner or as related object), by `Owner.field`.
    package var links: [String: Int] = [:]
    package init(objects: Int = 0, links: [String: Int] = [:]) {
        self.objects = objects
        self.links = links
    }
}

/// What a pull (``Puller``) does to the mirror, inside the transaction ``begin(schemas:naturalKeys:)`` starts.
extension MirrorWriter {
    /// Stores objects read from a source as they are there: new ones are inserted; existing ones
    /// whose values, ACL, `createdAt` or `updatedAt` differ are replaced. `values` follow
    /// `schema.storedFields`. `passwordHashes` (users' bcrypt hashes by objectId, as the source
    /// has them) go into `_User._hashed_password`; a user they lack has no password there, and
    /// loses the hash the mirror has. `nil` (a source that reads no hashes): every user keeps it.
    func store(_ objects: [StoredObject], of schema: ClassSchema, passwordHashes: [String: String]?) throws(PorterError) -> [WriteOutcome] {
        let fields = schema.storedFields
        let resolved = objects.map { object in
            ResolvedObject(
                objectId: object.objectId, line: 0, fields: zip(fields, object.values).map { FieldValue($0.name, $1) },
                acl: object.acl, createdAt: object.createdAt, updatedAt: object.updatedAt)
        }
        var outcomes = try upsert(resolved, className: schema.className, mode: .upsert, copyingTimestamps: true)
        if schema.className == "_User", let passwordHashes {
            let userIds = objects.map(\.objectId)
            try storePasswordHashes(userIds.map { passwordHashes[$0] }, ofUsers: userIds, outcomes: &outcomes)
            try clearPasswordHashes(ofUsers: userIds, keeping: passwordHashes, outcomes: &outcomes)
        }
        return outcomes
    }

    /// Clears the `_hashed_password` of the users among `userIds` that `hashes` lacks and that
    /// were written (by `outcomes`, same order); a user whose hash alone went becomes `.updated`.
    private func clearPasswordHashes(ofUsers userIds: [String], keeping hashes: [String: String], outcomes: inout [WriteOutcome]) throws(PorterError) {
        guard let db = database else { return }
        let column = MirrorLayout.passwordHashColumn
        guard try !db.rows("SELECT 1 FROM pragma_table_info('_User') WHERE name = ?1", [column]).isEmpty else { return }
        let clear = try statement("clearPasswordHash", "_User", []) {
            "UPDATE _User SET \(quoted(column)) = NULL WHERE objectId = ?1 AND \(quoted(column)) IS NOT NULL"
        }
        for (index, userId) in userIds.enumerated() where hashes[userId] == nil {
            if case .failed = outcomes[index] { continue }
            clear.bind(text: userId, at: 1)
            try clear.run()
            if db.changes == 1, outcomes[index] == .unchanged { outcomes[index] = .updated }
        }
    }

    static let keptTable = "temp.\(quoted("porter:kept"))"
    private static let goneTable = "temp.\(quoted("porter:gone"))"

    /// Notes objectIds the source still has, for ``deleteObjectsNotKept(of:)``.
    func keepObjectIds(_ objectIds: some Sequence<String>) throws(PorterError) {
        guard let db = database else { return }
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS \(quoted("porter:kept")) (objectId TEXT PRIMARY KEY)")
        let insert = try statement("keep", "porter:kept", []) { "INSERT OR IGNORE INTO \(Self.keptTable) (objectId) VALUES (?1)" }
        for objectId in objectIds {
            insert.bind(text: objectId, at: 1)
            try insert.run()
        }
    }

    /// Deletes the class's objects whose ids were not kept since the last call, with their
    /// relation links: the class's own join tables (as owner), and every join table of a
    /// relation that targets the class (as related object).
    func deleteObjectsNotKept(of className: String) throws(PorterError) -> ObjectDeletion {
        guard let db = database else { return ObjectDeletion() }
        forgetLinkDigests()
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS \(quoted("porter:kept")) (objectId TEXT PRIMARY KEY)")
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS \(quoted("porter:gone")) (objectId TEXT PRIMARY KEY)")
        defer {
            try? db.execute("DELETE FROM \(Self.keptTable)")
            try? db.execute("DELETE FROM \(Self.goneTable)")
        }
        try db.execute("INSERT INTO \(Self.goneTable) SELECT objectId FROM \(quoted(className)) WHERE objectId NOT IN (SELECT objectId FROM \(Self.keptTable))")
        try db.execute("DELETE FROM \(quoted(className)) WHERE objectId IN (SELECT objectId FROM \(Self.goneTable))")
        var deletion = ObjectDeletion(objects: db.changes)
        guard deletion.objects > 0 else { return deletion }
        for schema in try existingSchemas() {
            for field in schema.relationFields {
                let table = quoted(MirrorLayout.joinTable(owner: schema.className, field: field.name))
                var removed = 0
                if schema.className == className {
                    try db.execute("DELETE FROM \(table) WHERE owningId IN (SELECT objectId FROM \(Self.goneTable))")
                    removed += db.changes
                }
                if field.type.targetClass == className {
                    try db.execute("DELETE FROM \(table) WHERE relatedId IN (SELECT objectId FROM \(Self.goneTable))")
                    removed += db.changes
                }
                if removed > 0 { deletion.links["\(schema.className).\(field.name)"] = removed }
            }
        }
        return deletion
    }

    /// The watermark of the class's last pull from `source`: the newest `updatedAt` the source
    /// had when that pull began. `nil` when the class was never pulled from `source`.
    func pullWatermark(of className: String, source: String) throws(PorterError) -> ParseDate? {
        guard let db = database, !(try db.rows("SELECT 1 FROM sqlite_master WHERE type='table' AND name='_PorterPull'")).isEmpty else { return nil }
        let rows = try db.rows("SELECT watermark FROM _PorterPull WHERE className = ?1 AND server = ?2", [className, source])
        return rows.first?.first?.flatMap { ParseDate(iso: $0) }
    }

    /// Records a pull of the class from `source` up to `watermark`, now.
    func recordPull(of className: String, source: String, watermark: ParseDate?) throws(PorterError) {
        guard let db = database else { return }
        try db.execute(MirrorLayout.pullTableSQL)
        let save = try statement("recordPull", "_PorterPull", []) { MirrorLayout.recordPullSQL }
        save.bind(text: className, at: 1)
        save.bind(text: source, at: 2)
        save.bind(watermark.map(ParseValue.date) ?? .null, at: 3)
        save.bind(text: now, at: 4)
        try save.run()
    }
}
