import ParseModel
import PorterCore

/// `--prune`: deleting, in the import's transaction, what the sources no longer hold.
extension MirrorWriter {
    private static let keptLinksTable = "temp.\(quoted("porter:keptLinks"))"

    /// Deletes the class's objects whose objectIds `held` does not list, with their relation
    /// links (as owner and as related object), as a pull deletes the objects a server no longer has.
    func prune(_ className: String, keeping held: HeldObjects) throws(PorterError) -> PruneResult {
        guard let db = database else { return PruneResult() }
        try keepObjectIds(held.objectIds)
        let key = naturalKeys[className] ?? []
        let order = (key.isEmpty ? ["objectId"] : key).map(quoted).joined(separator: ", ")
        let first = try db.rows(
            """
            SELECT objectId FROM \(quoted(className)) WHERE objectId NOT IN (SELECT objectId FROM \(Self.keptTable)) \
            ORDER BY \(order) LIMIT \(PruneResult.sampleSize)
            """
        ).compactMap { $0[0] }
        let labels = try keyLabels(className, first)
        if className == "_User" { try deleteSessionsOfUsersNotKept() }
        let deletion = try deleteObjectsNotKept(of: className)
        return PruneResult(count: deletion.objects, first: first.map { labels[$0] ?? $0 }, links: deletion.links)
    }

    /// The sessions `serve` gave the users about to be deleted go with them, as `serve`'s `DELETE` does.
    private func deleteSessionsOfUsersNotKept() throws(PorterError) {
        guard let db = database, !(try db.rows("SELECT 1 FROM _SCHEMA WHERE className = '_Session'")).isEmpty else { return }
        try db.execute("DELETE FROM _Session WHERE user IN (SELECT objectId FROM _User WHERE objectId NOT IN (SELECT objectId FROM \(Self.keptTable)))")
    }

    /// Deletes the rows of the relation's join table that `held` (owner → related objectIds) does not list.
    func pruneLinks(owner className: String, field: String, targetClass: String, keeping held: [String: Set<String>]) throws(PorterError) -> PruneResult {
        guard let db = database else { return PruneResult() }
        forgetLinkDigests()
        let table = quoted(MirrorLayout.joinTable(owner: className, field: field))
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS \(quoted("porter:keptLinks")) (owningId TEXT, relatedId TEXT, PRIMARY KEY(owningId, relatedId))")
        defer { try? db.execute("DELETE FROM \(Self.keptLinksTable)") }
        let insert = try statement("keepLink", "porter:keptLinks", []) { "INSERT OR IGNORE INTO \(Self.keptLinksTable) (owningId, relatedId) VALUES (?1, ?2)" }
        for (owner, related) in held {
            for id in related {
                insert.bind(text: owner, at: 1)
                insert.bind(text: id, at: 2)
                try insert.run()
            }
        }
        let gone = """
            FROM \(table) WHERE NOT EXISTS (SELECT 1 FROM \(Self.keptLinksTable) kept \
            WHERE kept.owningId = \(table).owningId AND kept.relatedId = \(table).relatedId)
            """
        let first = try db.rows("SELECT owningId, relatedId \(gone) ORDER BY owningId, relatedId LIMIT \(PruneResult.sampleSize)")
        let owners = try keyLabels(className, first.compactMap { $0[0] })
        let targets = try keyLabels(targetClass, first.compactMap { $0[1] })
        try db.execute("DELETE \(gone)")
        return PruneResult(
            count: db.changes,
            first: first.map { row in
                let owner = row[0] ?? "", related = row[1] ?? ""
                return "\(owners[owner] ?? owner) → \(targets[related] ?? related)"
            })
    }

    /// How objects are named to people: their natural key's values (joined by `/`), by objectId;
    /// objects of a class without a key are left out (their objectId names them).
    private func keyLabels(_ className: String, _ objectIds: [String]) throws(PorterError) -> [String: String] {
        let key = naturalKeys[className] ?? []
        guard let db = database, !key.isEmpty, !objectIds.isEmpty else { return [:] }
        var labels: [String: String] = [:]
        let select = "SELECT \(key.map(quoted).joined(separator: ", ")) FROM \(quoted(className)) WHERE objectId = ?1"
        for objectId in objectIds {
            guard let row = try db.rows(select, [objectId]).first else { continue }
            labels[objectId] = row.map { $0 ?? "" }.joined(separator: "/")
        }
        return labels
    }
}
