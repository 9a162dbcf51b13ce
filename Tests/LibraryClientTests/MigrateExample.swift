// README-EXAMPLE: migrate
import ParseMirrorServer
import PorterMigrations

/// Applies the pending migrations of `folder` (`V1__library_schema.yml`, …) to the mirror at
/// `mirrorPath`, made if missing; each migration and its history row commit together.
func migrate(mirrorPath: String, folder: String) async throws -> [AppliedMigration] {
    let files = try MigrationDirectory.load(folder)
    let runner = MigrationRunner(target: try MirrorTarget(path: mirrorPath, create: true), files: files, folder: folder)
    return try await runner.up(to: nil) { event in
        if case .finished(let file, let milliseconds) = event { print("applied \(file.fileName) in \(milliseconds) ms") }
    }
}
// README-EXAMPLE-END
