import Foundation
import ParseModel
import PorterCore
import Synchronization

/// The migration lock of a PostgreSQL database: a session-level advisory lock
/// (`pg_try_advisory_lock`) on a connection of its own, named by the runner as the
/// connection's `application_name`. PostgreSQL frees it when that connection ends, so a killed
/// runner's lock is free at once; a heartbeat checks the connection still holds it.
final class PostgresLock: MigrationLock {
    /// The advisory lock's two keys: "Pars" "Migr".
    private static let keys = ["1348563571", "1298753394"]
    private let url: String
    private let location: String
    private let timing: LockTiming
    private let held = Mutex<PostgresConnection?>(nil)

    init(url: String, location: String, timing: LockTiming) {
        self.url = url
        self.location = location
        self.timing = timing
    }

    func acquire(owner: String, wait: Double) async throws(PorterError) {
        let connection = try PostgresConnection(url: url)
        try connection.execute("SELECT set_config('application_name', $1, false)", [String(owner.prefix(63))])
        let started = Date()
        while try connection.execute("SELECT pg_try_advisory_lock($1::int4, $2::int4)", Self.keys).first?.first != "t" {
            if Date().timeIntervalSince(started) >= wait {
                connection.close()
                throw LockMessages.stillHeld(location, try? await holder(), waited: wait)
            }
            try await timing.pause(location: location)
        }
        held.withLock { $0 = connection }
    }

    func heartbeat() async throws(PorterError) {
        guard let connection = held.withLock({ $0 }) else { throw PorterError(.target, "\(location): the migration lock is not held") }
        let holds = try? connection.execute(
            """
            SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted \
            AND classid::text = $1 AND objid::text = $2 AND objsubid = 2
            """, Self.keys)
        guard holds?.isEmpty == false else { throw PorterError(.target, "\(location): the connection holding the migration lock was lost; stopping") }
    }

    func release() async {
        guard
            let connection = held.withLock({ (held) -> PostgresConnection? in
                defer { held = nil }
                return held
            })
        else { return }
        _ = try? connection.execute("SELECT pg_advisory_unlock($1::int4, $2::int4)", Self.keys)
        connection.close()
    }

    func holder() async throws(PorterError) -> LockHolder? {
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        let rows = try connection.execute(
            """
            SELECT a.application_name, a.pid::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
            WHERE l.locktype = 'advisory' AND l.granted AND l.classid::text = $1 AND l.objid::text = $2 AND l.objsubid = 2
            """, Self.keys)
        guard let row = rows.first else { return nil }
        let name = row[0] ?? ""
        return LockHolder(owner: name.isEmpty ? "PostgreSQL backend \(row[1] ?? "?")" : name, heartbeatAt: nil, expiresAt: nil)
    }
}
