import PorterPipeline

extension PostgresWriter {
    /// Adds relation links to the field's join table through a staging table; with `replace`,
    /// each listed owner's stored links the given ones lack are deleted first. An owner listed
    /// twice keeps what both list.
    func link(owner className: String, field: String, _ links: [RelationLinks], replace: Bool) throws(PorterError) -> LinkChanges {
        let db = try database()
        let table = quoted(PostgresLayout.joinTable(owner: className, field: field))
        let staged = try linkStage("porter:links", columns: #""owningId" varChar(120), "relatedId" varChar(120)"#)
        var pairs = CopyRows()
        for link in links {
            for related in link.relatedIds {
                pairs.append(link.ownerId)
                pairs.append(related)
                pairs.endRow()
            }
        }
        try db.copy(into: staged, columns: ["owningId", "relatedId"], pairs)
        var changes = LinkChanges()
        if replace {
            let owners = try linkStage("porter:owners", columns: #""owningId" varChar(120)"#)
            var listed = CopyRows()
            for link in links {
                listed.append(link.ownerId)
                listed.endRow()
            }
            try db.copy(into: owners, columns: ["owningId"], listed)
            changes.removed = try db.changes("""
                DELETE FROM \(table) j USING (SELECT DISTINCT "owningId" FROM \(quoted(owners))) o WHERE j."owningId" = o."owningId"
                AND NOT EXISTS (SELECT 1 FROM \(quoted(staged)) s WHERE s."owningId" = j."owningId" AND s."relatedId" = j."relatedId")
                """)
        }
        changes.added = try db.changes("""
            INSERT INTO \(table) ("owningId", "relatedId") SELECT DISTINCT "owningId", "relatedId" FROM \(quoted(staged))
            ON CONFLICT DO NOTHING
            """)
        return changes
    }

    /// A temporary table of link columns, made once per transaction and emptied for each use.
    private func linkStage(_ name: String, columns: String) throws(PorterError) -> String {
        let db = try database()
        if stagingTables.insert(name).inserted {
            try db.execute("CREATE TEMP TABLE \(quoted(name)) (\(columns)) ON COMMIT DROP")
        } else {
            try db.execute("TRUNCATE \(quoted(name))")
        }
        return name
    }
}
