import Foundation
import ParseModel

/// One row of a target's migration history (Flyway's `flyway_schema_history`).
public struct AppliedMigration: Equatable, Sendable {
    /// The version as ``MigrationVersion`` writes it (`1`, `1.1`).
    public var version: String
    /// The file's description (``MigrationFile/name``), or ``baselineName`` for a baseline entry.
    public var name: String
    /// SHA-256 of the canonical file; empty for a baseline entry.
    public var checksum: String
    /// When the run of this migration started.
    public var appliedAt: ParseDate
    /// How long it ran, in milliseconds.
    public var durationMs: Int
    /// `true` once every operation ran; `false` while running, after a failure or an interruption.
    public var success: Bool
    /// The host that ran it.
    public var host: String
    /// Why it failed; `nil` when it succeeded or its runner stopped before it finished.
    public var error: String?

    /// An entry with every column given.
    public init(
        version: String, name: String, checksum: String, appliedAt: ParseDate, durationMs: Int,
        success: Bool, host: String, error: String?
    ) {
        self.version = version
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
        self.durationMs = durationMs
        self.success = success
        self.host = host
        self.error = error
    }

    /// The name a baseline entry carries (Flyway's `<< Flyway Baseline >>`).
    public static let baselineName = "<< baseline >>"

    /// Whether this is the entry a baseline wrote rather than an applied file.
    public var isBaseline: Bool { name == Self.baselineName && checksum.isEmpty }
}

/// Where a target keeps its history: the mirror's `_PorterMigrations` table, or the
/// `PorterMigrations` class on a Parse Server. Reads and writes join the target's current unit
/// of work, if one is open.
public protocol MigrationHistory: AnyObject {
    /// Every entry, in version order.
    func entries() async throws(PorterError) -> [AppliedMigration]
    /// Adds the entry, or replaces the one with its version.
    func record(_ entry: AppliedMigration) async throws(PorterError)
    /// Deletes the entry with this version, if there is one (repair of a failed or interrupted entry).
    func remove(version: String) async throws(PorterError)
}

extension ParseDate {
    /// The current time, to the millisecond.
    package static var now: ParseDate { ParseDate(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) }
}

extension [AppliedMigration] {
    /// Sorted by version number (`2` before `10`).
    package func sortedByVersion() -> [AppliedMigration] {
        sorted { MigrationVersion.precedes($0.version, $1.version) }
    }
}
