import Dispatch
import Foundation
import PorterCore
import PorterHTTP

/// A Parse REST API over a SQLite mirror file, served on a loopback port in this process: the
/// fixture a ParseSwift or Parse JS app's test suite points its server URL at, and what
/// `parse-porter serve` runs.
///
/// The mirror file is created (empty) when it does not exist; ``stop()`` closes it, leaving no
/// `-wal` or `-shm` file beside it.
///
/// ```swift
/// import Foundation
/// import FoundationNetworking  // on Linux, for URLSession
/// import ParseMirrorServer
///
/// let mirror = FileManager.default.temporaryDirectory.appendingPathComponent("app-tests.sqlite").path
/// let server = try await MirrorServer.start(
///     mirror: mirror, configuration: ParseServerConfiguration(applicationId: "app", masterKey: "test-master-key"))
/// var request = URLRequest(url: server.url.appendingPathComponent("classes/Book"))
/// request.setValue("app", forHTTPHeaderField: "X-Parse-Application-Id")
/// let (body, response) = try await URLSession.shared.data(for: request)
/// // (response as? HTTPURLResponse)?.statusCode == 200; body is {"results":[…]}
/// await server.stop()
/// ```
public final class MirrorServer: Sendable {
    /// Where the API answers, with its mount path: `http://127.0.0.1:PORT/parse`.
    public let url: URL
    /// The port listened on; the system's choice when started with port 0.
    public let port: Int
    /// The mirror file served.
    public let mirrorPath: String
    /// The API behind the server, for calling it without a socket.
    public let api: ParseMirrorAPI
    private let http: HTTPServer

    /// Opens (or creates) the mirror at `mirror` and serves it on `host` and `port`.
    ///
    /// - Parameters:
    ///   - mirror: The mirror file. Not `":memory:"`, `""` or a `file:` URI: the server's
    ///     connections share one file, so use a file in a temporary folder for tests.
    ///   - configuration: The app id, keys and mount path clients must use.
    ///   - host: The address to listen on; `127.0.0.1` by default.
    ///   - port: The port to listen on; 0 (the default) picks a free one.
    ///   - limits: Request body size, timeouts and connections served at once.
    /// - Throws: `PorterError` when the mirror cannot be opened or is not a file path;
    ///   `SocketError` when the address cannot be bound.
    public static func start(
        mirror: String, configuration: ParseServerConfiguration, host: String = "127.0.0.1", port: Int = 0,
        limits: HTTPServer.Limits = HTTPServer.Limits()
    ) async throws -> MirrorServer {
        try await offCooperativePool {
            try MirrorServer(mirror: mirror, configuration: configuration, host: host, port: port, limits: limits)
        }
    }

    /// Opens the mirror and starts serving before returning; `handler` wraps the API (a request
    /// log, injected faults). The blocking form of ``start(mirror:configuration:host:port:limits:)``.
    package init(
        mirror: String, configuration: ParseServerConfiguration, host: String = "127.0.0.1", port: Int = 0,
        limits: HTTPServer.Limits = HTTPServer.Limits(),
        handler: (ParseMirrorAPI) -> any HTTPHandler = { $0 }
    ) throws {
        api = try ParseMirrorAPI(mirrorPath: mirror, configuration: configuration)
        http = HTTPServer(host: host, port: port, handler: handler(api), limits: limits)
        do {
            self.port = try http.start()
        } catch {
            api.close()
            throw error
        }
        let address = host.contains(":") ? "[\(host)]" : host
        let mountPath = configuration.normalizedMountPath.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
        guard let url = URL(string: "http://\(address):\(self.port)\(mountPath)") else {
            http.stop()
            api.close()
            throw PorterError(.invalidRequest, "\(host) cannot be the host of a URL; give an IP address or a host name")
        }
        self.url = url
        mirrorPath = mirror
    }

    /// Stops accepting connections, cuts the open ones (a request being answered loses its
    /// response; its work is bounded by ``RequestLimits/queryTimeLimit``), waits for the
    /// handlers running, and closes the mirror. Safe to call more than once.
    public func stop() async {
        await offCooperativePool { self.stopAndWait() }
    }

    /// The blocking form of ``stop()``; never call it from a request handler.
    package func stopAndWait() {
        http.stop()
        api.close()
    }

    /// Blocks the calling thread until the server has stopped (by ``stop()`` on another thread)
    /// and closed the mirror.
    package func wait() {
        http.wait()
        api.close()
    }

    /// A server released without ``stop()`` stops then, blocking the releasing thread meanwhile.
    deinit { stopAndWait() }
}

/// Runs blocking work (opening SQLite, joining server threads) on a thread of its own, so it
/// never holds one of Swift concurrency's few cooperative threads.
private func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

private func offCooperativePool(_ work: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            work()
            continuation.resume()
        }
    }
}
