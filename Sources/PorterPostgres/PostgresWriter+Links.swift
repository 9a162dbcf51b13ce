import PorterPipeline

/// The staging tables of one join table's links: every call of an import adds to them, and
/// ``PostgresWriter/flushLinks()`` writes them in one statement each.
struct LinkStage {
    /// The relation, as a summary names it (`Book.authors`).
    let relation: String
    /// The temporary table of `(owningId, relatedId)` pairs.
    let links: String
    /// The temporary table of the owners whose links are replaced; `nil` when links are only added.
    let owners: String?
}

extension PostgresWriter {
    /// Stages relation links for the field's join table; ``flushLinks()`` writes them. With
    /// `replace`, each listed owner's stored links the given ones lack are deleted then (not on a
    /// join table this import created, which held none). An owner listed twice keeps what both list.
    ///
    /// Staging the whole import's links and writing them once matters: the join table's key is
    /// `(relatedId, owningId)`, as Parse Server makes it, so finding an owner's links means
    /// reading the whole table, which per batch would grow with the square of the import.
    func link(owner className: String, field: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) {
        let db = try database()
        let table = PostgresLayout.joinTable(owner: className, field: field)
        let stage = try linkStage(table, relation: "\(className).\(field)", replacing: replace && !freshTables.contains(table))
        var pairs = CopyRows()
        for link in links {
            for related in link.relatedIds {
                pairs.append(link.ownerId)
                pairs.append(related)
                pairs.endRow()
            }
        }
        try db.copy(into: stage.links, columns: ["owningId", "relatedId"], pairs)
        guard let owners = stage.owners else { return }
        var listed = CopyRows()
        for link in links {
            listed.append(link.ownerId)
            listed.endRow()
        }
        try db.copy(into: owners, columns: ["owningId"], listed)
    }

    /// Writes the staged links into their join tables: one DELETE of the replaced owners' links
    /// the sources no longer list, one INSERT of the missing ones; then builds the primary keys
    /// of the tables this import made. Link changes by relation.
    func flushLinks() throws(PorterError) -> [String: LinkChanges] {
        let db = try database()
        var changes: [String: LinkChanges] = [:]
        for (table, stage) in stagedLinks.sorted(by: { $0.key < $1.key }) {
            var change = LinkChanges()
            if let owners = stage.owners {
                change.removed = try db.changes("""
                    DELETE FROM \(quoted(table)) j USING (SELECT DISTINCT "owningId" FROM \(quoted(owners))) o WHERE j."owningId" = o."owningId"
                    AND NOT EXISTS (SELECT 1 FROM \(quoted(stage.links)) s WHERE s."owningId" = j."owningId" AND s."relatedId" = j."relatedId")
                    """)
                try db.execute("DROP TABLE \(quoted(owners))")
            }
            // A join table this import made is empty and unkeyed: no conflict to look for.
            let conflicts = unkeyedTables[table] == nil ? " ON CONFLICT DO NOTHING" : ""
            change.added = try db.changes("""
                INSERT INTO \(quoted(table)) ("owningId", "relatedId") SELECT DISTINCT "owningId", "relatedId" FROM \(quoted(stage.links))\(conflicts)
                """)
            try db.execute("DROP TABLE \(quoted(stage.links))")
            changes[stage.relation] = change
        }
        stagedLinks = [:]
        for table in unkeyedTables.keys.sorted() { try addPrimaryKey(table) }
        return changes
    }

    /// The staging tables of `table`, made on its first links of the import.
    private func linkStage(_ table: String, relation: String, replacing: Bool) throws(PorterError) -> LinkStage {
        if let stage = stagedLinks[table] { return stage }
        let db = try database()
        let stage = LinkStage(relation: relation, links: "porter:links:" + table, owners: replacing ? "porter:owners:" + table : nil)
        try db.execute("CREATE TEMP TABLE \(quoted(stage.links)) (\"owningId\" varChar(120), \"relatedId\" varChar(120)) ON COMMIT DROP")
        if let owners = stage.owners { try db.execute("CREATE TEMP TABLE \(quoted(owners)) (\"owningId\" varChar(120)) ON COMMIT DROP") }
        stagedLinks[table] = stage
        return stage
    }
}
