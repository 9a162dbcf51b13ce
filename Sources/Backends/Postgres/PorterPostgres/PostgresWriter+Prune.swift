import ParseModel
import PorterCore

/// `--prune`: deleting, in the import's transaction, what the sources no longer hold, as
/// Parse Server's `deleteObjectsByQuery` and `deleteRelation` would leave the tables.
extension PostgresWriter {
    private static let keptObjects = "porter:kept"
    private static let keptLinks = "porter:keptLinks"
    private static let goneObjects = "porter:gone"

    /// Deletes the class's objects whose objectIds `held` does not list, with their links in
    /// every join table (as owner and as related object) and, for `_User`, their sessions.
    func prune(_ className: String, keeping held: HeldObjects) throws(PorterError) -> PruneResult {
        guard try tableExists(className) else { return PruneResult() }
        try addPrimaryKey(className)
        let db = try database()
        try stage(Self.keptObjects, columns: ["objectId"], key: ["objectId"], rows: Set(held.objectIds.map { storedId(className, $0) }).map { [$0] })
        let table = quoted(className)
        // The objects to delete, found once: every DELETE below reads them.
        if stagingTables.insert(Self.goneObjects).inserted {
            try db.execute("CREATE TEMP TABLE \(quoted(Self.goneObjects)) (\"objectId\" text PRIMARY KEY) ON COMMIT DROP")
        }
        try db.execute("TRUNCATE \(quoted(Self.goneObjects))")
        let found = try db.changes(
            """
            INSERT INTO \(quoted(Self.goneObjects)) SELECT "objectId" FROM \(table) t
            WHERE NOT EXISTS (SELECT 1 FROM \(quoted(Self.keptObjects)) k WHERE k."objectId" = t."objectId")
            """)
        guard found > 0 else { return PruneResult() }
        let gone = "SELECT \"objectId\" FROM \(quoted(Self.goneObjects))"
        let key = naturalKeys[className] ?? []
        let label = key.isEmpty ? "\"objectId\"" : key.map { "coalesce(\(quoted($0))::text, '')" }.joined(separator: " || '/' || ")
        let order = (key.isEmpty ? ["objectId"] : key).map(quoted).joined(separator: ", ")
        let first = try db.execute("SELECT \(label) FROM \(table) WHERE \"objectId\" IN (\(gone)) ORDER BY \(order) LIMIT \(PruneResult.sampleSize)")
            .map { $0[0] ?? "" }
        var links: [String: Int] = [:]
        for schema in try existingSchemas() {
            for field in schema.fields where field.type.isRelation {
                let join = PostgresLayout.joinTable(owner: schema.className, field: field.name)
                guard try tableExists(join) else { continue }
                var removed = 0
                if schema.className == className {
                    removed += try db.changes("DELETE FROM \(quoted(join)) WHERE \"owningId\" IN (\(gone))")
                }
                if field.type.targetClass == className {
                    removed += try db.changes("DELETE FROM \(quoted(join)) WHERE \"relatedId\" IN (\(gone))")
                }
                if removed > 0 { links["\(schema.className).\(field.name)"] = removed }
            }
        }
        if className == "_User", try tableExists("_Session") {
            try db.execute("DELETE FROM \"_Session\" WHERE \"user\" IN (\(gone))")
        }
        let count = try db.changes("DELETE FROM \(table) WHERE \"objectId\" IN (\(gone))")
        return PruneResult(count: count, first: first, links: links)
    }

    /// Deletes the rows of the relation's join table that `held` (owner → related objectIds)
    /// does not list.
    func pruneLinks(owner className: String, field: String, targetClass: String, keeping held: [String: Set<String>]) throws(PorterError) -> PruneResult {
        let join = PostgresLayout.joinTable(owner: className, field: field)
        guard try tableExists(join) else { return PruneResult() }
        try addPrimaryKey(join)
        let db = try database()
        try stage(
            Self.keptLinks, columns: ["owningId", "relatedId"], key: ["owningId", "relatedId"],
            rows: Array(Set(held.flatMap { owner, related in related.map { [storedId(className, owner), storedId(targetClass, $0)] } })))
        let gone = """
            FROM \(quoted(join)) j WHERE NOT EXISTS (SELECT 1 FROM \(quoted(Self.keptLinks)) k \
            WHERE k."owningId" = j."owningId" AND k."relatedId" = j."relatedId")
            """
        let pairs = try db.execute("SELECT \"owningId\", \"relatedId\" \(gone) ORDER BY \"owningId\", \"relatedId\" LIMIT \(PruneResult.sampleSize)")
        let owners = try labels(className, pairs.compactMap { $0[0] })
        let targets = try labels(targetClass, pairs.compactMap { $0[1] })
        let count = try db.changes("DELETE \(gone)")
        return PruneResult(
            count: count,
            first: pairs.map { row in
                let owner = row[0] ?? "", related = row[1] ?? ""
                return "\(owners[owner] ?? owner) → \(targets[related] ?? related)"
            })
    }

    /// A temporary table of `rows`, emptied and filled anew on each call of the transaction.
    private func stage(_ name: String, columns: [String], key: [String], rows: [[String]]) throws(PorterError) {
        let db = try database()
        if stagingTables.insert(name).inserted {
            let definitions = columns.map { "\(quoted($0)) text" }.joined(separator: ", ")
            try db.execute("CREATE TEMP TABLE \(quoted(name)) (\(definitions), PRIMARY KEY (\(key.map(quoted).joined(separator: ", ")))) ON COMMIT DROP")
        }
        try db.execute("TRUNCATE \(quoted(name))")
        var copy = CopyRows()
        for row in rows {
            for value in row { copy.append(value) }
            copy.endRow()
        }
        try db.copy(into: name, columns: columns, copy)
    }

    /// How people name objects: their natural key's values joined by `/`, by objectId; the
    /// objects of a class without a key are left out (their objectId names them).
    private func labels(_ className: String, _ objectIds: [String]) throws(PorterError) -> [String: String] {
        let key = naturalKeys[className] ?? []
        guard !key.isEmpty, !objectIds.isEmpty, try tableExists(className) else { return [:] }
        let label = key.map { "coalesce(\(quoted($0))::text, '')" }.joined(separator: " || '/' || ")
        let rows = try database().execute(
            "SELECT \"objectId\", \(label) FROM \(quoted(className)) WHERE \"objectId\" = ANY($1::text[])",
            [ParseACL.textArray(objectIds)])
        return Dictionary(rows.compactMap { row in row[0].map { ($0, row[1] ?? "") } }, uniquingKeysWith: { first, _ in first })
    }
}
