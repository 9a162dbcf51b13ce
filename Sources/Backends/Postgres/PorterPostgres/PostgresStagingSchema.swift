import PorterCore

/// The join tables an import creates, loaded on a second connection into a schema of their own
/// (``name``) while the import's connection loads the class tables, so that PostgreSQL takes
/// both in at once. The second connection's transaction commits when the links are flushed;
/// the import's connection then moves the tables into place in its own transaction
/// (``PostgresWriter/flushLinks()``), so the import stays all-or-nothing: until that commits,
/// the app's tables are as they were. A run killed between the two commits leaves only this
/// schema behind, which the next import drops.
final class PostgresStagingSchema {
    /// The schema's name.
    static let name = "parse_porter_staging"

    private let connection: PostgresConnection
    /// The join tables loaded so far.
    private(set) var tables: [String] = []

    /// Connects to `url` and opens the transaction the staging schema is made in (a schema left
    /// by a killed run dropped first).
    init(url: String) throws(PorterError) {
        connection = try PostgresConnection(url: url)
        try connection.execute("BEGIN")
        try connection.execute("DROP SCHEMA IF EXISTS \(quoted(Self.name)) CASCADE")
        try connection.execute("CREATE SCHEMA \(quoted(Self.name))")
        try connection.execute("SET LOCAL search_path TO \(quoted(Self.name))")
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
        _ = try? connection.execute(committed ? "DROP SCHEMA IF EXISTS \(quoted(Self.name)) CASCADE" : "ROLLBACK")
        connection.close()
    }

    func close() { connection.close() }
}
