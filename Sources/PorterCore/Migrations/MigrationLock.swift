import Foundation
import ParseModel

/// Who holds a target's migration lock, as `migrate status` shows it.
public struct LockHolder: Equatable, Sendable {
    /// `host:pid:random`, unique per runner.
    public var owner: String
    /// When the holder last showed it is alive.
    public var heartbeatAt: ParseDate?
    /// When the holder counts as dead if it has not sent a heartbeat by then.
    public var expiresAt: ParseDate?

    package init(owner: String, heartbeatAt: ParseDate?, expiresAt: ParseDate?) {
        self.owner = owner
        self.heartbeatAt = heartbeatAt
        self.expiresAt = expiresAt
    }
}

/// The lock two `migrate up` runs against one target contend for, so that each migration is
/// applied once. It has an owner, a heartbeat and an expiry: a runner that was killed stops
/// sending heartbeats, and once its lock expired the next runner takes it over.
public protocol MigrationLock: AnyObject, Sendable {
    /// Takes the lock for `owner`, waiting up to `wait` seconds while a live runner holds it
    /// (``PorterError/Cause/target`` when it is still held then).
    func acquire(owner: String, wait: Double) async throws(PorterError)
    /// Pushes the expiry out; fails (``PorterError/Cause/target``) when another runner took the lock over meanwhile.
    func heartbeat() async throws(PorterError)
    /// Gives the lock up, when this runner still holds it.
    func release() async
    /// The current holder, `nil` when the lock is free.
    func holder() async throws(PorterError) -> LockHolder?
}

/// How long a lock lives without heartbeats, and how often a holder sends them.
public struct LockTiming: Sendable {
    /// Seconds after the last heartbeat at which a holder counts as dead.
    public var timeToLive: Double
    /// Seconds between attempts while waiting for the lock.
    public var poll: Double

    /// A lock that lives `timeToLive` seconds without heartbeats; waiters try every `poll` seconds.
    public init(timeToLive: Double = 60, poll: Double = 0.25) {
        self.timeToLive = timeToLive
        self.poll = poll
    }

    /// Seconds between a holder's heartbeats: a third of the time to live.
    public var heartbeatInterval: Double { timeToLive / 3 }

    /// Waits ``poll`` seconds between two attempts; a cancelled task stops waiting at once.
    package func pause(location: String) async throws(PorterError) {
        do {
            try await Task.sleep(for: .seconds(poll))
        } catch {
            throw PorterError(.cancelled, "\(location): cancelled while waiting for the migration lock")
        }
    }

    package func expiry(from date: ParseDate) -> ParseDate {
        ParseDate(millisecondsSince1970: date.millisecondsSince1970 + Int64(timeToLive * 1000))
    }
}

/// The messages of every lock.
package enum LockMessages {
    package static func stillHeld(_ location: String, _ holder: LockHolder?, waited: Double) -> PorterError {
        let who =
            holder.map { h in
                "\(h.owner)" + (h.heartbeatAt.map { ", last heartbeat \($0.iso)" } ?? "") + (h.expiresAt.map { ", expires \($0.iso)" } ?? "")
            } ?? "another runner"
        return PorterError(.target, "\(location): the migrations are locked by \(who); gave up after waiting \(Int(waited)) s")
    }

    package static func lost(_ location: String, owner: String) -> PorterError {
        PorterError(.target, "\(location): this runner (\(owner)) lost the migration lock to another runner after missing its heartbeats; stopping")
    }
}
