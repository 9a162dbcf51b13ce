import ArgumentParser
import Dispatch
import Foundation
import ParseMirrorServer
import PorterHTTP
import PorterPipeline

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a SQLite mirror as a Parse REST API: an offline Parse backend for apps and tools.",
        discussion: """
            Objects, queries, schemas, batch, users and sessions, with Parse Server's status codes, error codes and JSON \
            shapes. An empty mirror is created when the file does not exist. Credentials default to PARSE_APPLICATION_ID, \
            PARSE_MASTER_KEY and PARSE_REST_API_KEY; keys are never printed. Prints one line, "serving MIRROR at URL", \
            then one line per request on stderr (method, path, status, milliseconds) unless --quiet. Stops on Ctrl-C or \
            SIGTERM.

            Examples:
              PARSE_APPLICATION_ID=library PARSE_MASTER_KEY=… parse-porter serve Fixtures/library/library.sqlite
              parse-porter serve /tmp/app.sqlite --port 0 --mount / --app-id app --master-key "$KEY" --allow-custom-object-id
            """
    )

    @Argument(help: "The SQLite mirror to serve.")
    var mirror: String

    @Option(help: "The port to listen on; 0 picks a free one (the printed URL shows it).")
    var port = 1337

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The mount path; \"/\" serves at the root, as Back4App does.")
    var mount = "/parse"

    /// The app id and master key are required; a REST key, when given, is one clients must send.
    @OptionGroup var keys: ParseKeyOptions

    @Flag(help: "Accept objectIds in create bodies (Parse Server's allowCustomObjectId).")
    var allowCustomObjectId = false

    @Flag(name: .shortAndLong, help: "No request log.")
    var quiet = false

    func run() throws {
        guard let applicationId = keys.applicationId else {
            throw PorterError(.usage, "serve needs an application id: --app-id or PARSE_APPLICATION_ID")
        }
        guard let masterKey = keys.masterKey else {
            throw PorterError(.usage, "serve needs a master key: --master-key or PARSE_MASTER_KEY")
        }
        guard (0...65535).contains(port) else { throw PorterError(.usage, "--port must be 0...65535") }
        let configuration = ParseServerConfiguration(
            applicationId: applicationId, masterKey: masterKey, restAPIKey: keys.restAPIKey,
            mountPath: mount, allowCustomObjectId: allowCustomObjectId, maintenanceKey: keys.maintenanceKey)
        let api = try ParseMirrorAPI(mirrorPath: mirror, configuration: configuration)
        let server = HTTPServer(host: host, port: port, handler: quiet ? api : RequestLog(api))
        let boundPort: Int
        do {
            boundPort = try server.start()
        } catch {
            throw PorterError(.target, "cannot listen on \(host):\(port): \(error)")
        }
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { server.stop() }
            source.resume()
            return source
        }
        let address = host.contains(":") ? "[\(host)]" : host
        Terminal.output("serving \(mirror) at http://\(address):\(boundPort)\(configuration.normalizedMountPath)")
        server.wait()
        signals.forEach { $0.cancel() }
    }
}

/// Logs each request on stderr as `METHOD /path status ms`: never headers, query strings or bodies,
/// which may carry keys, session tokens or passwords.
struct RequestLog: HTTPHandler {
    let inner: ParseMirrorAPI

    init(_ inner: ParseMirrorAPI) { self.inner = inner }

    func respond(to request: HTTPRequest) throws -> HTTPResponse {
        let start = DispatchTime.now().uptimeNanoseconds
        let response = inner.respond(to: request)
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000
        Terminal.error(String(format: "%@ %@ %d %.1f ms", request.method, request.path, response.status, milliseconds))
        return response
    }
}
