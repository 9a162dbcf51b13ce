import ParseModel
import PorterCore
import PorterSQLite

/// The history in the mirror's `_PorterMigrations` table (Docs/MirrorLayout.md#tables), on the target's connection:
/// an entry written during a migration commits or rolls back with it.
final class MirrorHistory: MigrationHistory {
    private let database: SQLiteDatabase

    init(database: SQLiteDatabase) throws(PorterError) {
        self.database = database
        // Mirrors made before the error column existed get it here.
        let columns = try database.rows("SELECT name FROM pragma_table_info('_PorterMigrations')").compactMap { $0[0] }
        if !columns.contains("error") { try database.execute("ALTER TABLE _PorterMigrations ADD COLUMN error TEXT") }
    }

    func entries() throws(PorterError) -> [AppliedMigration] {
        let statement = try database.prepare("SELECT version, name, checksum, appliedAt, durationMs, success, host, error FROM _PorterMigrations")
        var entries: [AppliedMigration] = []
        while try statement.step() {
            let appliedAt = statement.text(at: 3)
            guard let date = appliedAt.flatMap(ParseDate.init(iso:)) else {
                throw PorterError(
                    .target, "\(database.path): _PorterMigrations: appliedAt \(appliedAt ?? "null") of version \(statement.text(at: 0) ?? "?") is not a date")
            }
            entries.append(
                AppliedMigration(
                    version: statement.text(at: 0) ?? "", name: statement.text(at: 1) ?? "",
                    checksum: statement.text(at: 2) ?? "", appliedAt: date,
                    durationMs: Int(statement.integer(at: 4)), success: statement.integer(at: 5) != 0,
                    host: statement.text(at: 6) ?? "", error: statement.text(at: 7)))
        }
        return entries.sortedByVersion()
    }

    func record(_ entry: AppliedMigration) throws(PorterError) {
        let statement = try database.prepare(
            """
            INSERT OR REPLACE INTO _PorterMigrations (version, name, checksum, appliedAt, durationMs, success, host, error) \
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
            """)
        statement.bind(text: entry.version, at: 1)
        statement.bind(text: entry.name, at: 2)
        statement.bind(text: entry.checksum, at: 3)
        statement.bind(text: entry.appliedAt.iso, at: 4)
        statement.bind(integer: Int64(entry.durationMs), at: 5)
        statement.bind(integer: entry.success ? 1 : 0, at: 6)
        statement.bind(text: entry.host, at: 7)
        if let error = entry.error { statement.bind(text: error, at: 8) } else { statement.bindNull(at: 8) }
        try statement.run()
    }

    func remove(version: String) throws(PorterError) {
        let statement = try database.prepare("DELETE FROM _PorterMigrations WHERE version = ?1")
        statement.bind(text: version, at: 1)
        try statement.run()
    }
}
