import Foundation
import ParseMirrorServer
import PorterHTTP
import XCTest

/// The tests' Parse server: a ``MirrorServer`` over a mirror file on a free 127.0.0.1 port in
/// this process, behind a ``FaultInjector`` (which passes every request through unless told to
/// fail some). Stopped when the test ends (made `in:` a test), by ``stop()``, or when released.
public final class ServedMirror: Sendable {
    public static let applicationId = "porterTestApp"
    public static let masterKey = "masterKey-7f3a9c-never-print-me"

    public let server: MirrorServer
    public let injector: FaultInjector

    /// Serves the mirror at `path` (created when missing).
    public init(
        path: String, configuration: ParseServerConfiguration = ServedMirror.configuration(), faults: FaultInjector.Settings = .none,
        limits: HTTPServer.Limits = HTTPServer.Limits()
    ) throws {
        var wrapper: FaultInjector?
        server = try MirrorServer(mirror: path, configuration: configuration, limits: limits) { api in
            let injector = FaultInjector(api, settings: faults)
            wrapper = injector
            return injector
        }
        injector = wrapper!
    }

    /// Serves the mirror at `path` with ``applicationId`` and ``masterKey``.
    public convenience init(path: String, allowCustomObjectId: Bool, faults: FaultInjector.Settings = .none, maintenanceKey: String? = nil) throws {
        try self.init(
            path: path, configuration: Self.configuration(allowCustomObjectId: allowCustomObjectId, maintenanceKey: maintenanceKey),
            faults: faults)
    }

    /// A server over a new mirror file in a fresh temporary folder; both gone when `test` ends.
    public convenience init(
        in test: XCTestCase, configuration: ParseServerConfiguration, faults: FaultInjector.Settings = .none,
        limits: HTTPServer.Limits = HTTPServer.Limits()
    ) throws {
        let folder = try TemporaryFolder("served")
        try self.init(path: folder.appending("served.sqlite").path, configuration: configuration, faults: faults, limits: limits)
        test.addTeardownBlock { [self] in
            stop()
            folder.remove()
        }
    }

    /// A server over a new mirror file with ``applicationId`` and ``masterKey``; gone when `test` ends.
    public convenience init(
        in test: XCTestCase, allowCustomObjectId: Bool = false, faults: FaultInjector.Settings = .none,
        maintenanceKey: String? = nil
    ) throws {
        try self.init(
            in: test, configuration: Self.configuration(allowCustomObjectId: allowCustomObjectId, maintenanceKey: maintenanceKey),
            faults: faults)
    }

    /// ``applicationId`` and ``masterKey`` at `/parse`.
    public static func configuration(allowCustomObjectId: Bool = false, maintenanceKey: String? = nil) -> ParseServerConfiguration {
        ParseServerConfiguration(
            applicationId: applicationId, masterKey: masterKey, allowCustomObjectId: allowCustomObjectId,
            maintenanceKey: maintenanceKey)
    }

    /// Stops the server and closes the mirror; safe to call more than once.
    public func stop() { server.stopAndWait() }

    /// The mirror file behind the server.
    public var path: String { server.mirrorPath }
    public var file: URL { URL(fileURLWithPath: path) }
    /// `http://127.0.0.1:PORT/parse`.
    public var url: String { server.url.absoluteString }
    public var port: Int { server.port }
    public var api: ParseMirrorAPI { server.api }

    /// The environment a `parse-porter` run needs to reach a server with ``applicationId`` and ``masterKey``.
    public static var environment: [String: String] {
        ["PARSE_APPLICATION_ID": applicationId, "PARSE_MASTER_KEY": masterKey]
    }
}
