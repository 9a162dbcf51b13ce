import Foundation
import ParseModel
import PorterPipeline

/// Who runs migrations, how long to wait for the lock and how long a lock lives.
public struct RunnerIdentity: Sendable {
    /// The host recorded in the history.
    public var host: String
    /// The lock owner: host, process id and a random part, unique per run.
    public var owner: String
    /// Seconds `up`, `baseline` and `repair` wait for a lock another runner holds.
    public var lockWait: Double
    /// How long a lock lives without heartbeats, and how often a waiter tries again.
    public var timing: LockTiming

    /// This host and process, with a random part; `lockWait` seconds of waiting for a held lock.
    public init(lockWait: Double = 300, timing: LockTiming = LockTiming()) {
        host = ProcessInfo.processInfo.hostName
        owner = "\(host):\(ProcessInfo.processInfo.processIdentifier):\(UUID().uuidString.prefix(8).lowercased())"
        self.lockWait = lockWait
        self.timing = timing
    }
}

/// What `up` reports while it works.
public enum MigrationEvent: Sendable {
    case note(String)
    case started(MigrationFile)
    case operation(MigrationFile, index: Int, OperationResult)
    case finished(MigrationFile, durationMs: Int)
}

/// Applies the files of a migrations folder to a target (Flyway's `migrate`, `info`,
/// `baseline`, `repair`): under the target's lock, pending versions in order, each in one unit
/// of work, recorded in the target's history. Each call runs its work on a thread of its own,
/// not on Swift's cooperative pool: a mirror's requests block while another runner writes.
public final class MigrationRunner: Sendable {
    /// The mirror or Parse Server the migrations apply to.
    public let target: MigrationTarget
    /// The migration files, in version order (``MigrationDirectory/load(_:)``).
    public let files: [MigrationFile]
    /// The migrations folder: `importDataset` paths are relative to it.
    public let folder: String
    /// Who runs, as the history and the lock record it.
    public let identity: RunnerIdentity

    /// A runner of `files` (read from `folder`) on `target`. It is `Sendable`: hand it to a task,
    /// and cancel the task to stop a run between two operations or while it waits for the lock.
    ///
    /// ```swift
    /// let target = try MirrorTarget(path: "app.sqlite", create: true)
    /// let runner = MigrationRunner(target: target, files: try MigrationDirectory.load("Migrations"), folder: "Migrations")
    /// let applied = try await runner.up(to: nil) { event in print(event) }
    /// ```
    public init(target: MigrationTarget, files: [MigrationFile], folder: String, identity: RunnerIdentity = RunnerIdentity()) {
        self.target = target
        self.files = files
        self.folder = folder
        self.identity = identity
    }

    /// Each version's state, and who holds the lock (`nil` when no runner does). A started
    /// migration is `running` while its lock has not expired, `interrupted` after.
    public func status() async throws(PorterError) -> (migrations: [MigrationStatus], lock: LockHolder?) {
        try await ThreadExecutor.run(named: Self.threadName) { (_) throws(PorterError) in try await readStatus() }
    }

    private func readStatus() async throws(PorterError) -> (migrations: [MigrationStatus], lock: LockHolder?) {
        let holder = try await target.migrationLock(timing: identity.timing).holder()
        // A holder past its expiry has most likely stopped (display only: the lock decides by itself).
        let live = holder.map { holder in holder.expiresAt.map { ParseDate.now < $0 } ?? true } ?? false
        return (MigrationStatus.compare(files: files, history: try await target.history().entries(), locked: live), holder)
    }

    /// The files `up` would apply, in order, up to `last`; an error caused ``PorterError/Cause/invalidData`` when the history does not
    /// agree with the files (failed, changed or out-of-order migrations) or the target cannot
    /// run one of their operations (``MigrationTarget/refusal(of:)``).
    public func pending(upTo last: MigrationVersion?) async throws(PorterError) -> [MigrationFile] {
        let pending = try Self.pending(try await status().migrations, upTo: last, location: target.location)
        try checkSupported(pending)
        return pending
    }

    static func pending(_ statuses: [MigrationStatus], upTo last: MigrationVersion?, location: String) throws(PorterError) -> [MigrationFile] {
        let errors = statuses.filter(\.isError)
        if !errors.isEmpty {
            throw PorterError(
                .invalidData, "\(location): the history does not agree with the migration files:\n" + errors.map(Self.explain).joined(separator: "\n"))
        }
        return statuses.filter { $0.state == .pending || $0.state == .interrupted }.compactMap(\.file)
            .filter { last == nil || $0.version <= last! }
    }

