import CSQLite
import Foundation
import PorterSQLite

/// The deadline of the query running on one connection, enforced by SQLite's progress
/// handler: past it, the running statement is interrupted. Used by one thread at a time.
final class QueryClock {
    private var deadline: ContinuousClock.Instant?
    /// Whether the last statement was interrupted because the deadline passed.
    private(set) var expired = false
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
        deadline = seconds > 0 ? .now + .milliseconds(Int64(seconds * 1000)) : nil
    }

    func stop() { deadline = nil }

    private static let check: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { data in
        guard let data else { return 0 }
        let clock = Unmanaged<QueryClock>.fromOpaque(data).takeUnretainedValue()
        guard let deadline = clock.deadline, ContinuousClock.now > deadline else { return 0 }
        clock.expired = true
        return 1
    }
}
