import ParseModel

/// A fault that stops a command, with the exit code the command reports for it.
public struct PorterError: Error, Sendable, CustomStringConvertible {
    /// Exit codes shared by every command (README "Exit codes").
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

    /// Which kind of fault: its raw value is the command's exit code.
    public let kind: Kind
    /// What went wrong and what to do, naming the file, line, field or value concerned.
    public let message: String

    /// A fault of `kind` described by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
