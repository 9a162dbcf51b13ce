// README-EXAMPLE: app-pull
import ParsePorter

/// Copies the Parse Server at `url` into the mirror at `mirrorPath`; a second pull reads only
/// what changed since.
func pullServer(url: String, applicationId: String, masterKey: String, into mirrorPath: String) async throws -> PullReport {
    let app = try await ParseApp(target: .server(url: url, applicationId: applicationId, masterKey: masterKey))
    return try await app.pull(into: mirrorPath)
}
// README-EXAMPLE-END
