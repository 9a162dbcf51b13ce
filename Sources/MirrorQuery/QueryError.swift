/// A Parse error to send back: code (PARSE_REST §9) and message.
public struct QueryError: Error, Sendable, Equatable {
    public let code: Int
    public let message: String
    public init(code: Int, _ message: String) {
        self.code = code
        self.message = message
    }
}
