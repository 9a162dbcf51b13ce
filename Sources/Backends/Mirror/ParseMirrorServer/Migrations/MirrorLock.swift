import Foundation
import ParseModel
import PorterCore
import PorterSQLite
import Synchronization

/// The lock as a row of the mirror's `_PorterLock` table, claimed in a write transaction (which
/// SQLite grants one connection at a time, across processes): free, expired or already ours →
/// ours. Heartbeats go on the target's connection, so inside a migration's transaction they
/// commit with it; while that transaction is open no other runner can claim anything.
final class MirrorLock: MigrationLock {
    private let target: MirrorTarget
    private let timing: LockTiming
    private let claimed = Mutex<String?>(nil)
    private static let name = "migrations"

    init(target: MirrorTarget, timing: LockTiming) {
        self.target = target
        self.timing = timing
    }

    private var database: SQLiteDatabase { target.session.database }

    func acquire(owner: String, wait: Double) async throws(PorterError) {
        let deadline = Date().addingTimeInterval(wait)
        while true {
            let remaining = max(0.05, deadline.timeIntervalSinceNow)
            do throws(PorterError) {
                if try claim(owner: owner, busyTimeout: min(remaining, timing.timeToLive)) {
                    claimed.withLock { $0 = owner }
                    return
                }
            } catch {
                // Busy: another runner's migration transaction is open; anything else is a failure.
                switch error.sqliteError?.resultCode {
                case .SQLITE_BUSY?, .SQLITE_LOCKED?: break
                default: throw error
                }
            }
            if Date() >= deadline { throw LockMessages.stillHeld(target.location, try? holder(), waited: wait) }
            try await timing.pause(location: target.location)
        }
    }

    /// One attempt: `true` when the row was free, expired or ours and is now ours.
    private func claim(owner: String, busyTimeout: Double) throws(PorterError) -> Bool {
        try target.session.begin(busyTimeout: busyTimeout)
        do throws(PorterError) {
            try database.execute(Self.tableSQL)
            let now = ParseDate.now
            if let current = try readHolder(), current.owner != owner, let expires = current.expiresAt, now < expires {
                target.session.rollback()
                return false
            }
            try write(owner: owner, now: now)
            try target.session.commit()
            return true
        } catch {
            target.session.rollback()
            throw error
        }
    }

    func heartbeat() throws(PorterError) {
        guard let owner = claimed.withLock({ $0 }) else { return }
        let statement = try database.prepare("UPDATE _PorterLock SET heartbeatAt = ?1, expiresAt = ?2 WHERE name = ?3 AND owner = ?4")
        let now = ParseDate.now
        statement.bind(text: now.iso, at: 1)
        statement.bind(text: timing.expiry(from: now).iso, at: 2)
        statement.bind(text: Self.name, at: 3)
        statement.bind(text: owner, at: 4)
        try statement.run()
        guard database.changes == 1 else { throw LockMessages.lost(target.location, owner: owner) }
    }

    func release() {
        guard
            let owner = claimed.withLock({ owner in
                defer { owner = nil }; return owner
            })
        else { return }
        guard let statement = try? database.prepare("DELETE FROM _PorterLock WHERE name = ?1 AND owner = ?2") else { return }
        statement.bind(text: Self.name, at: 1)
        statement.bind(text: owner, at: 2)
        try? statement.run()
    }

    func holder() throws(PorterError) -> LockHolder? {
        guard !(try database.rows("SELECT 1 FROM sqlite_master WHERE name = '_PorterLock'")).isEmpty else { return nil }
        return try readHolder()
    }

    private static let tableSQL = "CREATE TABLE IF NOT EXISTS _PorterLock (name TEXT PRIMARY KEY, owner TEXT, heartbeatAt TEXT, expiresAt TEXT)"

    private func readHolder() throws(PorterError) -> LockHolder? {
        guard let row = try database.rows("SELECT owner, heartbeatAt, expiresAt FROM _PorterLock WHERE name = ?1", [Self.name]).first,
            let owner = row[0]
        else { return nil }
        return LockHolder(owner: owner, heartbeatAt: row[1].flatMap(ParseDate.init(iso:)), expiresAt: row[2].flatMap(ParseDate.init(iso:)))
    }

    private func write(owner: String, now: ParseDate) throws(PorterError) {
        let statement = try database.prepare("INSERT OR REPLACE INTO _PorterLock (name, owner, heartbeatAt, expiresAt) VALUES (?1, ?2, ?3, ?4)")
        statement.bind(text: Self.name, at: 1)
        statement.bind(text: owner, at: 2)
        statement.bind(text: now.iso, at: 3)
        statement.bind(text: timing.expiry(from: now).iso, at: 4)
        try statement.run()
    }
}
