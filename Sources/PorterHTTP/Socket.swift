import Glibc

/// A failed socket call: what was attempted and the C library's reason.
public struct SocketError: Error, CustomStringConvertible, Sendable {
    /// What was attempted, e.g. `bind 127.0.0.1 port 8080`.
    public let operation: String
    /// The C library's text for the failure, e.g. `Address already in use`.
    public let reason: String

    /// `<operation>: <reason>`.
    public var description: String { "\(operation): \(reason)" }

    /// The error the last failed call left in `errno`.
    static func lastError(_ operation: String) -> SocketError {
        SocketError(operation: operation, reason: String(cString: strerror(errno)))
    }
}

/// A socket descriptor and the few blocking calls the server makes on it.
struct Socket: Hashable, Sendable {
    let descriptor: Int32

    /// What `accept()` produced.
    enum Accepted {
        case connection(Socket)
        /// A transient failure (interrupted call, aborted handshake, descriptors exhausted).
        case retry
        /// The listening socket was shut down or is unusable.
        case failed
    }

    /// A socket bound to `host` (a numeric IPv4 or IPv6 address, or a host name) and listening.
    static func listening(host: String, port: Int) throws -> Socket {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        defer { freeaddrinfo(list) }
        guard status == 0, let info = list?.pointee else {
            throw SocketError(operation: "resolve \(host)", reason: String(cString: gai_strerror(status)))
        }
        let descriptor = Glibc.socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
        guard descriptor >= 0 else { throw SocketError.lastError("socket") }
        let socket = Socket(descriptor: descriptor)
        socket.setFlag(SOL_SOCKET, SO_REUSEADDR)
        guard bind(descriptor, info.ai_addr, info.ai_addrlen) == 0 else {
            let error = SocketError.lastError("bind \(host) port \(port)")
            socket.close()
            throw error
        }
        guard listen(descriptor, SOMAXCONN) == 0 else {
            let error = SocketError.lastError("listen on \(host) port \(port)")
            socket.close()
            throw error
        }
        return socket
    }

    /// Waits for the next connection on this listening socket.
    func accept() -> Accepted {
        let accepted = Glibc.accept(descriptor, nil, nil)
        if accepted >= 0 {
            _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)  // keep it out of child processes
            return .connection(Socket(descriptor: accepted))
        }
        switch errno {
        case EINTR, ECONNABORTED, EPROTO:
            return .retry
        case EMFILE, ENFILE, ENOBUFS, ENOMEM:
            usleep(10_000)  // let other connections finish and free descriptors
            return .retry
        default:
            return .failed
        }
    }

    /// The port this socket is bound to.
    func localPort() throws -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { throw SocketError.lastError("getsockname") }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        }
    }

    /// The peer's numeric address: dotted IPv4 (also for IPv4-mapped IPv6 peers) or textual IPv6.
    func peerAddress() -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> Int32 in
                guard getpeername(descriptor, address, &length) == 0 else { return -1 }
                return getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST)
            }
        }
        guard status == 0 else { return "" }
        let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let mappedPrefix = "::ffff:"
        if text.hasPrefix(mappedPrefix), text.contains(".") { return String(text.dropFirst(mappedPrefix.count)) }
        return text
    }

    /// Turns off Nagle's algorithm and bounds every blocking read and write by `timeout` seconds
    /// (none when `timeout` is not positive).
    func configureConnection(timeout: Double) {
        setFlag(Int32(IPPROTO_TCP), Int32(TCP_NODELAY))
        if timeout > 0 {
            setTimeout(SO_RCVTIMEO, seconds: timeout)
            setTimeout(SO_SNDTIMEO, seconds: timeout)
        }
    }

    /// Bounds each later `receive` by `seconds`.
    func setReceiveTimeout(_ seconds: Double) { setTimeout(SO_RCVTIMEO, seconds: seconds) }

    /// Reads what has arrived (waiting for at least one byte) into `buffer`: the byte count,
    /// 0 at end of stream, -1 on error or timeout.
    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count >= 0 || errno != EINTR { return count }
        }
    }

    /// Writes all of `bytes`; false when the peer is gone or the write timed out.
    func sendAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let count = send(descriptor, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
    }

    /// Stops writing; the peer reads end of stream once it has everything sent so far.
    func shutdownWrite() { Glibc.shutdown(descriptor, Int32(SHUT_WR)) }

    /// Ends both directions, waking any thread blocked on this socket (also a blocked `accept`).
    func shutdown() { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }

    func close() { Glibc.close(descriptor) }

    private func setFlag(_ level: Int32, _ option: Int32) {
        var one: Int32 = 1
        setsockopt(descriptor, level, option, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    private func setTimeout(_ option: Int32, seconds: Double) {
        let whole = seconds.rounded(.down)
        var value = timeval(tv_sec: Int(whole), tv_usec: Int((seconds - whole) * 1_000_000))
        setsockopt(descriptor, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<timeval>.size))
    }
}
