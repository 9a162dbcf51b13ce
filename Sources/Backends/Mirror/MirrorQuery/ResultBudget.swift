import Foundation
import ParseModel

/// How many bytes of stored values the queries of one request may still read: a find, a get
/// and their includes (and every query of a batch, which shares its request's budget) charge
/// the size of each row they read, and the query that goes past the budget fails with 102
/// instead of building an answer of gigabytes. Past its first ``freeBytes``, a request borrows
/// what it reads from the server's ``ResultMemory``, shared by every request, and gives it back
/// when the budget is released (once its answer has been sent). Used by one thread at a time.
package final class ResultBudget: @unchecked Sendable {
    /// Bytes each request reads without borrowing: small answers never wait on large ones.
    package static let freeBytes = 1 << 20

    /// The budget a request starts with.
    package let limit: Int
    /// The bytes still allowed.
    package private(set) var remaining: Int
    private let shared: ResultMemory?
    /// Bytes borrowed from `shared` so far.
    private var borrowed = 0

    /// A budget of `bytes` bytes, borrowing past ``freeBytes`` from `shared` when given.
    package init(bytes: Int, shared: ResultMemory? = nil) {
        limit = bytes
        remaining = bytes
        self.shared = shared
    }

    deinit {
        if borrowed > 0 { shared?.giveBack(borrowed) }
    }

    /// Takes `bytes` from the budget; 102 once it is spent, 100 (answered 429) when the server's
    /// shared memory is lent out to other requests.
    func charge(_ bytes: Int) throws(ParseError) {
        remaining -= bytes
        guard remaining >= 0 else {
            throw ParseError(
                .invalidQuery,
                "The results exceed the server's limit of \(limit / 1_048_576) MB per request; ask for fewer objects with limit or fewer fields with keys")
        }
        guard let shared else { return }
        let needed = limit - remaining - Self.freeBytes - borrowed
        guard needed > 0 else { return }
        // Borrowed a megabyte at least at a time, so a large answer takes the lock rarely.
        let loan = max(needed, 1 << 20)
        guard shared.borrow(loan) else {
            throw ParseError(
                .connectionFailed,
                "Too many requests: the server is answering other large results (\(shared.limit / 1_048_576) MB "
                    + "at once); try again, or ask for fewer objects with limit or fewer fields with keys")
        }
        borrowed += loan
    }
}

/// The bytes of results all requests of a server may hold at once beyond each one's
/// ``ResultBudget/freeBytes``: concurrent large answers are bounded together, not each alone.
package final class ResultMemory: @unchecked Sendable {
    /// The bytes that may be lent at once.
    package let limit: Int
    private let lock = NSLock()
    private var lent = 0

    package init(bytes: Int) {
        limit = bytes
    }

    /// Lends `bytes`, unless that would lend more than ``limit`` at once.
    func borrow(_ bytes: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard lent + bytes <= limit else { return false }
        lent += bytes
        return true
    }

    func giveBack(_ bytes: Int) {
        lock.lock()
        lent -= bytes
        lock.unlock()
    }
}
