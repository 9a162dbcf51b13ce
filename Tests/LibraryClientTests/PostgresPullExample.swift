// README-EXAMPLE: pull-postgres
import PorterPostgres
import PorterSQLite

/// Copies every class of the Parse Server database at `url` (`postgres://user@host:5432/db`)
/// into the SQLite mirror at `mirrorPath`, users' password hashes included; a second pull
/// reads only the rows updated since. The URL's password stays out of the mirror.
func pull(fromDatabase url: String, intoMirror mirrorPath: String) async throws -> PullReport {
    let options = PullOptions(source: PostgresURL.redacted(url))
    return try await Puller(source: PostgresSource(url: url), mirror: SQLiteMirror(path: mirrorPath), options: options).run()
}
// README-EXAMPLE-END
