import ParseModel
import PorterCore

/// The history in a PostgreSQL database's `_PorterMigrations` table (the mirror's columns), on
/// the target's connection: an entry written during a migration commits or rolls back with it.
/// The table is made by the first entry written, so reading the history (`status`, `plan`)
/// changes nothing. Parse Server ignores it: it has no `_SCHEMA` row.
final class PostgresHistory: MigrationHistory {
    private let connection: PostgresConnection

    init(connection: PostgresConnection) { self.connection = connection }

    private func tableExists() throws(PorterError) -> Bool {
        try connection.execute(#"SELECT to_regclass('"_PorterMigrations"') IS NOT NULL"#).first?.first == "t"
    }

    func entries() throws(PorterError) -> [AppliedMigration] {
        guard try tableExists() else { return [] }
        let rows = try connection.execute(
            #"SELECT "version", "name", "checksum", "appliedAt", "durationMs", "success", "host", "error" FROM "_PorterMigrations""#)
        return try rows.map { (row) throws(PorterError) in
            guard let date = row[3].flatMap(ParseDate.init(iso:)) else {
                throw PorterError(.target, "\(connection.shownURL): _PorterMigrations: appliedAt \(row[3] ?? "null") of version \(row[0] ?? "?") is not a date")
            }
            return AppliedMigration(
                version: row[0] ?? "", name: row[1] ?? "", checksum: row[2] ?? "", appliedAt: date,
                durationMs: row[4].flatMap { Int($0) } ?? 0, success: row[5] == "t", host: row[6] ?? "", error: row[7])
        }.sortedByVersion()
    }

    func record(_ entry: AppliedMigration) throws(PorterError) {
        try connection.execute(
            """
            CREATE TABLE IF NOT EXISTS "_PorterMigrations" ("version" text PRIMARY KEY, "name" text NOT NULL, "checksum" text NOT NULL, \
            "appliedAt" text NOT NULL, "durationMs" bigint NOT NULL, "success" boolean NOT NULL, "host" text NOT NULL, "error" text)
            """)
        try connection.execute(
            """
            INSERT INTO "_PorterMigrations" ("version", "name", "checksum", "appliedAt", "durationMs", "success", "host", "error") \
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT ("version") DO UPDATE SET "name" = EXCLUDED."name", \
            "checksum" = EXCLUDED."checksum", "appliedAt" = EXCLUDED."appliedAt", "durationMs" = EXCLUDED."durationMs", \
            "success" = EXCLUDED."success", "host" = EXCLUDED."host", "error" = EXCLUDED."error"
            """, [entry.version, entry.name, entry.checksum, entry.appliedAt.iso, String(entry.durationMs), entry.success ? "t" : "f", entry.host, entry.error])
    }

    func remove(version: String) throws(PorterError) {
        guard try tableExists() else { return }
        try connection.execute(#"DELETE FROM "_PorterMigrations" WHERE "version" = $1"#, [version])
    }
}
