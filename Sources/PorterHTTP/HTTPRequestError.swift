/// Why a request could not be read. The server answers with ``response`` and closes the connection.
enum HTTPRequestError: Error, Equatable {
    /// A broken request line, header field or chunked body.
    case malformed
    /// The header block (or a chunked body's trailer) exceeds ``HTTPParser/maxHeadBytes``.
    case headersTooLarge
    /// The body exceeds the server's limit.
    case bodyTooLarge
    /// A `Transfer-Encoding` other than `chunked`.
    case unsupportedTransferEncoding
    /// An `Expect` other than `100-continue`.
    case unsupportedExpectation
    /// The head and body did not arrive within the server's request timeout.
    case timedOut

    var response: HTTPResponse {
        switch self {
        case .malformed: .json(status: 400, #"{"error":"bad request"}"#)
        case .headersTooLarge: .json(status: 431, #"{"error":"request header fields too large"}"#)
        case .bodyTooLarge: .json(status: 413, #"{"error":"request entity too large"}"#)
        case .unsupportedTransferEncoding: .json(status: 501, #"{"error":"unsupported transfer encoding"}"#)
        case .unsupportedExpectation: .json(status: 417, #"{"error":"expectation failed"}"#)
        case .timedOut: .json(status: 408, #"{"error":"request timeout: the request did not arrive in time"}"#)
        }
    }
}

extension HTTPResponse {
    /// The answer to a handler that threw something other than ``HTTPAbort``, in Parse's error format.
    static let internalServerError = HTTPResponse.json(status: 500, #"{"code":1,"message":"Internal server error."}"#)
    /// The answer to a connection beyond the server's ``HTTPServer/Limits/maxConnections``.
    static let tooManyConnections = HTTPResponse.json(status: 503, #"{"error":"too many connections: try again later"}"#)

    static func json(status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([("Content-Type", "application/json; charset=utf-8")]),
            body: Array(text.utf8))
    }
}
