// README-EXAMPLE: serve
import ParseMirrorServer
import PorterHTTP

/// Serves the mirror at `mirrorPath` as a Parse REST API on a free port of 127.0.0.1, for a
/// ParseSwift or JavaScript app's tests; call `stop()` on the server when done.
func serveMirror(at mirrorPath: String, applicationId: String, masterKey: String) throws -> (server: HTTPServer, url: String) {
    let configuration = ParseServerConfiguration(applicationId: applicationId, masterKey: masterKey)
    let api = try ParseMirrorAPI(mirrorPath: mirrorPath, configuration: configuration)
    let server = HTTPServer(host: "127.0.0.1", port: 0, handler: api)
    let port = try server.start()
    return (server, "http://127.0.0.1:\(port)/parse")
}
// README-EXAMPLE-END
