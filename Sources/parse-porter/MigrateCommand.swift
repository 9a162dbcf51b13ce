import ArgumentParser
import Foundation
import ParseModel
import PorterMigrations
import PorterPipeline
import PorterREST

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply the versioned migrations of a folder to a SQLite mirror, a Parse Server or its PostgreSQL database, once each.",
        discussion: """
            Files are named V<version>__<name>.yml (or .json) and applied in version order (2 before 10). Each applied version is recorded in the target's history with the SHA-256 of its file: the _PorterMigrations table of a mirror or a PostgreSQL database, the PorterMigrations class on a Parse Server. A file changed after it was applied is an error until it is restored or `repair` accepts it.

            On a mirror and on Parse Server's PostgreSQL database (postgres://…) each migration is one transaction: a failed one leaves nothing behind. On PostgreSQL the lock is an advisory lock, and the operations that read or write objects (renameField, changeType, updateObjects, deleteObjects) run in the migration's transaction, with the master key's rights.

            Two runs against one target at once apply each migration once: they take the target's lock, which has an owner, a heartbeat and an expiry (--lock-ttl), so a killed runner does not block the next one for longer.

            Examples (Migrations/ holds the V<version>__<name>.yml files):
              parse-porter migrate status --dir Migrations --target app.sqlite
              parse-porter migrate plan --dir Migrations --target staging
              PARSE_SERVER_URL=https://parse.example.com/parse \\
                  PARSE_SERVER_APPLICATION_ID=myApp PARSE_SERVER_MASTER_KEY=… \\
                  parse-porter migrate up --dir Migrations
            """,
        subcommands: [Status.self, Plan.self, Up.self, Baseline.self, Repair.self]
    )

    /// The options every migrate subcommand takes.
    struct Options: ParsableArguments {
        @Option(name: .long, help: "The migrations folder.")
        var dir = "Migrations"

        @Option(
            name: .customLong("target"),
            help:
                "A SQLite mirror path, a Parse Server URL (with the master key in $PARSE_MASTER_KEY or $PARSE_SERVER_MASTER_KEY), a Parse Server's PostgreSQL database (postgres://…), or a target named in parse-porter.yml (default: $PARSE_SERVER_URL)."
        )
        var givenTarget: String?

        /// The target given, or else `$PARSE_SERVER_URL` (``validate()`` made sure there is one).
        var target: String { TargetOptions.target(givenTarget) ?? "" }

        /// The target as messages show it: a mirror path, or the URL (a project target's too) without credentials.
        var shownTarget: String {
            get throws(PorterError) { try server.backend(target).shown }
        }

        @OptionGroup var server: TargetOptions

        func validate() throws {
            if TargetOptions.target(givenTarget) == nil { throw TargetOptions.missingTarget("--target") }
        }

        func files() throws(PorterError) -> [MigrationFile] { try MigrationDirectory.load(dir) }

        /// A runner on the target, the files read first (a bad file is exit 2 whatever the
        /// target). A mirror that does not exist is made empty when `create`, else exit 3.
        func runner(create: Bool, identity: RunnerIdentity = RunnerIdentity()) throws(PorterError) -> MigrationRunner {
            let files = try files()
            return MigrationRunner(target: try server.migrationTarget(target, create: create), files: files, folder: dir, identity: identity)
        }
    }

    /// How the subcommands that take the target's lock (up, baseline, repair) wait for it.
    struct LockOptions: ParsableArguments {
        @Option(name: .customLong("lock-wait"), help: "Seconds to wait for the lock while another runner holds it.")
        var lockWait: Double = 300

        @Option(name: .customLong("lock-ttl"), help: "Seconds after its last heartbeat at which a runner holding the lock counts as dead.")
        var lockTTL: Double = 60

        func validate() throws {
            if lockWait < 0 { throw ValidationError("--lock-wait must not be negative") }
            if lockTTL <= 0 { throw ValidationError("--lock-ttl must be more than 0") }
        }

        var identity: RunnerIdentity { RunnerIdentity(lockWait: lockWait, timing: LockTiming(timeToLive: lockTTL)) }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every version with its state: applied, pending, failed, interrupted, checksum mismatch, baseline.",
            discussion: "Exit 1 when the history and the files disagree (a failed migration, a changed file, a file older than the newest applied one).")

        @OptionGroup var options: Options

        @Flag(name: .long, help: "Print the status as JSON.")
        var json = false

        func run() async throws {
            let (statuses, holder) = try await options.runner(create: false).status()
            if json {
                Terminal.output(MigrationReport.json(statuses, lock: holder).serialized())
            } else {
                Terminal.output(MigrationReport.table(statuses))
                if let holder { Terminal.output("locked by \(holder.owner)" + (holder.expiresAt.map { " until \($0.iso)" } ?? "")) }
            }
            if statuses.contains(where: \.isError) { throw ExitCode(PorterError.Cause.invalidData.exitCode) }
        }
    }

    struct Plan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print exactly what `up` would apply, operation by operation; writes nothing.",
            discussion:
                "Each pending migration in version order, with its file and checksum, then its operations as `up` would run them against the target's schemas. Takes no lock: another runner may apply them first."
        )

        @OptionGroup var options: Options

        @Option(name: .long, help: "Stop at this version.")
        var to: String?

        func run() async throws {
            let last = try MigrateCommand.version(to)
            let runner = try options.runner(create: false)
            let pending: [MigrationFile]
            do { pending = try await runner.pending(upTo: last) } catch { throw await MigrateCommand.hinted(error, runner) }
            let schemas = try await runner.target.api.schemas()
            guard !pending.isEmpty else {
                Terminal.output("\(try options.shownTarget) is up to date: nothing to apply")
                return
            }
            Terminal.output("would apply \(Noun.counted(pending.count, "migration")) to \(try options.shownTarget):")
            for file in pending {
                Terminal.output("V\(file.version) \(file.name) (\(file.fileName), sha256 \(file.checksum.prefix(12))…)")
                for (index, operation) in file.operations.enumerated() {
                    Terminal.output("  \(index + 1). \(OperationRunner.describe(operation, migrationsFolder: options.dir, schemas: schemas))")
                }
            }
        }
    }

    struct Up: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the pending migrations in version order, each once, under the target's lock.",
            discussion: """
                On a mirror each migration is one transaction: a failure rolls it back. On a Parse Server a failure leaves the operations before it done; they are written to be safe to run again. Either way the migration is recorded as failed with its error, and `up` refuses to go on until `repair` cleared it.
                """)

        @OptionGroup var options: Options
        @OptionGroup var lock: LockOptions

        @Option(name: .long, help: "Stop after this version.")
        var to: String?

        @Flag(name: .shortAndLong, help: "Print only the summary.")
        var quiet = false

        func run() async throws {
            let last = try MigrateCommand.version(to)
            let runner = try options.runner(create: true, identity: lock.identity)
            let started = Date()
            // A migration's operations are printed once it committed: a mirror rolls a failed
            // one back whole, so there they are printed marked as such.
            var done: [String] = []
            let applied: [AppliedMigration]
            do {
                applied = try await runner.up(to: last) { event in
                    switch event {
                    case .note(let text): Terminal.error(text)
                    case .started(let file): if !quiet { Terminal.output("V\(file.version) \(file.name)") }
                    case .operation(_, let index, let result): done.append("  \(index + 1). \(result.summary)")
                    case .finished(_, let durationMs):
                        if !quiet { Terminal.output((done + ["  done in \(durationMs) ms"]).joined(separator: "\n")) }
                        done = []
                    }
                }
            } catch {
                let rolledBack = runner.target.isTransactional
                if !quiet && !done.isEmpty { Terminal.output(done.map { $0 + (rolledBack ? " (rolled back)" : "") }.joined(separator: "\n")) }
                throw await MigrateCommand.hinted(error, runner)
            }
            let newest = try await runner.status().migrations.last { $0.state == .applied || $0.state == .baseline }
            Terminal.output(
                String(
                    format: "applied %@ to %@ in %.2f s; now at %@", Noun.counted(applied.count, "migration"),
                    try options.shownTarget, Date().timeIntervalSince(started), newest.map { "V" + $0.version } ?? "no version"))
        }
    }

    struct Baseline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a target that already has the schema as being at a version: files up to it are never applied.",
            discussion: "Only on a target without migration history (Flyway's baseline).")

        @OptionGroup var options: Options
        @OptionGroup var lock: LockOptions

        @Option(name: .long, help: "The version the target already has.")
        var version: String

        func run() async throws {
            let version = try MigrateCommand.version(version)!
            let runner = try options.runner(create: true, identity: lock.identity)
            do { _ = try await runner.baseline(version: version) } catch { throw await MigrateCommand.hinted(error, runner) }
            Terminal.output("baselined \(try options.shownTarget) at V\(version): migrations up to V\(version) will not be applied")
        }
    }

    struct Repair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Clear failed and interrupted entries (after a human fixed the cause) and accept changed files' checksums.",
            discussion:
                "A failed or interrupted migration is removed from the history, so `up` applies it again; a file changed since it was applied has its recorded checksum replaced by the file's. Run it under the target's lock, after fixing what made the migration fail."
        )

        @OptionGroup var options: Options
        @OptionGroup var lock: LockOptions

        func run() async throws {
            let runner = try options.runner(create: false, identity: lock.identity)
            let actions: [MigrationRunner.RepairAction]
            do { actions = try await runner.repair() } catch { throw await MigrateCommand.hinted(error, runner) }
            guard !actions.isEmpty else {
                Terminal.output("nothing to repair")
                return
            }
            for action in actions {
                switch action {
                case .removed(let entry):
                    Terminal.output("removed V\(entry.version) \(entry.name) (\(entry.error.map { "failed: \($0)" } ?? "interrupted")): it is pending again")
                case .realigned(let entry, let checksum):
                    Terminal.output(
                        "V\(entry.version) \(entry.name): accepted the file as it is now (checksum \(entry.checksum.prefix(12))… → \(checksum.prefix(12))…)")
                }
            }
        }
    }

    /// `--to`/`--version` as a version; exit 2 when it is not one.
    static func version(_ text: String?) throws(PorterError) -> MigrationVersion? {
        guard let text else { return nil }
        let trimmed = text.hasPrefix("V") || text.hasPrefix("v") ? String(text.dropFirst()) : text
        guard let version = MigrationVersion(trimmed) else { throw PorterError(.invalidRequest, "\(text): not a migration version (e.g. 3 or 1.2)") }
        return version
    }

    /// `error` with the command's words added to what the library says in its own: how to clear
    /// a failed migration or accept a changed file, and how to wait longer for a held lock.
    static func hinted(_ error: any Error, _ runner: MigrationRunner) async -> any Error {
        guard let failure = error as? PorterError, failure.cause != .cancelled, failure.cause != .invalidRequest,
            let (statuses, holder) = try? await runner.status()
        else { return error }
        var hints: [String] = []
        if statuses.contains(where: { $0.state == .failed || $0.state == .checksumMismatch }) {
            hints.append("`parse-porter migrate repair` clears failed entries and accepts changed files; then run `parse-porter migrate up` again.")
        }
        if failure.cause == .target, let holder, holder.owner != runner.identity.owner {
            hints.append("--lock-wait sets how long to wait for the lock.")
        }
        return hints.isEmpty ? error : PorterError(failure.cause, failure.message + "\n" + hints.joined(separator: "\n"))
    }

}
