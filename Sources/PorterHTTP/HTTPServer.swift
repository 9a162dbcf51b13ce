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
    private let limits: Limits

    /// Guards the state below; broadcast when a server thread ends and when the server has stopped.
    private let condition = NSCondition()
    private var state = State.idle
    private var listener: Socket?
    private var boundPort = 0
    /// The connections served, with what each is doing.
    private var connections: [Socket: ConnectionActivity] = [:]
    /// Connections closed to make room that have not ended yet.
    private var evicted = 0
    /// The accept thread and the connection threads still running.
    private var runningThreads = 0

    /// What one connection may cost the server.
    public struct Limits: Sendable {
        /// Larger request bodies are answered with 413 and the connection closed. Parse Server's
        /// `maxUploadSize` default: 20 MB.
        public var maxBodyBytes: Int
        /// Seconds a connection may wait for the client's next request, and each read or write
        /// may stall, before it is closed; 0 or less waits forever.
        public var idleTimeout: Double
        /// Seconds from a request's first byte until its whole head and body have arrived;
        /// past it the request is answered with 408 and the connection closed (slow clients
        /// cannot hold a thread and a partial body forever); 0 or less has no deadline.
        public var requestTimeout: Double
        /// Connections served at once. When all are taken, a new connection takes the place of
        /// the idle one (no request under way) that has been idle longest, else of the one that
        /// has been receiving a request longest, if for ``idleTimeoutAtCapacity``; when there is
        /// none (every connection is being answered) it is answered 503 and closed.
        public var maxConnections: Int
        /// Seconds a connection may take to send a request it has begun once the server serves
        /// ``maxConnections`` and another connection arrives; past it, it is closed to make room.
        /// So connections that stay open saying nothing, or trickle a request, cannot keep
        /// clients out: a client that sends its request at once is answered.
        public var idleTimeoutAtCapacity: Double

        /// Parse Server's body limit, a minute's idle time (one second when connections are all
        /// taken), 30 seconds per request, 128 connections.
        public init(
            maxBodyBytes: Int = 20 * 1024 * 1024, idleTimeout: Double = 60, requestTimeout: Double = 30, maxConnections: Int = 128,
            idleTimeoutAtCapacity: Double = 1
        ) {
            self.maxBodyBytes = maxBodyBytes
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
            self.maxConnections = maxConnections
            self.idleTimeoutAtCapacity = idleTimeoutAtCapacity
        }
    }

    /// A server for `handler` on `host` (`127.0.0.1`, `0.0.0.0`, `::1`, `::` or a host name).
    ///
    /// - Parameters:
    ///   - port: The port to listen on; 0 lets the system choose a free one.
    ///   - limits: Body size, timeouts and the number of connections served at once.
    ///
    /// ```swift
    /// let server = HTTPServer(handler: try ParseMirrorAPI(mirrorPath: path, configuration: configuration))
    /// let port = try server.start()
    /// defer { server.stop() }
    /// ```
    public init(host: String = "127.0.0.1", port: Int = 0, handler: any HTTPHandler, limits: Limits = Limits()) {
        self.host = host
        self.requestedPort = port
        self.handler = handler
        self.limits = limits
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
            for connection in connections.keys { connection.shutdown() }
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
                switch register(socket) {
                case .accepted(let activity): spawn("PorterHTTP connection") { self.serve(socket, activity) }
                case .busy: refuse(socket)
                case .stopping: socket.close()
                }
            case .retry:
                continue
            case .failed:
                threadFinished()
                return
            }
        }
    }

    private enum Registration { case accepted(ConnectionActivity), busy, stopping }

    /// Counts a new connection's thread, unless the server is stopping or already serves
    /// ``Limits/maxConnections`` connections and none has waited long enough for its client to
    /// be closed in its favour.
    private func register(_ socket: Socket) -> Registration {
        condition.lock()
        defer { condition.unlock() }
        guard state == .running else { return .stopping }
        guard connections.count - evicted < limits.maxConnections || evictLongestWaiting() else { return .busy }
        let activity = ConnectionActivity()
        connections[socket] = activity
        runningThreads += 1
        return .accepted(activity)
    }

    /// Closes, to make room, the connection idle longest, else the one receiving a request
    /// longest if for ``Limits/idleTimeoutAtCapacity``; whether one was. Called with `condition` locked.
    private func evictLongestWaiting() -> Bool {
        let now = ContinuousClock.now, grace = Duration.milliseconds(Int64(limits.idleTimeoutAtCapacity * 1000))
        let waiting = connections.compactMap { socket, activity in activity.waiting.map { (socket, activity, $0) } }
            .filter { !$0.2.receiving || now - $0.2.since >= grace }
            .sorted { ($0.2.receiving ? 1 : 0, $0.2.since) < ($1.2.receiving ? 1 : 0, $1.2.since) }
        for (socket, activity, _) in waiting where activity.evict() {
            evicted += 1
            socket.shutdown()
            return true
        }
        return false
    }

    /// Answers a connection over the limit with 503 and closes it, without reading its request
    /// (and without waiting for a client that does not read).
    private func refuse(_ socket: Socket) {
        socket.configureConnection(timeout: 0.1)
        _ = socket.sendAll(HTTPResponse.tooManyConnections.serialized(connection: .close, isHeadRequest: false))
        socket.shutdownWrite()
        socket.close()
    }

    private func serve(_ socket: Socket, _ activity: ConnectionActivity) {
        socket.configureConnection(timeout: limits.idleTimeout)
        HTTPConnection(socket: socket, handler: handler, limits: limits, activity: activity).run()
        condition.lock()
        connections[socket] = nil
        if activity.wasEvicted { evicted -= 1 }
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

/// What one connection is doing, as the accept thread sees it when it looks for a connection to
/// close: idle (no request under way), receiving a request, or answering one, which is never cut.
final class ConnectionActivity: @unchecked Sendable {
    private let lock = NSLock()
    /// Since when the connection has been idle or receiving; `nil` while it answers.
    private var since: ContinuousClock.Instant? = .now
    private var receiving = false
    private var closed = false

    /// Since when the connection has waited for its client, and whether it has begun a request;
    /// `nil` while a request is answered (or once it was closed to make room).
    var waiting: (since: ContinuousClock.Instant, receiving: Bool)? {
        lock.lock()
        defer { lock.unlock() }
        guard !closed, let since else { return nil }
        return (since, receiving)
    }

    var wasEvicted: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    /// Marks the connection idle from now: waiting for its next request.
    func idle() {
        lock.lock()
        since = .now
        receiving = false
        lock.unlock()
    }

    /// Marks a request as begun (its first bytes arrived), unless one already is.
    func receivingRequest() {
        lock.lock()
        if !receiving, since != nil {
            receiving = true
            since = .now
        }
        lock.unlock()
    }

    /// Marks a whole request as being answered; false when the connection was closed to make
    /// room first (the request is then dropped, never half answered).
    func answering() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        since = nil
        return !closed
    }

    /// Marks the connection as closed to make room, if it is still waiting for its client.
    func evict() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard since != nil, !closed else { return false }
        closed = true
        return true
    }
}
