// README-EXAMPLE: serve
import ParseMirrorServer

/// Serves the mirror at `mirrorPath` as a Parse REST API on a free port of 127.0.0.1, for a
/// ParseSwift or JavaScript app's tests; `await server.stop()` closes it (and the mirror) again.
func serveMirror(at mirrorPath: String, applicationId: String, masterKey: String) async throws -> MirrorServer {
    let configuration = ParseServerConfiguration(applicationId: applicationId, masterKey: masterKey)
    let server = try await MirrorServer.start(mirror: mirrorPath, configuration: configuration)
    print("serving \(mirrorPath) at \(server.url)")  // http://127.0.0.1:PORT/parse
    return server
}
// README-EXAMPLE-END
