import ParseModel
import PorterCore

/// Where one join table's links wait: every call of an import adds to them, and
/// ``PostgresWriter/flushLinks()`` writes them in one statement each. A join table this import
/// made takes its pairs straight in, unkeyed, and is keyed at the flush.
struct LinkStage {
    /// The relation, as a summary names it (`Book.authors`).
    let relation: String
    /// The table the `(owningId, relatedId)` pairs are copied into: the join table itself when
    /// ``isDirect``, else a temporary table.
    let links: String
    /// The temporary table of the owners whose links are replaced; `nil` when links are only added.
    let owners: String?
    /// Whether ``links`` is the join table, made by this import.
    let isDirect: Bool
    /// Pairs copied so far, repeats included.
    var copied = 0
}

extension PostgresWriter {
    /// Stages relation links for the field's join table; ``flushLinks()`` writes them. With
    /// `replace`, each listed owner's stored links the given ones lack are deleted then (not on a
    /// join table this import created, which held none). An owner listed twice keeps what both list.
    ///
    /// Staging the whole import's links and writing them once matters: the join table's key is
    /// `(relatedId, owningId)`, as Parse Server makes it, so finding an owner's links means
    /// reading the whole table, which per batch would grow with the square of the import.
    func link(owner className: String, field: String, targetClass: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) {
        let db = try database()
        let table = PostgresLayout.joinTable(owner: className, field: field)
        markWritten(table)
        let stage = try linkStage(table, relation: "\(className).\(field)", replacing: replace && !freshTables.contains(table))
        if stage.isDirect {
            try withCopyBuffer { (pairs) throws(PorterError) in
                for link in links {
                    let owner = storedId(className, link.ownerId)
                    for related in link.relatedIds {
                        pairs.startRow(fields: 2)
                        pairs.append(text: owner)
                        pairs.append(text: storedId(targetClass, related))
                    }
                }
                if shared {
                    try db.stream(pairs, into: table, columns: ["owningId", "relatedId"], freeze: false)
                } else {
                    try stagingSchema().stream(pairs, into: table)
                }
                stagedLinks[table]?.copied += pairs.count
            }
            return
        }
        let links = try unstoredLinks(links, table: table, owner: className, field: field, targetClass: targetClass, replacing: stage)
        var pairs = CopyRows()
        for link in links {
            let owner = storedId(className, link.ownerId)
            for related in link.relatedIds {
                pairs.append(owner)
                pairs.append(storedId(targetClass, related))
                pairs.endRow()
            }
        }
        stagedLinks[table]?.copied += try db.copy(into: stage.links, columns: ["owningId", "relatedId"], pairs)
        guard let owners = stage.owners else { return }
        var listed = CopyRows()
        for link in links {
            listed.append(storedId(className, link.ownerId))
            listed.endRow()
        }
        try db.copy(into: owners, columns: ["owningId"], listed)
    }

    /// Writes the staged links into their join tables: one DELETE of the replaced owners' links
    /// the sources no longer list, one INSERT of the missing ones; then builds the primary keys
    /// of the tables this import made. Link changes by relation.
    func flushLinks() throws(PorterError) -> [String: LinkChanges] {
        let db = try database()
        try moveStagedTables()
        var changes: [String: LinkChanges] = [:]
        for (table, stage) in stagedLinks.sorted(by: { $0.key < $1.key }) {
            if stage.isDirect {
                changes[stage.relation] = LinkChanges(added: stage.copied - (try keyCopiedLinks(table)))
                continue
            }
            var change = LinkChanges()
            if let owners = stage.owners {
                change.removed = try db.changes(
                    """
                    DELETE FROM \(quoted(table)) j USING (SELECT DISTINCT "owningId" FROM \(quoted(owners))) o WHERE j."owningId" = o."owningId"
                    AND NOT EXISTS (SELECT 1 FROM \(quoted(stage.links)) s WHERE s."owningId" = j."owningId" AND s."relatedId" = j."relatedId")
                    """)
                try db.execute("DROP TABLE \(quoted(owners))")
            }
            change.added = try db.changes(
                """
                INSERT INTO \(quoted(table)) ("owningId", "relatedId") SELECT DISTINCT "owningId", "relatedId" FROM \(quoted(stage.links)) ON CONFLICT DO NOTHING
                """)
            try db.execute("DROP TABLE \(quoted(stage.links))")
            changes[stage.relation] = change
        }
        stagedLinks = [:]
        for table in unkeyedTables.keys.sorted() { try addPrimaryKey(table) }
        return changes
    }

