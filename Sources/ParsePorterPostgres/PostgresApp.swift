@_exported import ParsePorter
import PorterMigrations
import PorterPipeline
@_exported import PorterPostgres

extension ParseApp.Target {
    /// A Parse Server's PostgreSQL database, `postgres://user:password@host:5432/db`.
    public static func database(url: String) -> ParseApp.Target { ParseApp.Target(PostgresApp(url: url)) }
}

/// A Parse Server's PostgreSQL database, written and read directly.
struct PostgresApp: AppBackend {
    let url: String

    var redactedAddress: String { PostgresURL.redacted(url) }

    func open() throws(PorterError) -> String { redactedAddress }

    /// Larger writes than over REST (``PostgresTarget/objectsPerWrite``).
    var defaultImportOptions: ImportOptions { ImportOptions(batchSize: PostgresTarget.objectsPerWrite) }

    func sink() throws(PorterError) -> ObjectSink { PostgresTarget(url: url) }

    func source() throws(PorterError) -> ObjectSource { PostgresSource(url: url) }

    func migrationTarget() throws(PorterError) -> MigrationTarget { try PostgresDatabaseTarget(url: url) }
}
