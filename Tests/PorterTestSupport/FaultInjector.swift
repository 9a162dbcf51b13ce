import Foundation
import PorterHTTP

/// Test support, not product code: makes a seeded share of requests fail the ways a real
/// server and network do (500, 503, 429, dropped connections before or after the work,
/// stalls past the client's timeout), so tests can check that an import still ends with
/// exactly the right data.
public final class FaultInjector: HTTPHandler, @unchecked Sendable {
    public struct Settings: Sendable {
        /// The share of requests (0...1) that fail.
        public var share: Double
        public var seed: UInt64
        /// How long a stalled request waits before its connection is dropped.
        public var stallSeconds: Double
        /// After this many answered writes, every connection is dropped: the server is gone for good.
        public var goneAfterWrites: Int?
        public static let none = Settings(share: 0, seed: 1, stallSeconds: 0)

        public init(share: Double, seed: UInt64, stallSeconds: Double, goneAfterWrites: Int? = nil) {
            self.share = share
            self.seed = seed
            self.stallSeconds = stallSeconds
            self.goneAfterWrites = goneAfterWrites
        }
    }

    public enum Fault: CaseIterable { case status500, status503, status429, dropBefore, dropAfter, stall }

    private let inner: any HTTPHandler
    private let settings: Settings
    private let lock = NSLock()
    private var random: SplitMix
    public private(set) var injected: [Fault: Int] = [:]
    private var writeRequests = 0

    public init(_ inner: any HTTPHandler, settings: Settings) {
        self.inner = inner
        self.settings = settings
        self.random = SplitMix(seed: settings.seed)
    }

    /// Requests that could write (POST, PUT, DELETE) answered so far.
    public var writes: Int {
        lock.lock()
        defer { lock.unlock() }
        return writeRequests
    }

    public var faultCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return injected.values.reduce(0, +)
    }

    public func respond(to request: HTTPRequest) throws -> HTTPResponse {
        if let gone = settings.goneAfterWrites, writes >= gone { throw HTTPAbort() }
        let fault = nextFault(for: request)
        switch fault {
        case .status500?: return Self.error(500, #"{"code":1,"message":"Internal server error."}"#)
        case .status503?: return Self.error(503, #"{"error":"Service Unavailable"}"#)
        case .status429?:
            var response = Self.error(429, #"{"code":100,"error":"Too many requests."}"#)
            response.headers.add("Retry-After", "0")
            return response
        case .dropBefore?: throw HTTPAbort()
        case .stall?:
            Thread.sleep(forTimeInterval: settings.stallSeconds)
            throw HTTPAbort()
        case .dropAfter?:
            _ = try inner.respond(to: request)
            throw HTTPAbort()
        case nil:
            let response = try inner.respond(to: request)
            if request.method != "GET" {
                lock.lock()
                writeRequests += 1
                lock.unlock()
            }
            return response
        }
    }

    private func nextFault(for request: HTTPRequest) -> Fault? {
        guard settings.share > 0, !request.path.hasSuffix("/health") else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard random.nextDouble() < settings.share else { return nil }
        let fault = Fault.allCases[Int(random.next() % UInt64(Fault.allCases.count))]
        injected[fault, default: 0] += 1
        return fault
    }

    private static func error(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(body.utf8))
    }
}
