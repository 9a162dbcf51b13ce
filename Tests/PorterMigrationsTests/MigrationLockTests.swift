import Foundation
import ParseModel
import PorterMigrations
import PorterPipeline
import PorterSQLite
import XCTest

/// The migration lock on both kinds of target: exclusive, released, expired and taken over.
final class MigrationLockTests: XCTestCase {
    private let quick = LockTiming(timeToLive: 30, poll: 0.02)

    func testASecondRunnerWaitsAndGivesUpNamingTheHolder() throws {
        for fixture in try TargetFixture.all(in: self) {
            let first = fixture.target.migrationLock(timing: quick)
            try blocking { try await first.acquire(owner: "host-a:1:first", wait: 1) }
            let second = fixture.target.migrationLock(timing: quick)
            XCTAssertThrowsError(try blocking { try await second.acquire(owner: "host-b:2:second", wait: 0.3) }, fixture.kind.rawValue) { error in
                XCTAssertEqual((error as? PorterError)?.cause, .target)
                XCTAssertTrue((error as? PorterError)?.message.contains("locked by host-a:1:first") == true, "\(error)")
            }
            XCTAssertEqual(try blocking { try await second.holder()?.owner }, "host-a:1:first", fixture.kind.rawValue)
            try? blocking { await first.release() }
            XCTAssertNil(try blocking { try await second.holder() }, fixture.kind.rawValue)
            try blocking { try await second.acquire(owner: "host-b:2:second", wait: 1) }
            XCTAssertEqual(try blocking { try await first.holder()?.owner }, "host-b:2:second", fixture.kind.rawValue)
            try? blocking { await second.release() }
        }
    }

    func testALockWhoseHolderStoppedSendingHeartbeatsIsTakenOverOnceItExpired() throws {
        for fixture in try TargetFixture.all(in: self) {
            let short = LockTiming(timeToLive: 0.6, poll: 0.02)
            try leaveDeadHolder(fixture, timing: short)
            let started = Date()
            let next = fixture.target.migrationLock(timing: short)
            try blocking { try await next.acquire(owner: "host-b:2:next", wait: 10) }
            XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3, "taken over before the holder expired (\(fixture.kind))")
            XCTAssertEqual(try blocking { try await next.holder()?.owner }, "host-b:2:next", fixture.kind.rawValue)
            try? blocking { await next.release() }
            XCTAssertNil(try blocking { try await next.holder() }, fixture.kind.rawValue)
            // Released after a takeover, the lock is free for the next runner at once.
            let after = fixture.target.migrationLock(timing: short)
            try blocking { try await after.acquire(owner: "host-c:3:after", wait: 0.2) }
            try? blocking { await after.release() }
        }
    }

    func testARunnerWhoseLockWasTakenOverStopsAtItsNextHeartbeat() throws {
        for fixture in try TargetFixture.all(in: self) {
            let lock = fixture.target.migrationLock(timing: quick)
            try blocking { try await lock.acquire(owner: "host-a:1:slow", wait: 1) }
            try blocking { try await lock.heartbeat() }
            try setOwner(fixture, "host-b:2:taker")
            XCTAssertThrowsError(try blocking { try await lock.heartbeat() }, fixture.kind.rawValue) { error in
                XCTAssertTrue((error as? PorterError)?.message.contains("lost the migration lock") == true, "\(error)")
            }
            try? blocking { await lock.release() }
            XCTAssertEqual(
                try blocking { try await lock.holder()?.owner }, "host-b:2:taker", "release must not free a lock another runner holds (\(fixture.kind))")
        }
    }

    /// The state a runner killed while holding the lock leaves behind: held, never beating again.
    private func leaveDeadHolder(_ fixture: TargetFixture, timing: LockTiming) throws {
        let dead = fixture.target.migrationLock(timing: timing)
        try blocking { try await dead.acquire(owner: "host-a:1:dead", wait: 1) }
        guard fixture.kind == .server else { return }  // a mirror lock beats only when its runner calls heartbeat()
        // A server lock beats from a thread until released; write the state its death leaves.
        try? blocking { await dead.release() }
        let objectId = try lockObjectId(fixture)
        _ = try blocking {
            try await fixture.target.api.send(
                "PUT", "/classes/\(BookkeepingClasses.lock)/\(objectId)",
                body: .object(
                    JSONObject([
                        "owner": .string("host-a:1:dead"), "holders": .object(JSONObject(["__op": .string("Increment"), "amount": .integer(1)])),
                    ])))
        }
    }

    private func setOwner(_ fixture: TargetFixture, _ owner: String) throws {
        switch fixture.kind {
        case .server:
            _ = try blocking {
                try await fixture.target.api.send(
                    "PUT", "/classes/\(BookkeepingClasses.lock)/\(try lockObjectId(fixture))",
                    body: .object(JSONObject(["owner": .string(owner)])))
            }
        case .mirror:
            let database = try SQLiteDatabase(path: fixture.file, create: false)
            try database.execute("UPDATE _PorterLock SET owner = '\(owner)'")
        }
    }

    private func lockObjectId(_ fixture: TargetFixture) throws -> String {
        let found = try blocking { try await fixture.target.api.send("GET", "/classes/\(BookkeepingClasses.lock)") }
        guard case .array(let results)? = found["results"], results.count == 1, let objectId = results.first?["objectId"]?.stringValue else {
            throw PorterError(.target, "expected one lock object, found \(found.serialized())")
        }
        return objectId
    }

    func testOnlyOneOfManyContendingRunnersHoldsTheLockAtATime() throws {
        for fixture in try TargetFixture.all(in: self) {
            let inside = ManagedCounter()
            let entered = ManagedCounter()
            let timing = LockTiming(timeToLive: 30, poll: 0.01)
            DispatchQueue.concurrentPerform(iterations: 4) { runner in
                guard let target = try? fixture.reopened() else { return inside.fail("cannot open the target") }
                for round in 0..<3 {
                    let lock = target.migrationLock(timing: timing)
                    do { try blocking { try await lock.acquire(owner: "runner-\(runner)-\(round)", wait: 30) } } catch { return inside.fail("\(error)") }
                    if inside.increment() != 1 { inside.fail("two runners held the lock at once") }
                    entered.add()
                    Thread.sleep(forTimeInterval: 0.01)
                    inside.decrement()
                    try? blocking { await lock.release() }
                }
            }
            XCTAssertEqual(inside.failures, [], fixture.kind.rawValue)
            XCTAssertEqual(entered.value, 12, fixture.kind.rawValue)
        }
    }

}

/// A counter several threads share, with the failures they saw.
final class ManagedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private(set) var failures: [String] = []

    var value: Int { lock.withLock { count } }
    @discardableResult func increment() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
    func decrement() { lock.withLock { count -= 1 } }
    func add() { increment() }
    func fail(_ message: String) { lock.withLock { failures.append(message) } }
}
