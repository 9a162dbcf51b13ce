import ParseModel
import PorterCore

/// An error the server answers (``answer``) in one of Parse Server's shapes
/// (Docs/ParseServer.md#errors), with what only the server knows of it: which body member holds
/// the message, and the cause of an internal error for its log.
package struct APIError: Error {
    /// The status, Parse's code (`nil` for the code-less 403/404 answers) and the message sent.
    package let answer: ParseErrorAnswer
    /// `error`, or `message` for uncaught errors (Parse's own inconsistency, kept for fidelity).
    private let messageKey: String
    /// What went wrong behind an internal error, for the server's own log; never sent, since it
    /// may name the mirror's path or SQL.
    package let cause: String?

    /// A Parse error: HTTP 404 for `objectNotFound`, 429 for `connectionFailed` (what Parse
    /// Server's rate limiter answers, `middlewares.js` `handleRateLimit`: here, the server's
    /// shared limits are taken by other requests), 400 for every other code; `internalServerError`
    /// is an internal error whose message stays in the server's log (see ``internalFailure(_:)``).
    package static func parse(_ code: ParseErrorCode, _ message: String) -> APIError {
        guard code != .internalServerError else { return internalFailure(message) }
        let status = code == .objectNotFound ? 404 : code == .connectionFailed ? 429 : 400
        return APIError(answer: ParseErrorAnswer(status: status, code: code, message: message))
    }

    /// 403 `{"error":"unauthorized"}`: bad application id, client key or master-key address.
    package static let unauthorized = APIError(answer: ParseErrorAnswer(status: 403, code: nil, message: "unauthorized"))
    /// 403 on master-key-only routes.
    package static let masterKeyRequired = APIError(answer: ParseErrorAnswer(status: 403, code: nil, message: "unauthorized: master key is required"))
    /// 500 `{"code":1,"message":"Internal server error."}`, what Parse Server answers for uncaught
    /// errors and for a failed transactional batch, with its cause, which only the server's log shows.
    package static func internalFailure(_ cause: String) -> APIError {
        APIError(answer: ParseErrorAnswer(status: 500, code: .internalServerError, message: "Internal server error."), messageKey: "message", cause: cause)
    }

    package static let objectNotFound = APIError.parse(.objectNotFound, "Object not found.")
    package static let invalidSessionToken = APIError.parse(.invalidSessionToken, "Invalid session token")

    package static func invalidClassName(_ name: String) -> APIError {
        .parse(.invalidClassName, "Invalid classname: \(name), classnames can only have alphanumeric characters and _, and must start with an alpha character ")
    }

    package static func nonExistentClass(_ name: String) -> APIError {
        .parse(.operationForbidden, "This user is not allowed to access non-existent class: \(name)")
    }

    /// A body that is not a JSON object: 400 without a code, as Express's body parser answers.
    package static func invalidJSON(_ detail: String) -> APIError {
        APIError(answer: ParseErrorAnswer(status: 400, code: nil, message: "Invalid JSON: \(detail)"))
    }

    /// An unroutable request: Express answers 404 "Cannot GET /path"; we answer it as JSON.
    package static func noRoute(_ method: String, _ path: String) -> APIError {
        APIError(answer: ParseErrorAnswer(status: 404, code: nil, message: "Cannot \(method) \(path)"))
    }

    /// The JSON body: `{"code":N,"error":"…"}`, `{"error":"…"}` without a code, or
    /// `{"code":1,"message":"…"}` for internal errors.
    package var body: JSONValue {
        var object = JSONObject()
        if let code = answer.code { object["code"] = .integer(Int64(code.rawValue)) }
        object[messageKey] = .string(answer.message)
        return .object(object)
    }

    /// Any error a route throws, in Parse's shape: Parse errors keep their code, anything
    /// unexpected (SQLite failures) is an internal error.
    package init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as ParseError: self = .parse(error.code, error.message)
        case let error as PorterError: self = .internalFailure(error.message)
        default: self = .internalFailure(String(describing: error))
        }
    }

    private init(answer: ParseErrorAnswer, messageKey: String = "error", cause: String? = nil) {
        self.answer = answer
        self.messageKey = messageKey
        self.cause = cause
    }
}

/// A route's answer before it becomes an HTTP response.
package struct APIResponse {
    package var status: Int
    package var body: JSONValue
    package var location: String?
    /// Causes of internal errors behind this answer (a failed request, or failed sub-requests of
    /// a batch), for the server's log.
    package var internalFailures: [String] = []

    package init(_ body: JSONValue, status: Int = 200, location: String? = nil) {
        self.status = status
        self.body = body
        self.location = location
    }

    package init(_ object: JSONObject, status: Int = 200, location: String? = nil) {
        self.init(.object(object), status: status, location: location)
    }

    package init(error: APIError) {
        self.init(error.body, status: error.answer.status)
        internalFailures = error.cause.map { [$0] } ?? []
    }
}

extension APIResponse {
    /// What `route` answers, or Parse's error answer to what it throws (see ``APIError/init(_:)``);
    /// a refusal the storage found (a ``PorterError`` with a ``ParseError`` under it, such as an
    /// index name PostgreSQL already has) is answered too. Any other ``PorterError``, a failure
    /// of the storage itself, is thrown, not answered.
    package init(answering route: () throws -> APIResponse) throws(PorterError) {
        do {
            self = try route()
        } catch let error as PorterError {
            guard let refusal = error.parseError else { throw error }
            self.init(error: APIError(refusal))
        } catch {
            self.init(error: APIError(error))
        }
    }
}
