import CSQLite
import Foundation
import PorterSQLite

/// The deadline of the query running on one connection, enforced by SQLite's progress
/// handler: past it, the running statement is interrupted. Used by one thread at a time.
final class QueryClock {
    private var deadline: ContinuousClock.Instant?
    /// Whether the last statement was interrupted because the deadline passed.
    private(set) var expired = false
    /// Ends the running query before its deadline once it returns true (looked at with the clock).
    var cutoff: (() -> Bool)?
    /// Whether the last statement was interrupted by ``cutoff``.
    private(set) var cutOff = false
    /// SQLite virtual-machine steps between two looks at the clock: few, since one step may
    /// call a costly function (a `$regex` match may take milliseconds), so that a scan of such
    /// rows still ends close to its deadline.
    private static let stepsBetweenChecks: Int32 = 100

    /// Installs the progress handler; the connection must not outlive `self` without ``uninstall(from:)``.
    func install(on database: SQLiteDatabase) {
        sqlite3_progress_handler(database.handle, Self.stepsBetweenChecks, Self.check, Unmanaged.passUnretained(self).toOpaque())
    }

    static func uninstall(from database: SQLiteDatabase) {
        sqlite3_progress_handler(database.handle, 0, nil, nil)
    }

    func start(seconds: Double) {
        expired = false
        cutOff = false
        deadline = seconds > 0 ? .now + .milliseconds(Int64(seconds * 1000)) : nil
    }

    func stop() { deadline = nil }

    /// Whether the running statement must stop now: its deadline passed (``expired``) or its
    /// ``cutoff`` was reached (``cutOff``). Also asked before each costly function call (a
    /// `$regex` match), which may take milliseconds where a step takes nanoseconds.
    func mustStop() -> Bool {
        guard let deadline else { return false }
        if ContinuousClock.now > deadline {
            expired = true
            return true
        }
        guard let cutoff, cutoff() else { return false }
        cutOff = true
        return true
    }

    private static let check: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { data in
        guard let data else { return 0 }
        return Unmanaged<QueryClock>.fromOpaque(data).takeUnretainedValue().mustStop() ? 1 : 0
    }
}
