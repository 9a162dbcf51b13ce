import Foundation

/// A small HTTP/1.1 server over blocking POSIX sockets, one thread per connection.
///
/// It keeps connections alive (pipelined requests included), reads request bodies whole
/// (`Content-Length` or chunked, answering `Expect: 100-continue`), and calls the handler on
/// the connection's thread, so several calls may run at once.
///
/// ```swift
/// let server = HTTPServer(handler: BookHandler())
/// let port = try server.start()
/// defer { server.stop() }
/// ```
///
/// A server starts once; after ``stop()`` make a new one.
public final class HTTPServer: @unchecked Sendable {
    private enum State { case idle, running, stopping, stopped }

    private let host: String
    private let requestedPort: Int
    private let handler: any HTTPHandler
    private let maxBodyBytes: Int
    private let idleTimeout: Double

    /// Guards the state below; broadcast when a server thread ends and when the server has stopped.
    private let condition = NSCondition()
    private var state = State.idle
    private var listener: Socket?
    private var boundPort = 0
    private var connections: Set<Socket> = []
    /// The accept thread and the connection threads still running.
    private var runningThreads = 0

    /// A server for `handler` on `host` (`127.0.0.1`, `0.0.0.0`, `::1`, `::` or a host name).
    ///
    /// - Parameters:
    ///   - port: The port to listen on; 0 lets the system choose a free one.
    ///   - maxBodyBytes: Larger request bodies are answered with 413 and the connection closed.
    ///   - idleTimeout: Seconds a connection may wait for the client's next bytes before it is
    ///     closed; 0 or less waits forever.
    public init(host: String = "127.0.0.1", port: Int = 0, handler: any HTTPHandler, maxBodyBytes: Int = 20 * 1024 * 1024,
                idleTimeout: Double = 60) {
        self.host = host
        self.requestedPort = port
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        self.idleTimeout = idleTimeout
    }

    /// Binds and listens, then accepts connections on a background thread.
    ///
    /// - Returns: The bound port, the system's choice when `port` was 0.
    /// - Throws: ``SocketError`` when the address cannot be bound, e.g. the port is in use.
    @discardableResult
    public func start() throws -> Int {
        condition.lock()
        defer { condition.unlock() }
        precondition(state == .idle, "HTTPServer.start() called on a server that was already started")
        let socket = try Socket.listening(host: host, port: requestedPort)
        do {
            boundPort = try socket.localPort()
        } catch {
            socket.close()
            throw error
        }
        listener = socket
        state = .running
        runningThreads += 1
        spawn("PorterHTTP accept \(boundPort)") { self.acceptConnections(on: socket) }
        return boundPort
    }

    /// The bound port; 0 before ``start()``.
    public var port: Int {
        condition.lock()
        defer { condition.unlock() }
        return boundPort
    }

    /// Stops accepting, closes every connection (a request being handled loses its response)
    /// and waits until every connection thread has finished. Safe to call more than once; never
    /// call it from a handler, which would wait for itself.
    public func stop() {
        condition.lock()
        defer { condition.unlock() }
        switch state {
        case .idle:
            state = .stopped
            condition.broadcast()
        case .running:
            state = .stopping
            listener?.shutdown()
            connections.forEach { $0.shutdown() }
            while runningThreads > 0 { condition.wait() }
            listener?.close()
            listener = nil
            state = .stopped
            condition.broadcast()
        case .stopping, .stopped:
            while state != .stopped { condition.wait() }
        }
    }

    /// Blocks the calling thread until ``stop()`` has finished.
    public func wait() {
        condition.lock()
        defer { condition.unlock() }
        while state != .stopped { condition.wait() }
    }

    private func acceptConnections(on listener: Socket) {
        while true {
            switch listener.accept() {
            case .connection(let socket):
                guard register(socket) else {
                    socket.close()
                    continue
                }
                spawn("PorterHTTP connection") { self.serve(socket) }
            case .retry:
                continue
            case .failed:
                threadFinished()
                return
            }
        }
    }

    /// Counts a new connection's thread; false once the server is stopping.
    private func register(_ socket: Socket) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard state == .running else { return false }
        connections.insert(socket)
        runningThreads += 1
        return true
    }

    private func serve(_ socket: Socket) {
        socket.configureConnection(timeout: idleTimeout)
        HTTPConnection(socket: socket, handler: handler, maxBodyBytes: maxBodyBytes).run()
        condition.lock()
        connections.remove(socket)
        socket.close()
        condition.unlock()
        threadFinished()
    }

    private func threadFinished() {
        condition.lock()
        runningThreads -= 1
        condition.broadcast()
        condition.unlock()
    }

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = name
        thread.start()
    }
}
