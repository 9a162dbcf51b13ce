/// Header fields in arrival order; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Sequence {
    /// The header fields in order, names as received.
    public private(set) var fields: [(name: String, value: String)]

    /// Headers with these fields, in order.
    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    /// The first value of `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        let lowered = name.lowercased()
        return fields.first { $0.name.lowercased() == lowered }?.value
    }

    /// Adds a field, keeping those of the same name.
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Replaces every field called `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        fields.removeAll { $0.name.lowercased() == lowered }
        fields.append((name, value))
    }

    /// The fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

/// One HTTP request as a handler sees it: the body read whole, the query string decoded.
public struct HTTPRequest: Sendable {
    /// Upper-case method, e.g. `GET`.
    public var method: String
    /// The percent-decoded path without the query string, e.g. `/parse/classes/Book`.
    public var path: String
    /// Query parameters in order, percent-decoded (`+` read as a space).
    public var query: [(name: String, value: String)]
    /// The request's header fields.
    public var headers: HTTPHeaders
    /// The request body, de-chunked; empty when there is none.
    public var body: [UInt8]
    /// The peer's IP address, e.g. `127.0.0.1`.
    public var remoteAddress: String

    /// A request, as the server hands it to an ``HTTPHandler``.
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [], headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], remoteAddress: String = "127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The first value of query parameter `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// A complete response; the server adds `Content-Length` and `Connection`.
public struct HTTPResponse: Sendable {
    /// The HTTP status code, such as 200 or 404.
    public var status: Int
    /// The response's header fields; `Content-Length` is added when sent.
    public var headers: HTTPHeaders
    /// The response body.
    public var body: [UInt8]
    /// Held until the response has been sent or dropped: what lent the memory of a large body,
    /// which gives it back when released (a request's result budget).
    package var keptUntilSent: (any AnyObject & Sendable)?

    /// A response with this status, headers and body.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Answers requests; called on the connection's thread, so it must be safe to call from
/// several threads at once.
public protocol HTTPHandler: Sendable {
    /// The response to `request`. Throwing ``HTTPAbort`` closes the connection without an answer.
    func respond(to request: HTTPRequest) throws -> HTTPResponse
}

/// Thrown by a handler to drop the connection without answering (what a crashed or
/// unplugged server looks like to the client).
public struct HTTPAbort: Error, Sendable {
    /// The abort signal.
    public init() {}
}
