/// A Parse error: its code and message, as Parse Server sends them in `{"code": N, "error": "…"}`
/// and Parse's SDKs surface them in their `ParseError`. Described as `Parse error 137: …`.
public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The Parse error code, such as ``ParseErrorCode/objectNotFound``.
    public let code: ParseErrorCode
    /// The `error` text, as the server wrote it.
    public let message: String

    /// An error with `code` and `message`.
    public init(_ code: ParseErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `Parse error <code>: <message>`.
    public var description: String { "Parse error \(code): \(message)" }
}
