import Foundation
import ParseMirrorServer
import ParseModel
import PorterMigrations
import PorterREST
import PorterSQLite
@_exported import PorterTestSupport
import XCTest

/// The two kinds of migration target a test runs against, each over its own fresh mirror file:
/// the mirror itself, and a Parse Server (`serve` over another mirror, on a free loopback port,
/// stopped when the test ends). `file` is the mirror holding the data either way, for checks
/// that read it without going through the target.
struct TargetFixture: @unchecked Sendable {
    enum Kind: String, CaseIterable { case mirror, server }

    let kind: Kind
    let target: MigrationTarget
    let file: String

    /// A fresh target of `kind` in a temporary folder removed after `test`.
    static func make(_ kind: Kind, in test: XCTestCase) throws -> TargetFixture {
        switch kind {
        case .mirror:
            let file = try test.temporaryFolder("porter-migrations").appendingPathComponent("\(kind.rawValue).sqlite").path
            return TargetFixture(kind: kind, target: try MirrorTarget(path: file, create: true), file: file)
        case .server:
            let served = try ServedMirror(in: test, configuration: ParseServerConfiguration(applicationId: "app", masterKey: "mk"))
            let client = ParseRESTClient(
                address: try ParseServerAddress(url: served.url, applicationId: "app", masterKey: "mk", restAPIKey: nil),
                timeout: 10, retry: RetryPolicy(attempts: 2, initialDelay: 0.01, maximumDelay: 0.02))
            return TargetFixture(kind: kind, target: ServerTarget(client: client), file: served.path)
        }
    }

    /// Another target object for the same mirror or server, as a second process would open it.
    func reopened() throws -> MigrationTarget {
        switch target {
        case let server as ServerTarget: ServerTarget(client: server.client)
        default: try MirrorTarget(path: file, create: false)
        }
    }

    /// One fresh target of each kind.
    static func all(in test: XCTestCase) throws -> [TargetFixture] {
        try Kind.allCases.map { try make($0, in: test) }
    }
}

extension TargetFixture {
    /// The rows of `sql` on the mirror file, read with a connection of its own, as text.
    func rows(_ sql: String) throws -> [[String?]] {
        let database = try SQLiteDatabase(path: file, create: false)
        defer { database.close() }
        return try database.rows(sql)
    }

    /// Every table of the mirror file with its rows (sorted), for "nothing changed" checks.
    func snapshot() throws -> [String: [[String?]]] {
        var tables: [String: [[String?]]] = [:]
        for row in try rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
            guard let table = row[0] else { continue }
            tables[table] = try rows("SELECT * FROM \(quoted(table))").sorted { $0.map { $0 ?? "" }.lexicographicallyPrecedes($1.map { $0 ?? "" }) }
        }
        return tables
    }
}
