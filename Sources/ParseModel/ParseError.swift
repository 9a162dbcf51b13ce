/// A Parse error: its code and message, as Parse Server sends them in `{"code": N, "error": "…"}`
/// and Parse's SDKs surface them in their `ParseError`.
public struct ParseError: Error, Sendable, Equatable {
    public let code: ParseErrorCode
    public let message: String

    public init(_ code: ParseErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
