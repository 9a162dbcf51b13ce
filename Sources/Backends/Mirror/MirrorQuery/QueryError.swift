import ParseModel
import PorterCore

extension PorterError {
    /// A query's Parse error as the public API throws it, with the Parse error under it
    /// (``PorterError/parseError``): a failing mirror (an internal error, shared limits taken)
    /// is a target error, any other refusal a bad request.
    init(query error: ParseError) {
        let cause: Cause = [.internalServerError, .connectionFailed].contains(error.code) ? .target : .invalidRequest
        self.init(cause, error.message, underlying: error)
    }
}

/// `body`'s result, its Parse error thrown as a ``PorterError`` (see ``PorterError/init(query:)``).
func throwingPorterError<T>(_ body: () throws(ParseError) -> T) throws(PorterError) -> T {
    do { return try body() } catch { throw PorterError(query: error) }
}
