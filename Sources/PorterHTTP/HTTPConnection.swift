/// Serves one accepted connection on the calling thread: reads requests, calls the handler and
/// writes the responses, until either side closes. Closing the socket is left to the caller.
final class HTTPConnection {
    private let socket: Socket
    private let handler: any HTTPHandler
    private let limits: HTTPServer.Limits
    private let remoteAddress: String
    /// What the server sees of this connection: waiting for the client, or answering.
    private let activity: ConnectionActivity
    /// Received bytes not consumed yet: the rest of a request, or requests pipelined behind it.
    private var buffer: [UInt8] = []
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)

    /// When the request being read must have arrived whole; nil between requests.
    private var deadline: ContinuousClock.Instant?

    init(socket: Socket, handler: any HTTPHandler, limits: HTTPServer.Limits, activity: ConnectionActivity = ConnectionActivity()) {
        self.socket = socket
        self.activity = activity
        self.handler = handler
        self.limits = limits
        self.remoteAddress = socket.peerAddress()
    }

    deinit { scratch.deallocate() }

    /// Answers requests until the peer closes or goes idle, a response closes the connection, or
    /// a request cannot be read.
    func run() {
        while true {
            let received: (head: RequestHead, body: [UInt8])?
            do {
                received = try readRequest()
            } catch {
                reject(error)
                return
            }
            guard let (head, body) = received, activity.answering(), respond(to: head, body: body) else { return }
            activity.idle()
        }
    }

    /// The next request, or nil when the peer closed or went idle first; ``HTTPRequestError/timedOut``
    /// when it started arriving but did not arrive whole within the request timeout.
    private func readRequest() throws(HTTPRequestError) -> (head: RequestHead, body: [UInt8])? {
        deadline = nil
        defer { deadline = nil }
        while true {
            if !buffer.isEmpty { startDeadline() }
            if let (head, length) = try HTTPParser.parseHead(buffer[...]) {
                buffer.removeFirst(length)
                return try readBody(of: head).map { (head, $0) }
            }
            guard try receive() else { return nil }
        }
    }

    /// Starts the request timeout at the request's first byte.
    private func startDeadline() {
        guard deadline == nil, limits.requestTimeout > 0 else { return }
        deadline = .now + .milliseconds(Int64(limits.requestTimeout * 1000))
    }

    private func readBody(of head: RequestHead) throws(HTTPRequestError) -> [UInt8]? {
        switch head.bodyFraming {
        case .none:
            return []
        case .length(let length):
            guard length <= limits.maxBodyBytes else { throw .bodyTooLarge }
            guard sendContinueIfAwaited(head) else { return nil }
            // Memory grows with what arrives, not with what the header announces.
            buffer.reserveCapacity(min(length, 1 << 20))
            while buffer.count < length {
                guard try receive() else { return nil }
            }
            defer { buffer.removeFirst(length) }
            return Array(buffer[..<length])
        case .chunked:
            guard sendContinueIfAwaited(head) else { return nil }
            var decoder = ChunkedDecoder(maxBodyBytes: limits.maxBodyBytes)
            while true {
                buffer.removeFirst(try decoder.consume(buffer[...]))
                if decoder.isComplete { return decoder.body }
                guard try receive() else { return nil }
            }
        }
    }

    /// Sends `100 Continue` when the client waits for it before sending the body; false when that failed.
    private func sendContinueIfAwaited(_ head: RequestHead) -> Bool {
        guard head.expectsContinue, buffer.isEmpty else { return true }
        return socket.sendAll(HTTPResponse.continueBytes)
    }

    /// Calls the handler and sends its response; whether to read another request.
    private func respond(to head: RequestHead, body: [UInt8]) -> Bool {
        let (path, query) = HTTPParser.splitTarget(head.target)
        let request = HTTPRequest(
            method: head.method, path: path, query: query, headers: head.headers, body: body,
            remoteAddress: remoteAddress)
        let response: HTTPResponse
        do {
            response = try handler.respond(to: request)
        } catch is HTTPAbort {
            return false
        } catch {
            response = .internalServerError
        }
        let keepAlive = head.keepAlive && !response.asksToClose
        let connection: HTTPResponse.ConnectionHeader = !keepAlive ? .close : head.minorVersion == 0 ? .keepAlive : .none
        let isHeadRequest = head.method == "HEAD"
        // A large body is sent after the head rather than copied behind it, and the response,
        // with what it keeps until sent, lives until both are.
        return withExtendedLifetime(response) {
            guard response.body.count > 65536 else { return socket.sendAll(response.serialized(connection: connection, isHeadRequest: isHeadRequest)) }
            guard socket.sendAll(response.head(connection: connection)) else { return false }
            return !response.sendsBody(isHeadRequest: isHeadRequest) || socket.sendAll(response.body)
        } && keepAlive
    }

    /// Answers an unreadable request and closes gracefully: stops writing, then drops what the
    /// client still sends (for up to two seconds) so that closing does not reset the connection
    /// before the client has read the answer.
    private func reject(_ error: HTTPRequestError) {
        guard socket.sendAll(error.response.serialized(connection: .close, isHeadRequest: false)) else { return }
        socket.shutdownWrite()
        socket.setReceiveTimeout(0.5)
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, socket.receive(into: scratch) > 0 {}
    }

    /// Appends what arrives next to `buffer`; false at end of stream, on error or when idle past
    /// the idle timeout; ``HTTPRequestError/timedOut`` once the request's deadline has passed.
    private func receive() throws(HTTPRequestError) -> Bool {
        if let deadline {
            let remaining = deadline - .now
            guard remaining > .zero else { throw .timedOut }
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            socket.setReceiveTimeout(max(0.001, limits.idleTimeout > 0 ? min(seconds, limits.idleTimeout) : seconds))
        } else {
            socket.setReceiveTimeout(max(limits.idleTimeout, 0))
        }
        let count = socket.receive(into: scratch)
        guard count > 0 else {
            if count < 0, let deadline, ContinuousClock.now >= deadline { throw .timedOut }
            return false
        }
        buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count]))
        activity.receivingRequest()
        startDeadline()
        return true
    }
}