    private static func explain(_ status: MigrationStatus) -> String {
        let label = "  V\(status.version) \(status.name)"
        switch status.state {
        case .failed:
            return "\(label): failed on \(status.applied?.host ?? "?") at \(status.applied?.appliedAt.iso ?? "?"): \(status.applied?.error ?? "")\n"
                + "    fix the cause, then repair the history to clear the entry, and apply the migrations again"
        case .checksumMismatch:
            return
                "\(label): \(status.file?.fileName ?? "the file") changed after it was applied (checksum \(status.applied?.checksum.prefix(12) ?? "")… applied, \(status.file?.checksum.prefix(12) ?? "")… now)\n"
                + "    restore the file and put the change in a new version, or repair the history to accept the file as it is"
        case .outOfOrder:
            return "\(label): \(status.file?.fileName ?? "the file") is older than a migration already applied and was never applied itself\n"
                + "    give it a version above the newest applied one"
        default:
            return label
        }
    }

    /// Applies the pending migrations up to `last` under the lock; returns the history entries it wrote.
    /// Cancelling the task stops the run before its next operation (``PorterError/Cause/cancelled``): a mirror rolls the
    /// migration back, on a Parse Server it stays started and the next run finishes it.
    public func up(to last: MigrationVersion?, events: (MigrationEvent) -> Void) async throws(PorterError) -> [AppliedMigration] {
        try await underLock { (lock, history) throws(PorterError) in try await up(to: last, lock: lock, history: history, events: events) }
    }

    private func up(
        to last: MigrationVersion?, lock: MigrationLock, history: MigrationHistory,
        events: (MigrationEvent) -> Void
    ) async throws(PorterError) -> [AppliedMigration] {
        let statuses = MigrationStatus.compare(files: files, history: try await history.entries())
        for status in statuses where status.state == .interrupted {
            events(
                .note(
                    "V\(status.version) was started by \(status.applied?.host ?? "another runner") at \(status.applied?.appliedAt.iso ?? "?") and never finished; running it again (its operations are safe to repeat)"
                ))
        }
        let pending = try Self.pending(statuses, upTo: last, location: target.location)
        try checkSupported(pending)
        var applied: [AppliedMigration] = []
        for file in pending {
            applied.append(try await apply(file, history: history, lock: lock, events: events))
        }
        return applied
    }

    /// Refuses the run (``PorterError/Cause/invalidData``) before it changes anything when the target cannot run one of
    /// the pending operations, naming each.
    private func checkSupported(_ files: [MigrationFile]) throws(PorterError) {
        let refused = files.flatMap { file in
            file.operations.enumerated().compactMap { index, operation in
                target.refusal(of: operation).map {
                    "  \(file.fileName): operation \(index + 1) (\(OperationRunner.describe(operation, migrationsFolder: folder))): \($0)"
                }
            }
        }
        guard refused.isEmpty else {
            throw PorterError(.invalidData, (["\(target.location): refused, nothing was changed:"] + refused).joined(separator: "\n"))
        }
    }

    private func apply(_ file: MigrationFile, history: MigrationHistory, lock: MigrationLock, events: (MigrationEvent) -> Void) async throws(PorterError)
        -> AppliedMigration
    {
        events(.started(file))
        let started = Date()
        var entry = AppliedMigration(
            version: file.version.description, name: file.name, checksum: file.checksum, appliedAt: .now,
            durationMs: 0, success: false, host: identity.host, error: nil)
        let operations = OperationRunner(target: target, migrationsFolder: folder)
        var index = 0
        do throws(PorterError) {
            try await lock.heartbeat()
            try target.begin()
            // On a server this marks the version as started, so a runner killed in the middle
            // leaves a trace; on a mirror it rolls back with everything else.
            try await history.record(entry)
            for operation in file.operations {
                if Task.isCancelled { throw PorterError(.cancelled, "cancelled before this operation") }
                let result = try await operations.apply(operation)
                events(.operation(file, index: index, result))
                index += 1
                try await lock.heartbeat()
            }
            entry.success = true
            entry.durationMs = Int(Date().timeIntervalSince(started) * 1000)
            try await history.record(entry)
            try target.commit()
        } catch {
            target.rollback()
            if error.cause == .cancelled, Task.isCancelled {
                // Not a failure of the migration: on a server its started entry stays, so the
                // next run finishes it; on a mirror nothing of it remains.
                throw PorterError(
                    .cancelled,
                    "\(file.fileName): V\(entry.version) was cancelled before operation \(index + 1). "
                        + (target.isTransactional ? rollbackNote(completed: index) : "It counts as interrupted: the next run applies it again, safely."))
            }
            entry.durationMs = Int(Date().timeIntervalSince(started) * 1000)
            entry.error =
                index < file.operations.count
                ? "operation \(index + 1) (\(OperationRunner.describe(file.operations[index], migrationsFolder: folder))): \(error.message)"
                : error.message
            try? await history.record(entry)
            throw PorterError(
                error.cause,
                "\(file.fileName): V\(entry.version) failed at \(entry.error!)\n"
                    + "It is recorded as failed. \(rollbackNote(completed: index))\n"
                    + "Fix the cause, then repair the history and apply the migrations again.")
        }
        events(.finished(file, durationMs: entry.durationMs))
        return entry
    }

