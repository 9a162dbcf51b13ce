import MirrorQuery
import ParseModel

/// The work one request may ask of a ``ParseMirrorAPI``; what is answered past each limit is
/// in Docs/Limits.md.
public struct RequestLimits: Sendable {
    /// Sub-requests in one `POST /batch`: more is 107 before anything runs. 100 is the default
    /// Parse Server 9 announces for its `requestComplexity.batchRequestLimit`; unlike Parse
    /// Server, the master key is held to it too.
    public var batchRequests: Int
    /// Bytes of stored values the queries of one request (a batch's together) may read: past
    /// it the query is 102, instead of an answer of gigabytes.
    public var resultBytes: Int
    /// Bytes of stored values the queries of all requests being answered may hold together,
    /// beyond the first megabyte of each: a query that would go past it is 429 (code 100), so
    /// concurrent large answers cannot add up to gigabytes.
    public var resultMemory: Int
    /// Fields a class may have besides `objectId`, `createdAt`, `updatedAt` and `ACL`: an
    /// object write or a `/schemas` change that would add more is 255 before anything is written.
    public var fieldsPerClass: Int
    /// Seconds a query may run before it ends with 124; also the longest a batch with
    /// `transaction: true` may hold the write lock.
    public var queryTimeLimit: Double
    /// Seconds a batch may hold the write lock while another request waits for it: then a
    /// batch with `transaction: true` is undone and answered 124, and one without commits what
    /// it has written and lets the waiting writers go first.
    public var batchLockTime: Double

    /// The defaults `serve` uses (its options change them).
    public init(
        batchRequests: Int = 100, resultBytes: Int = 64 * 1024 * 1024, resultMemory: Int = 128 * 1024 * 1024,
        fieldsPerClass: Int = ClassSchema.maximumFields, queryTimeLimit: Double = MirrorReader.defaultTimeLimit,
        batchLockTime: Double = 0.25
    ) {
        self.batchRequests = batchRequests
        self.resultBytes = resultBytes
        self.resultMemory = resultMemory
        self.fieldsPerClass = fieldsPerClass
        self.queryTimeLimit = queryTimeLimit
        self.batchLockTime = batchLockTime
    }
}
