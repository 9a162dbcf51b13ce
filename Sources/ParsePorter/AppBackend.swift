import Foundation
import MirrorQuery
import ParseMirrorServer
import PorterMigrations
import PorterPipeline
import PorterREST
import PorterSQLite

/// A backend a ``ParseApp`` opens: how its jobs write to it, read from it and migrate it. Each
/// backend module provides one (the mirror and a Parse Server here, PostgreSQL in
/// ParsePorterPostgres), so that the handle compiles only the backends a program uses.
package protocol AppBackend: Sendable {
    /// The path or URL without keys or passwords, from the target as given.
    var redactedAddress: String { get }
    /// Checks the address and returns what messages call the backend (``ParseApp/location``).
    func open() throws(PorterError) -> String
    /// Whether there is anything to read yet (a mirror that the first import makes has not).
    var exists: Bool { get }
    /// The import options that suit the backend.
    var defaultImportOptions: ImportOptions { get }
    /// Whether the backend lists index keys in JSONB order (Parse Server's own answers do).
    var liveIndexKeysInJSONBOrder: Bool { get }
    /// Where an import writes.
    func sink() throws(PorterError) -> ObjectSink
    /// Where an export, a pull or a read into memory reads.
    func source() throws(PorterError) -> ObjectSource
    /// Where migrations, schema requests and queries go.
    func migrationTarget() throws(PorterError) -> MigrationTarget
}

extension AppBackend {
    package var exists: Bool { true }
    package var defaultImportOptions: ImportOptions { ImportOptions() }
    package var liveIndexKeysInJSONBOrder: Bool { false }
}

/// A SQLite mirror file.
struct MirrorApp: AppBackend {
    let path: String
    let create: Bool

    var redactedAddress: String { path }

    func open() throws(PorterError) -> String {
        try requireMirror()
        return path
    }

    var exists: Bool { FileManager.default.fileExists(atPath: path) }

    func sink() throws(PorterError) -> ObjectSink {
        try requireMirror()
        return SQLiteMirror(path: path)
    }

    func source() throws(PorterError) -> ObjectSource { try MirrorObjectSource(path: path) }

    func migrationTarget() throws(PorterError) -> MigrationTarget { try MirrorTarget(path: path, create: create) }

    private func requireMirror() throws(PorterError) {
        if !create, !FileManager.default.fileExists(atPath: path) { throw PorterError(.target, "\(path): no such mirror") }
    }
}

/// A Parse Server, spoken to over REST with the master key.
struct ServerApp: AppBackend {
    let url: String
    let applicationId: String
    let masterKey: String
    let allowInsecureHTTP: Bool

    var redactedAddress: String { ParseServerAddress.redacted(url) }

    func open() throws(PorterError) -> String { try address().description }

    var liveIndexKeysInJSONBOrder: Bool { true }

    func sink() throws(PorterError) -> ObjectSink { RESTSink(client: try client()) }

    func source() throws(PorterError) -> ObjectSource { RESTObjectSource(client: try client()) }

    func migrationTarget() throws(PorterError) -> MigrationTarget { ServerTarget(client: try client()) }

    private func address() throws(PorterError) -> ParseServerAddress {
        try ParseServerAddress(url: url, applicationId: applicationId, masterKey: masterKey, restAPIKey: nil, allowInsecureHTTP: allowInsecureHTTP)
    }

    private func client() throws(PorterError) -> ParseRESTClient { ParseRESTClient(address: try address()) }
}