    /// The links of the owners whose stored links are not exactly these (``StoredLinkSets``, read
    /// at the table's first links); an owner left out earlier and given again gets its stored
    /// links staged back, so that what it keeps is what both list.
    private func unstoredLinks(
        _ links: [RelationLinks], table: String, owner className: String, field: String, targetClass: String,
        replacing stage: LinkStage
    ) throws(PorterError) -> [RelationLinks] {
        let db = try database()
        // Taken out while it changes, so that its dictionaries are not copied (copy on write).
        var sets: StoredLinkSets
        if let scanned = linkSets.removeValue(forKey: table) {
            sets = scanned
        } else if finishedParts.contains(.links(owner: className, field: field)) {
            // Which owners were left out went with the digests: their stored links could not be kept.
            throw PorterError(.target, "\(stage.relation): links sent after the import said it had sent them all")
        } else {
            sets = try StoredLinkSets(scanning: table, ownerClass: className, on: db)
        }
        var kept: [RelationLinks] = []
        var restaged: [String] = []
        for link in links {
            let owner = storedId(className, link.ownerId)
            if sets.wasLeftOut(owner) {
                restaged.append(owner)
                sets.restaged(owner)
            }
            if !sets.holds(owner: owner, related: Set(link.relatedIds.map { storedId(targetClass, $0) })) { kept.append(link) }
        }
        linkSets[table] = sets
        if stage.owners != nil && !restaged.isEmpty {
            try db.execute(
                """
                INSERT INTO \(quoted(stage.links)) ("owningId", "relatedId") SELECT "owningId", "relatedId" FROM \(quoted(table)) WHERE "owningId" = ANY($1::text[])
                """, [ParseACL.textArray(restaged)])
        }
        return kept
    }

    /// Commits the join tables loaded into the staging schema and, in the import's
    /// transaction, puts each in place of the empty one the import made; they are keyed next.
    private func moveStagedTables() throws(PorterError) {
        guard let staging, !stagingCommitted else { return }
        try staging.commit()
        stagingCommitted = true
        let db = try database()
        guard let schema = try db.execute("SELECT current_schema()").first?.first ?? nil else {
            throw PorterError(.target, "\(db.shownURL): no schema to create tables in (search_path)")
        }
        let name = quoted(staging.name)
        for table in staging.tables {
            try db.execute("DROP TABLE \(quoted(table))")
            try db.execute("ALTER TABLE \(name).\(quoted(table)) SET SCHEMA \(quoted(schema))")
            unkeyedTables[table] = PostgresLayout.joinKey
        }
        try db.execute("DROP SCHEMA \(name)")
    }

    /// Builds the primary key of a join table the links were copied straight into; a pair
    /// listed more than once (an owner given twice, or a value repeated in a list) is kept
    /// once first. Returns how many repeats were deleted.
    private func keyCopiedLinks(_ table: String) throws(PorterError) -> Int {
        let db = try database()
        try db.execute("SAVEPOINT porter_join_key")
        do {
            try addPrimaryKey(table)
            try db.execute("RELEASE SAVEPOINT porter_join_key")
            return 0
        } catch {
            guard error.postgresError?.isUniqueViolation == true else { throw error }
        }
        try db.execute("ROLLBACK TO SAVEPOINT porter_join_key")
        let repeats = try db.changes(
            """
            DELETE FROM \(quoted(table)) a USING \(quoted(table)) b
            WHERE a.ctid > b.ctid AND a."owningId" = b."owningId" AND a."relatedId" = b."relatedId"
            """)
        try addPrimaryKey(table)
        return repeats
    }

    /// Where the links of `table` wait, set up on its first links of the import.
    private func linkStage(_ table: String, relation: String, replacing: Bool) throws(PorterError) -> LinkStage {
        if let stage = stagedLinks[table] { return stage }
        if unkeyedTables[table] != nil {
            let stage = LinkStage(relation: relation, links: table, owners: nil, isDirect: true)
            stagedLinks[table] = stage
            return stage
        }
        let db = try database()
        // Numbered: `porter:links:` and a join table's name could pass the 63 bytes PostgreSQL keeps.
        let number = stagedLinks.count
        let stage = LinkStage(relation: relation, links: "porter:links:\(number)", owners: replacing ? "porter:owners:\(number)" : nil, isDirect: false)
        try db.execute("CREATE TEMP TABLE \(quoted(stage.links)) (\"owningId\" varChar(120), \"relatedId\" varChar(120)) ON COMMIT DROP")
        if let owners = stage.owners { try db.execute("CREATE TEMP TABLE \(quoted(owners)) (\"owningId\" varChar(120)) ON COMMIT DROP") }
        stagedLinks[table] = stage
        return stage
    }
}