    private func rollbackNote(completed: Int) -> String {
        target.isTransactional
            ? "The \(target.storeName) was rolled back: none of its operations took effect."
            : "The \(completed) operation(s) before it stay done on the server; running the migration again repeats them safely."
    }

    /// Marks a target that already has the schema as migrated up to `version` (Flyway's
    /// `baseline`): files at or below it are never applied. Only on a target without history.
    public func baseline(version: MigrationVersion) async throws(PorterError) -> AppliedMigration {
        try await underLock { (_, history) throws(PorterError) in try await baseline(version: version, history: history) }
    }

    private func baseline(version: MigrationVersion, history: MigrationHistory) async throws(PorterError) -> AppliedMigration {
        let existing = try await history.entries()
        guard existing.isEmpty else {
            throw PorterError(
                .invalidData,
                "\(target.location): baseline needs a target without migration history; it has \(Noun.counted(existing.count, "entry")) (newest V\(existing.last!.version))"
            )
        }
        let entry = AppliedMigration(
            version: version.description, name: AppliedMigration.baselineName, checksum: "", appliedAt: .now,
            durationMs: 0, success: true, host: identity.host, error: nil)
        try await history.record(entry)
        return entry
    }

    /// What `repair` changed.
    public enum RepairAction: Equatable, Sendable {
        /// A failed or interrupted entry removed: the version is pending again.
        case removed(AppliedMigration)
        /// An applied entry given the checksum (and name) of its file as it is now.
        case realigned(AppliedMigration, checksum: String)
    }

    /// Removes failed and interrupted entries and realigns the checksums of applied files that
    /// changed (Flyway's `repair`), under the lock.
    public func repair() async throws(PorterError) -> [RepairAction] {
        try await underLock { (_, history) throws(PorterError) in try await repair(history: history) }
    }

    private func repair(history: MigrationHistory) async throws(PorterError) -> [RepairAction] {
        var actions: [RepairAction] = []
        for status in MigrationStatus.compare(files: files, history: try await history.entries()) {
            guard let entry = status.applied else { continue }
            switch status.state {
            case .failed, .interrupted:
                try await history.remove(version: entry.version)
                actions.append(.removed(entry))
            case .checksumMismatch:
                guard let file = status.file else { continue }
                var realigned = entry
                realigned.checksum = file.checksum
                realigned.name = file.name
                try await history.record(realigned)
                actions.append(.realigned(entry, checksum: file.checksum))
            default:
                continue
            }
        }
        return actions
    }

    /// The name of the thread a call's work runs on: not on the cooperative pool, since a
    /// mirror's requests and its lock block their thread while another runner writes.
    private static let threadName = "parse-porter migrate"

    /// Runs `body` holding the target's lock, with the target's history, on a thread of its own.
    private func underLock<T>(_ body: (MigrationLock, MigrationHistory) async throws(PorterError) -> T) async throws(PorterError) -> T {
        try await ThreadExecutor.run(named: Self.threadName) { (executor) throws(PorterError) in
            let lock = target.migrationLock(timing: identity.timing)
            try await lock.acquire(owner: identity.owner, wait: identity.lockWait)
            let result: Result<T, PorterError>
            do throws(PorterError) {
                result = .success(try await body(lock, try target.history()))
            } catch {
                result = .failure(error)
            }
            // In a task of its own, which a cancellation of this one does not reach: a cancelled
            // run still gives the lock back.
            await Task(executorPreference: executor) { await lock.release() }.value
            return try result.get()
        }
    }
}
