import Foundation
import ParseMirrorServer
import PorterHTTP
import PorterTestSupport
import XCTest

/// A Parse REST server over a mirror file, on a free loopback port in this test process,
/// optionally behind a ``FaultInjector``.
final class ServedMirror {
    static let applicationId = "porterTestApp"
    static let masterKey = "masterKey-7f3a9c-never-print-me"

    let path: String
    let server: HTTPServer
    let injector: FaultInjector
    let url: String

    init(path: String, allowCustomObjectId: Bool, faults: FaultInjector.Settings = .none, maintenanceKey: String? = nil) throws {
        self.path = path
        let api = try ParseMirrorAPI(mirrorPath: path, configuration: ParseServerConfiguration(
            applicationId: Self.applicationId, masterKey: Self.masterKey, allowCustomObjectId: allowCustomObjectId, maintenanceKey: maintenanceKey))
        injector = FaultInjector(api, settings: faults)
        server = HTTPServer(port: 0, handler: injector)
        let port = try server.start()
        url = "http://127.0.0.1:\(port)/parse"
    }

    /// A server over a new mirror file in a fresh temporary folder of `test`.
    convenience init(in test: XCTestCase, allowCustomObjectId: Bool = false, faults: FaultInjector.Settings = .none, maintenanceKey: String? = nil) throws {
        let directory = try CommandRunner.temporaryDirectory(test)
        try self.init(path: directory.appendingPathComponent("served.sqlite").path, allowCustomObjectId: allowCustomObjectId, faults: faults,
                      maintenanceKey: maintenanceKey)
    }

    deinit { server.stop() }

    /// The mirror file behind the server.
    var file: URL { URL(fileURLWithPath: path) }

    /// `parse-porter import DATASET --to <this server> ARGUMENTS…`, with the app id and master key.
    func runImport(_ dataset: String, _ arguments: [String] = [], environment: [String: String] = ServedMirror.environment) throws -> CommandRunner.Result {
        try CommandRunner.run(["import", dataset, "--to", url] + arguments, environment: environment)
    }

    /// The environment a `parse-porter` run needs to reach this server.
    static var environment: [String: String] {
        ["PARSE_APPLICATION_ID": applicationId, "PARSE_MASTER_KEY": masterKey]
    }
}

/// Test support, not product code: makes a seeded share of requests fail the ways a real
/// server and network do (500, 503, 429, dropped connections before or after the work,
/// stalls past the client's timeout), so tests can check that an import still ends with
/// exactly the right data.
final class FaultInjector: HTTPHandler, @unchecked Sendable {
    struct Settings: Sendable {
        var share: Double
        var seed: UInt64
        /// How long a stalled request waits before its connection is dropped.
        var stallSeconds: Double
        /// After this many answered writes, every connection is dropped: the server is gone for good.
        var goneAfterWrites: Int? = nil
        static let none = Settings(share: 0, seed: 1, stallSeconds: 0)
    }

    enum Fault: CaseIterable { case status500, status503, status429, dropBefore, dropAfter, stall }

    private let inner: any HTTPHandler
    private let settings: Settings
    private let lock = NSLock()
    private var random: SplitMix
    private(set) var injected: [Fault: Int] = [:]
    private var writeRequests = 0

    init(_ inner: any HTTPHandler, settings: Settings) {
        self.inner = inner
        self.settings = settings
        self.random = SplitMix(seed: settings.seed)
    }

    /// Requests that could write (POST, PUT, DELETE) answered so far.
    var writes: Int {
        lock.lock()
        defer { lock.unlock() }
        return writeRequests
    }

    var faultCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return injected.values.reduce(0, +)
    }

    func respond(to request: HTTPRequest) throws -> HTTPResponse {
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
