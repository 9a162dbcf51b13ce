import ParseModel

/// Why a Parse API request did not succeed.
public enum ParseAPIError: Error, Sendable {
    /// The server answered with an error.
    case refused(ParseErrorAnswer)
    /// No answer: the server is unreachable or the mirror file failed.
    case failed(PorterError)

    /// The error as the command reports it, `context` naming what was asked; a refusal's answer
    /// stays under it (``PorterError/parseErrorAnswer``).
    public func porterError(_ context: String) -> PorterError {
        switch self {
        case .refused(let answer):
            PorterError(
                .target, "\(context): \(answer.code.map { "Parse error \($0)" } ?? "HTTP \(answer.status)"): \(answer.message)", underlying: answer)
        case .failed(let error):
            PorterError(error.cause, "\(context): \(error.message)")
        }
    }

    /// Parse's error code of a refusal.
    public var code: ParseErrorCode? {
        if case .refused(let answer) = self { return answer.code }
        return nil
    }
}

/// Parse's REST API as migrations and schema commands speak it, with the master key: over HTTP
/// to a Parse Server, or answered in-process over a mirror file. Paths are below the mount path
/// (`/schemas/Book`, `/classes/Book`, `/batch`).
public protocol ParseAPI: AnyObject, Sendable {
    /// The mount path (`/parse`): `/batch` sub-requests must carry it.
    var mountPath: String { get }

    /// Sends one request and returns the JSON answer; an error answer is thrown as `.refused`.
    func send(_ method: String, _ path: String, query: [(String, String)], body: JSONValue?) async throws(ParseAPIError) -> JSONValue
}

extension ParseAPI {
    /// Sends one request without query parameters (see ``send(_:_:query:body:)``).
    public func send(_ method: String, _ path: String, body: JSONValue? = nil) async throws(ParseAPIError) -> JSONValue {
        try await send(method, path, query: [], body: body)
    }
}
