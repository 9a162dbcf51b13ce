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
            Objects, queries, schemas, batch, users and sessions, with Parse Server's status codes, error codes and JSON shapes. An empty mirror is created when the file does not exist. Credentials default to PARSE_APPLICATION_ID, PARSE_MASTER_KEY and PARSE_REST_API_KEY (or Parse Server's PARSE_SERVER_* names); keys are never printed.

            Prints one line, "serving MIRROR at URL", then one line per request on stderr (time, method, path, status, milliseconds, and the cause of an internal error) unless --quiet. Stops on Ctrl-C or SIGTERM.

            Examples:
              PARSE_APPLICATION_ID=library PARSE_MASTER_KEY=… parse-porter serve \\
                  app.sqlite
              parse-porter serve /tmp/app.sqlite --port 0 --mount / --app-id app \\
                  --master-key "$KEY" --allow-custom-object-id
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

    @Flag(
        help:
            "Let clients without the master key create classes by saving their first object (Parse Server's allowClientClassCreation; off by default, as in Parse Server 7)."
    )
    var allowClientClassCreation = false

    @Flag(name: .shortAndLong, help: "No request log.")
    var quiet = false

    @Option(help: "Connections served at once; more are answered 503.")
    var maxConnections = 128

    @Option(help: "Seconds a request's head and body may take to arrive; then 408.")
    var requestTimeout = 30.0

    @Option(help: "The largest request body in MB; larger is 413.")
    var maxBodyMb = 20

    @Option(help: "Sub-requests in one batch; more is 107.")
    var batchLimit = 100

    @Option(help: "Seconds a query may run; then 124. Also the longest a batch with transaction: true holds the write lock.")
    var queryTimeout = 10.0

    @Option(
        help: "Seconds a batch may hold the write lock while other requests wait for it; then a transaction is undone (124), other batches let them go first.")
    var batchLockTime = 0.25

    @Option(help: "MB of results all requests being answered may hold together beyond 1 MB each; a query past it is 429.")
    var resultMemoryMb = 128

    func run() throws {
        guard let applicationId = keys.applicationId else {
            throw PorterError(.invalidRequest, "serve needs an application id: --app-id, PARSE_APPLICATION_ID or PARSE_SERVER_APPLICATION_ID")
        }
        guard let masterKey = keys.masterKey else {
            throw PorterError(.invalidRequest, "serve needs a master key: --master-key, PARSE_MASTER_KEY or PARSE_SERVER_MASTER_KEY")
        }
        guard (0...65535).contains(port) else { throw PorterError(.invalidRequest, "--port must be 0...65535") }
        for (name, value) in [
            ("--max-connections", Double(maxConnections)), ("--request-timeout", requestTimeout),
            ("--max-body-mb", Double(maxBodyMb)), ("--batch-limit", Double(batchLimit)), ("--query-timeout", queryTimeout),
            ("--batch-lock-time", batchLockTime), ("--result-memory-mb", Double(resultMemoryMb)),
        ]
        where !(value > 0 && value <= 1_000_000) {
            throw PorterError(.invalidRequest, "\(name) must be a positive number up to 1000000")
        }
        var limits = RequestLimits()
        limits.batchRequests = batchLimit
        limits.queryTimeLimit = queryTimeout
        limits.batchLockTime = batchLockTime
        limits.resultMemory = resultMemoryMb * 1024 * 1024
        let configuration = ParseServerConfiguration(
            applicationId: applicationId, masterKey: masterKey, restAPIKey: keys.restAPIKey,
            mountPath: mount, allowCustomObjectId: allowCustomObjectId, allowClientClassCreation: allowClientClassCreation,
            maintenanceKey: keys.maintenanceKey, limits: limits)
        let server: MirrorServer
        do {
            server = try MirrorServer(
                mirror: mirror, configuration: configuration, host: host, port: port,
                limits: HTTPServer.Limits(
                    maxBodyBytes: maxBodyMb * 1024 * 1024, requestTimeout: requestTimeout, maxConnections: maxConnections)
            ) { api in
                quiet ? api : RequestLog(api) as any HTTPHandler
            }
        } catch let error as SocketError {
            throw PorterError(.target, "cannot listen on \(host):\(port): \(error)")
        }
        // Dispatch installs its signal handler on a thread of its own some time after `resume()`;
        // the line is printed once it has, so that a signal sent after it always stops the
        // server. Not ignored meanwhile (`SIG_IGN` would lose it and leave `serve` running):
        // until then a signal ends the process by its default action.
        let registered = DispatchGroup()
        let signals = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { server.stopAndWait() }
            registered.enter()
            source.setRegistrationHandler { registered.leave() }
            source.resume()
            return source
        }
        registered.wait()
        Terminal.output("serving \(mirror) at \(server.url.absoluteString)")
        server.wait()
        for signal in signals { signal.cancel() }
    }
}
