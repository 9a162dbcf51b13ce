import ParseModel

/// How many bytes of stored values the queries of one request may still read: a find, a get
/// and their includes (and every query of a batch, which shares its request's budget) charge
/// the size of each row they read, and the query that goes past the budget fails with 102
/// instead of building an answer of gigabytes. Used by one thread at a time.
package final class ResultBudget {
    /// The budget a request starts with.
    package let limit: Int
    /// The bytes still allowed.
    package private(set) var remaining: Int

    /// A budget of `bytes` bytes.
    package init(bytes: Int) {
        limit = bytes
        remaining = bytes
    }

    /// Takes `bytes` from the budget; 102 once it is spent.
    func charge(_ bytes: Int) throws(ParseError) {
        remaining -= bytes
        guard remaining >= 0 else {
            throw ParseError(.invalidQuery,
                             "The results exceed the server's limit of \(limit / 1_048_576) MB per request; ask for fewer objects with limit or fewer fields with keys")
        }
    }
}
