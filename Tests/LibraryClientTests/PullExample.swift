// README-EXAMPLE: pull
import PorterREST
import PorterSQLite

/// Copies every class of the Parse Server at `url` into the SQLite mirror at `mirrorPath`, in
/// one transaction; a second pull reads only what changed since.
func pull(fromServer url: String, applicationId: String, masterKey: String, intoMirror mirrorPath: String) async throws -> PullReport {
    let address = try ParseServerAddress(url: url, applicationId: applicationId, masterKey: masterKey, restAPIKey: nil)
    let source = RESTObjectSource(client: ParseRESTClient(address: address))
    let options = PullOptions(source: address.description)
    return try await Puller(source: source, mirror: SQLiteMirror(path: mirrorPath), options: options).run()
}
// README-EXAMPLE-END
