import Foundation
import ParseMirrorServer
import ParseModel
import PorterMigrations
import PorterPipeline
import PorterTestSupport
import XCTest

/// Migrations from async code: a runner handed to a task, and cancelled lock waits, on a
/// mirror and on a Parse Server (`serve` over a mirror on a free loopback port).
final class MigrationRunnerAsyncTests: XCTestCase {
    private func migrations(_ files: [String: String]) throws -> String {
        let folder = try temporaryFolder("porter-runner")
        for (name, text) in files { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return folder.path
    }

    /// The runner crosses into a task (it is `Sendable`), applies both versions there, and the
    /// mirror holds what they made; a second run in another task finds nothing to do.
    func testARunnerHandedToATaskAppliesTheMigrations() async throws {
        let folder = try migrations([
            "V1__create_book.yml": """
            operations:
              - createClass:
                  className: Book
                  fields:
                    title: {type: String, required: true}
                    pages: {type: Number, defaultValue: 0}
            """,
            "V2__seed_and_rename.yml": """
            operations:
              - addField: {className: Book, name: isbn, type: String}
              - renameField: {className: Book, from: pages, to: pageCount}
            """,
        ])
        for fixture in try TargetFixture.all(in: self) {
            let label = fixture.kind.rawValue
            let runner = MigrationRunner(target: fixture.target, files: try MigrationDirectory.load(folder), folder: folder)
            let applied = try await Task { try await runner.up(to: nil) { _ in } }.value
            XCTAssertEqual(applied.map(\.version), ["1", "2"], label)
            XCTAssertTrue(applied.allSatisfy(\.success), label)
            let schema = try XCTUnwrap(try fixture.rows(#"SELECT schema FROM "_SCHEMA" WHERE className = 'Book'"#).first?[0], label)
            let fields = try XCTUnwrap(try json(schema)["fields"], label)
            XCTAssertEqual(fields["title"]?["type"], .string("String"), label)
            XCTAssertEqual(fields["isbn"]?["type"], .string("String"), label)
            XCTAssertEqual(fields["pageCount"]?["type"], .string("Number"), label)
            XCTAssertNil(fields["pages"], "\(label): renamed away")
            let history =
                fixture.kind == .mirror
                ? try fixture.rows("SELECT version, success FROM _PorterMigrations ORDER BY version")
                : try fixture.rows("SELECT version, success FROM PorterMigrations ORDER BY version")
            XCTAssertEqual(history, [["1", "1"], ["2", "1"]], label)
            let again = try await Task { try await runner.up(to: nil) { _ in } }.value
            XCTAssertEqual(again.count, 0, "\(label): nothing left to apply")
        }
    }

    /// A run's blocking work (a mirror's requests, its wait for the lock while another run's
    /// migration transaction is open) runs on a thread of its own, not on the cooperative pool:
    /// while three runners migrate one mirror at once, a task ticking every 10 ms keeps ticking.
    /// On the pool's threads (one per core) the two waiting runners blocked them all, and the
    /// ticks stopped until SQLite's busy timeout ran out (a minute here).
    func testRunnersOnOneMirrorDoNotStallOtherTasks() async throws {
        let folder = PackageFolders.root.appendingPathComponent("Migrations").path
        let mirror = try temporaryFolder().appendingPathComponent("library.sqlite").path
        _ = try MirrorTarget(path: mirror, create: true)
        let files = try MigrationDirectory.load(folder)
        let runners = try (0..<3).map { _ in
            MigrationRunner(
                target: try MirrorTarget(path: mirror, create: false), files: files, folder: folder,
                identity: RunnerIdentity(lockWait: 120, timing: LockTiming(timeToLive: 60, poll: 0.05)))
        }
        let ticker = Task {
            var last = Date()
            var longestGap = 0.0
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(10))
                longestGap = max(longestGap, Date().timeIntervalSince(last))
                last = Date()
            }
            return longestGap
        }
        let applied = try await withThrowingTaskGroup(of: [AppliedMigration].self) { group in
            for runner in runners { group.addTask { try await runner.up(to: nil) { _ in } } }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        ticker.cancel()
        let longestGap = await ticker.value
        XCTAssertEqual(applied.map(\.version).sorted(), ["1", "2", "3", "4", "5", "6"], "each migration is applied once, by one of the runners")
        XCTAssertLessThan(longestGap, 5, "a 10 ms timer task waited \(longestGap) s while the runners worked")
    }

    /// A runner waiting for a lock another runner holds stops waiting when its task is
    /// cancelled, long before its lock wait is over; the holder keeps the lock, and once it
    /// gives it back the lock is free at once (the cancelled waiter left no claim behind).
    func testCancellingALockWaitEndsItAtOnce() async throws {
        let timing = LockTiming(timeToLive: 30, poll: 0.05)
        for fixture in try TargetFixture.all(in: self) {
            let label = fixture.kind.rawValue
            let holder = fixture.target.migrationLock(timing: timing)
            try await holder.acquire(owner: "host-a:1:holder", wait: 1)
            let waiter = try fixture.reopened().migrationLock(timing: timing)
            let waiting = Task { try await waiter.acquire(owner: "host-b:2:waiter", wait: 60) }
            try await Task.sleep(for: .milliseconds(300))
            let cancelled = Date()
            waiting.cancel()
            do {
                try await waiting.value
                XCTFail("\(label): the waiter took a lock that is held")
            } catch {
                XCTAssertEqual((error as? PorterError)?.cause, .cancelled, "\(label): \(error)")
            }
            XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1, label)
            let owner = try await holder.holder()?.owner
            XCTAssertEqual(owner, "host-a:1:holder", label)
            await holder.release()
            let next = try fixture.reopened().migrationLock(timing: timing)
            try await next.acquire(owner: "host-c:3:next", wait: 0.5)
            let nextOwner = try await next.holder()?.owner
            XCTAssertEqual(nextOwner, "host-c:3:next", label)
            await next.release()
        }
    }

    /// A run cancelled after the first operation of a migration stops before the second: the
    /// mirror is left as it was (rolled back, no history entry), the server keeps the started
    /// entry, and a second run in the same process applies the migration whole.
    func testACancelledRunStopsBetweenOperationsAndASecondRunFinishesIt() async throws {
        let folder = try migrations([
            "V1__two_classes.yml": """
            operations:
              - createClass: {className: Shelf, fields: {label: {type: String}}}
              - createClass: {className: Room, fields: {floor: {type: Number}}}
            """
        ])
        for fixture in try TargetFixture.all(in: self) {
            let label = fixture.kind.rawValue
            let runner = MigrationRunner(target: fixture.target, files: try MigrationDirectory.load(folder), folder: folder)
            let run = Task {
                try await runner.up(to: nil) { event in
                    if case .operation = event { withUnsafeCurrentTask { $0?.cancel() } }
                }
            }
            do {
                let applied = try await run.value
                XCTFail("\(label): a cancelled run applied \(applied)")
            } catch {
                XCTAssertEqual((error as? PorterError)?.cause, .cancelled, "\(label): \(error)")
                XCTAssertTrue((error as? PorterError)?.message.contains("cancelled before operation 2") == true, "\(label): \(error)")
            }
            let classes = try fixture.rows(#"SELECT className FROM "_SCHEMA" WHERE className IN ('Shelf', 'Room') ORDER BY className"#)
            switch fixture.kind {
            case .mirror:
                XCTAssertEqual(classes, [], "the mirror was rolled back")
                XCTAssertEqual(try fixture.rows("SELECT count(*) FROM _PorterMigrations"), [["0"]], "no history entry")
            case .server:
                XCTAssertEqual(classes, [["Shelf"]], "a Parse Server keeps the operation done before the cancellation")
                let statuses = try await runner.status()
                XCTAssertEqual(statuses.migrations.map(\.state), [.interrupted])
                XCTAssertNil(statuses.lock, "the cancelled run gave the lock back")
            }
            let applied = try await Task { try await runner.up(to: nil) { _ in } }.value
            XCTAssertEqual(applied.map(\.version), ["1"], label)
            XCTAssertEqual(
                try fixture.rows(#"SELECT className FROM "_SCHEMA" WHERE className IN ('Shelf', 'Room') ORDER BY className"#),
                [["Room"], ["Shelf"]], label)
        }
    }
}
