import Foundation
import ParseModel
import PorterMigrations
import PorterSQLite
import XCTest

/// The history on both kinds of target: what is written is read back, in version order.
final class MigrationHistoryTests: XCTestCase {
    private func entry(_ version: String, success: Bool = true, error: String? = nil) -> AppliedMigration {
        AppliedMigration(
            version: version, name: "migration \(version)", checksum: String(repeating: "ab", count: 32),
            appliedAt: ParseDate(millisecondsSince1970: 1_700_000_000_123), durationMs: 42, success: success,
            host: "ci-runner-1", error: error)
    }

    func testEntriesAreReadBackInVersionOrderAndReplacedByVersion() throws {
        for fixture in try TargetFixture.all(in: self) {
            let history = try fixture.target.history()
            XCTAssertEqual(try blocking { try await history.entries() }, [], fixture.kind.rawValue)
            try blocking { try await history.record(entry("10")) }
            try blocking { try await history.record(entry("2", success: false, error: "Parse error 255: Field pages exists, cannot update.")) }
            try blocking { try await history.record(entry("1.1")) }
            XCTAssertEqual(try blocking { try await history.entries().map(\.version) }, ["1.1", "2", "10"], fixture.kind.rawValue)
            XCTAssertEqual(
                try blocking { try await history.entries()[1] }, entry("2", success: false, error: "Parse error 255: Field pages exists, cannot update."),
                fixture.kind.rawValue)
            try blocking { try await history.record(entry("2")) }
            XCTAssertEqual(try blocking { try await history.entries() }, [entry("1.1"), entry("2"), entry("10")], fixture.kind.rawValue)
            try blocking { try await history.remove(version: "10") }
            XCTAssertEqual(try blocking { try await history.entries().map(\.version) }, ["1.1", "2"], fixture.kind.rawValue)
        }
    }

    func testTheHistoryLivesInTheMirrorTableOrTheServerClass() throws {
        for fixture in try TargetFixture.all(in: self) {
            try blocking { try await fixture.target.history().record(entry("3")) }
            let database = try SQLiteDatabase(path: fixture.file, create: false)
            switch fixture.kind {
            case .mirror:
                XCTAssertEqual(
                    try database.rows("SELECT version, checksum, success, host FROM _PorterMigrations"),
                    [["3", String(repeating: "ab", count: 32), "1", "ci-runner-1"]])
            case .server:
                XCTAssertEqual(try database.rows("SELECT version, host, success FROM PorterMigrations"), [["3", "ci-runner-1", "1"]])
                // Only the master key may see or change it.
                let schema = try XCTUnwrap(try database.rows("SELECT schema FROM _SCHEMA WHERE className = 'PorterMigrations'").first?.first ?? nil)
                XCTAssertTrue(schema.contains("\"find\":{}"), schema)
                XCTAssertFalse(try blocking { try await fixture.target.api.schemas().map(\.className).contains("PorterMigrations") })
            }
        }
    }
}
