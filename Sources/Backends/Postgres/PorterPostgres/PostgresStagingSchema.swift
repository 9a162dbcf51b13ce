import PorterCore

/// The join tables an import creates, loaded on a second connection into a schema of their own
/// (``name``) while the import's connection loads the class tables, so that PostgreSQL takes
/// both in at once. The second connection's transaction commits when the links are flushed;
/// the import's connection then moves the tables into place in its own transaction
/// (``PostgresWriter/flushLinks()``), so the import stays all-or-nothing: until that commits,
/// the app's tables are as they were. Each import has a schema of its own, named after the
/// server process of its second connection, so that imports into one database at once do not
/// meet; a run killed between the two commits leaves only its schema behind, which the next
/// import drops once no connection of that process is live.
final class PostgresStagingSchema {
    /// What every staging schema's name starts with.
    static let prefix = "parse_porter_staging_"

    /// This import's schema: ``prefix`` and the server process id of its connection.
    let name: String
    private let connection: PostgresConnection
    /// The join tables loaded so far.
    private(set) var tables: [String] = []

    /// Connects to `url` and opens the transaction the staging schema is made in (the schemas
    /// left by killed runs dropped first).
    init(url: String) throws(PorterError) {
        connection = try PostgresConnection(url: url)
        guard let pid = try connection.execute("SELECT pg_backend_pid()").first?.first ?? nil else {
            throw PorterError(.target, "\(connection.shownURL): the server did not say its process id (pg_backend_pid)")
        }
        name = Self.prefix + pid
        // Outside the transaction, so that a schema dropped here is not held locked by it.
        let orphans = try connection.execute(
            "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)"
                + " AND substr(nspname, length($1) + 1) NOT IN (SELECT pid::text FROM pg_stat_activity)", [Self.prefix])
        for row in orphans {
            if let orphan = row.first ?? nil { try connection.execute("DROP SCHEMA IF EXISTS \(quoted(orphan)) CASCADE") }
        }
        try connection.execute("BEGIN")
        try connection.execute("CREATE SCHEMA \(quoted(name))")
        try connection.execute("SET LOCAL search_path TO \(quoted(name))")
    }

    /// Adds link rows (`owningId`, `relatedId`) for join table `table`, made here, unkeyed, on
    /// its first rows; frozen, since it is made in this transaction.
    func stream(_ pairs: BinaryCopyRows, into table: String) throws(PorterError) {
        if !tables.contains(table) {
            try connection.execute(PostgresLayout.createJoinTableSQL(table, keyed: false))
            tables.append(table)
        }
        try connection.stream(pairs, into: table, columns: ["owningId", "relatedId"], freeze: true)
    }

    /// Commits the loaded tables, for the import's connection to move into place.
    func commit() throws(PorterError) {
        try connection.execute("COMMIT")
    }

    /// Drops what was loaded: the transaction rolled back, or after ``commit()`` the schema dropped.
    func discard(committed: Bool) {
        connection.abandonStream()
        _ = try? connection.execute(committed ? "DROP SCHEMA IF EXISTS \(quoted(name)) CASCADE" : "ROLLBACK")
        connection.close()
    }

    /// Closes the second connection, the schema left as it is (committed, for the import's
    /// connection to have moved its tables out and dropped it).
    func close() { connection.close() }
}
