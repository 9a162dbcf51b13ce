import ParseModel

/// A fault that stops a job (an import, an export, a pull, a migration, a schema push), with
/// its cause and a message saying what to do.
public struct PorterError: Error, Sendable, CustomStringConvertible {
    /// What stopped the job.
    public enum Cause: Sendable, Hashable {
        /// The data is invalid or a check failed: a dataset's records, a migration's objects, a
        /// schema that differs.
        case invalidData
        /// The job was asked for something it cannot do: a bad manifest, migration or schema
        /// file, a bad option or address.
        case invalidRequest
        /// The target (or source) is unreachable, refused the work or failed.
        case target
        /// The job was cancelled; the target was left as it was.
        case cancelled
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
        /// ``ParseExportOptions/includeInstallations``: whether a Parse export's `_Installation`
        /// objects are imported (``SkippedClass/setting`` when they are left out).
        case includeInstallations
        /// The format of a file whose name says none (the `format` of
        /// ``ManifestInference/manifest(forFile:className:key:format:)``).
        case sourceFormat
    }

    /// What stopped the job.
    public let cause: Cause
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
    /// `SQLiteError` (read it as `PorterError.sqliteError`, from PorterSQLite), or the Parse
    /// error a query of a mirror or a Parse request failed with (``parseError``,
    /// ``parseErrorAnswer``).
    public let underlyingError: (any Error & Sendable)?

    /// The part of a cancelled run's message after "cancelled ": what was under way and what
    /// became of the target ("while reading items.csv line 2048; the target was left as it
    /// was"). `nil` unless the run stopped at a check of its ``Cancellation``.
    public internal(set) var cancelledWhile: String?

    /// A fault of `cause` described by `message`, caused by `setting` when given.
    public init(_ cause: Cause, _ message: String, setting: Setting? = nil) {
        self.cause = cause
        self.message = message
        self.setting = setting
        self.settingValue = nil
        self.underlyingError = nil
    }

    /// A fault of `cause` described by `message`, got past by giving `setting` the value `value`.
    package init(_ cause: Cause, _ message: String, setting: Setting, value: String) {
        self.init(cause, message, setting: setting)
        self.settingValue = value
    }

    /// A fault of `cause` described by `message`, caused by `underlying`.
    package init(_ cause: Cause, _ message: String, underlying: any Error & Sendable) {
        self.cause = cause
        self.message = message
        self.setting = nil
        self.settingValue = nil
        self.underlyingError = underlying
    }

    /// A cancelled run's error: "cancelled <while>" (see ``cancelledWhile``).
    package init(cancelledWhile detail: String) {
        self.init(.cancelled, "cancelled " + detail)
        self.cancelledWhile = detail
    }

    /// An error of `cause` gathering `faults`, one a line in ``message``.
    package init(_ cause: Cause, gathering faults: [PorterError]) {
        self.init(cause, faults.map(\.message).joined(separator: "\n"))
        self.faults = faults
    }

    /// The message.
    public var description: String { message }
}

extension PorterError {
    /// The Parse error behind this one, if that is what it is (a query of a mirror that
    /// `MirrorQuery` refused, or a Parse API's refusal with a code): match its
    /// ``ParseError/code``, never its message.
    public var parseError: ParseError? {
        if let error = underlyingError as? ParseError { return error }
        return parseErrorAnswer.flatMap { answer in answer.code.map { ParseError($0, answer.message) } }
    }

    /// The answer of a Parse API that refused the request behind this error (a migration's or a
    /// schema push's request to a Parse Server, its mirror or its database), with its HTTP status.
    public var parseErrorAnswer: ParseErrorAnswer? { underlyingError as? ParseErrorAnswer }
}
