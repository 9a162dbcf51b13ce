/// Parse's answer to a request it refused: the HTTP status, Parse's error code when the body
/// has one, and the message. Parse Server answers `{"code": N, "error": "…"}`, with HTTP 400, 404
/// for 101 and 500 for 1; its uncaught errors answer 500 `{"code": 1, "message": "…"}`, and
/// answers with a status of their own (403 for a refused key, 404 for an unknown route, 413),
/// and the 400 of a body that is not JSON, carry no code (Docs/ParseServer.md#errors).
///
/// A ``ParseError`` is what Parse's rules throw: a code, always, and a message; the status is
/// the server's to give when it answers one.
public struct ParseErrorAnswer: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, such as 400 or 404.
    public let status: Int
    /// Parse's error code; `nil` for an answer without one (403, 404 for an unknown route, 413,
    /// 400 for a body that is not JSON).
    public let code: ParseErrorCode?
    /// The `error` text (`message` for uncaught errors), as the server wrote it.
    public let message: String

    /// The answer `status` with `code` and `message`.
    public init(status: Int, code: ParseErrorCode?, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// `HTTP 404, Parse error 101: Object not found.`, or `HTTP 403: unauthorized` without a code.
    public var description: String {
        "HTTP \(status)\(code.map { ", Parse error \($0)" } ?? ""): \(message)"
    }
}

extension ParseErrorAnswer {
    /// The answer `status` with an error body as Parse Server sends it: the code of
    /// ``ParseErrorCode/init(errorBody:)`` and the body's `error` (or `message`) text, `otherwise`
    /// when it has neither (a body that is not Parse's, such as a proxy's page).
    package init(status: Int, body: JSONValue?, otherwise: @autoclosure () -> String) {
        let text = body?["error"]?.stringValue ?? body?["message"]?.stringValue
        self.init(status: status, code: ParseErrorCode(errorBody: body), message: text ?? otherwise())
    }
}
