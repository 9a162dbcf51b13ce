import ParseModel

/// A fault that stops a command, with the exit code the command reports for it.
public struct PorterError: Error, Sendable, CustomStringConvertible {
    /// Exit codes shared by every command (Docs/ExitCodes.md).
    public enum Kind: Int32, Sendable {
        /// The data is invalid or a check failed.
        case invalidData = 1
        /// Bad usage or a bad manifest.
        case usage = 2
        /// The target is unreachable, refused the work or failed.
        case target = 3
        /// Interrupted (Ctrl-C); the target was left as it was.
        case interrupted = 130
    }

    /// A setting of a job whose value is behind a fault, so that a program (or a command,
    /// naming its flag for it) can tell what to change.
    public enum Setting: String, Sendable {
        /// ``ExportOptions/force``: whether an export writes into a folder that is not empty.
        case force
        /// ``ExportOptions/classes``: the classes to export.
        case classes
        /// ``ExportOptions/constraints``: the constraints the exported objects meet.
        case constraints
        /// ``ExportOptions/naturalKeys``: the keys that name objects in exported references.
        case naturalKeys
        /// ``ParseExportOptions/excludedFiles``: files of a Parse export that are not read
        /// (``PorterError/settingValue`` names the file to leave out).
        case excludedFiles
        /// ``ParseExportOptions/relationTargets``: the class a Relation of a Parse export relates
        /// to (``PorterError/settingValue`` names the Relation, `Owner.field`).
        case relationTargets
        /// ``ExportOptions/includePasswordHashes``: whether an export writes `_User` password hashes.
        case includePasswordHashes
    }

    /// Which kind of fault: its raw value is the command's exit code.
    public let kind: Kind
    /// What went wrong and what to do, naming the file, line, field or value concerned.
    public let message: String
    /// The faults of a dataset manifest, when that is what the error is (``message`` has them
    /// one a line); empty otherwise.
    public internal(set) var manifestFaults: [ManifestFault] = []

    /// The faults of an error that gathers several (a Parse export's inferred schema), each
    /// with its own setting; ``message`` has them one a line. Empty otherwise.
    public internal(set) var faults: [PorterError] = []

    /// The setting behind the fault, when changing it is the way out.
    public internal(set) var setting: Setting?
    /// What to give ``setting`` to get past the fault, when the fault knows (a file to leave out).
    public internal(set) var settingValue: String?

    /// The failure of a lower layer behind this one, when there is one: an SQLite mirror's
    /// `SQLiteError` (read it as `PorterError.sqliteError`, from PorterSQLite).
    public let underlyingError: (any Error & Sendable)?

    /// A fault of `kind` described by `message`, caused by `setting` when given.
    public init(_ kind: Kind, _ message: String, setting: Setting? = nil) {
        self.kind = kind
        self.message = message
        self.setting = setting
        self.settingValue = nil
        self.underlyingError = nil
    }

    /// A fault of `kind` described by `message`, got past by giving `setting` the value `value`.
    package init(_ kind: Kind, _ message: String, setting: Setting, value: String) {
        self.init(kind, message, setting: setting)
        self.settingValue = value
    }

    /// A fault of `kind` described by `message`, caused by `underlying`.
    package init(_ kind: Kind, _ message: String, underlying: any Error & Sendable) {
        self.kind = kind
        self.message = message
        self.setting = nil
        self.settingValue = nil
        self.underlyingError = underlying
    }

    /// An error of `kind` gathering `faults`, one a line in ``message``.
    package init(_ kind: Kind, gathering faults: [PorterError]) {
        self.init(kind, faults.map(\.message).joined(separator: "\n"))
        self.faults = faults
    }

    /// The message.
    public var description: String { message }
}
