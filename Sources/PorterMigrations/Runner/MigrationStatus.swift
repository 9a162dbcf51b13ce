import ParseModel
import PorterCore

/// Where one version stands on a target, as `migrate status` lists it (Flyway's `info`).
public struct MigrationStatus: Sendable {
    /// The state of one version, its raw value as `migrate status` prints it.
    public enum State: String, Sendable {
        case applied, pending, baseline
        /// Failed with an error; blocks `up` until `repair`.
        case failed
        /// Started on a Parse Server and never finished (its runner was stopped); `up` runs it again.
        case interrupted
        /// Started on a Parse Server by the runner that holds the lock now.
        case running
        /// Applied, but the file changed since: an error, as Flyway's `validate` has it.
        case checksumMismatch = "checksum mismatch"
        /// A file older than the newest applied migration, never applied: an error.
        case outOfOrder = "out of order"
        /// At or below the baseline: never applied.
        case belowBaseline = "below baseline"
        /// Applied, but no file has its version any more.
        case missingFile = "file missing"
    }

    /// The version as ``MigrationVersion`` writes it.
    public var version: String
    /// The migration's description, from its file or, without one, from its history entry.
    public var name: String
    /// Where it stands.
    public var state: State
    /// Its file; `nil` when no file has this version (``State/missingFile``).
    public var file: MigrationFile?
    /// Its history entry; `nil` when it was never started.
    public var applied: AppliedMigration?

    /// States that stop `plan` and `up` (``PorterError/Cause/invalidData``).
    public var isError: Bool { state == .failed || state == .checksumMismatch || state == .outOfOrder }

    /// Compares the files with the history: one status per version either knows, in version order.
    /// While a runner holds the lock (`locked`), a started migration is running, not interrupted.
    public static func compare(files: [MigrationFile], history: [AppliedMigration], locked: Bool = false) -> [MigrationStatus] {
        let applied = Dictionary(history.map { ($0.version, $0) }, uniquingKeysWith: { _, last in last })
        let baseline = history.filter(\.isBaseline).compactMap { MigrationVersion($0.version) }.max()
        let newestApplied = history.filter { $0.success && !$0.isBaseline }.compactMap { MigrationVersion($0.version) }.max()
        var statuses: [MigrationStatus] = files.map { file in
            let version = file.version.description
            guard let entry = applied[version] else {
                let state: State =
                    if let baseline, file.version <= baseline { .belowBaseline } else if let newestApplied, file.version < newestApplied { .outOfOrder } else {
                        .pending
                    }
                return MigrationStatus(version: version, name: file.name, state: state, file: file, applied: nil)
            }
            let state: State =
                if entry.isBaseline { .baseline } else if !entry.success {
                    entry.error == nil ? (locked ? .running : .interrupted) : .failed
                } else if entry.checksum != file.checksum { .checksumMismatch } else { .applied }
            return MigrationStatus(version: version, name: file.name, state: state, file: file, applied: entry)
        }
        let fileVersions = Set(files.map(\.version.description))
        for entry in history where !fileVersions.contains(entry.version) {
            let state: State =
                entry.isBaseline
                ? .baseline
                : !entry.success
                    ? (entry.error == nil ? (locked ? .running : .interrupted) : .failed)
                    : .missingFile
            statuses.append(MigrationStatus(version: entry.version, name: entry.name, state: state, file: nil, applied: entry))
        }
        return statuses.sorted { MigrationVersion.precedes($0.version, $1.version) }
    }
}
