// README-EXAMPLE: app-migrate
import ParsePorter
import ParsePorterPostgres

/// Applies the pending migrations of `folder` to the database at `url`
/// (`postgres://user@host:5432/db`), under its migration lock.
func migrateDatabase(url: String, folder: String) async throws -> [AppliedMigration] {
    let app = try await ParseApp(target: .database(url: url))
    return try await app.migrate(folder)
}
// README-EXAMPLE-END
