import MirrorQuery
import ParseModel

/// The work one request may ask of a ``ParseMirrorAPI``; what is answered past each limit is
/// in the README's "Limits" section.
public struct RequestLimits: Sendable {
    /// Sub-requests in one `POST /batch`: more is 107 before anything runs. 100 is the default
    /// Parse Server 9 announces for its `requestComplexity.batchRequestLimit`; unlike Parse
    /// Server, the master key is held to it too.
    public var batchRequests: Int
    /// Bytes of stored values the queries of one request (a batch's together) may read: past
    /// it the query is 102, instead of an answer of gigabytes.
    public var resultBytes: Int
    /// Fields a class may have besides `objectId`, `createdAt`, `updatedAt` and `ACL`: an
    /// object write or a `/schemas` change that would add more is 255 before anything is written.
    public var fieldsPerClass: Int
    /// Seconds a query may run before it ends with 124.
    public var queryTimeLimit: Double

    /// The defaults `serve` uses (its options change them).
    public init(batchRequests: Int = 100, resultBytes: Int = 64 * 1024 * 1024, fieldsPerClass: Int = ClassSchema.maximumFields,
                queryTimeLimit: Double = MirrorReader.defaultTimeLimit) {
        self.batchRequests = batchRequests
        self.resultBytes = resultBytes
        self.fieldsPerClass = fieldsPerClass
        self.queryTimeLimit = queryTimeLimit
    }
}

extension APIError {
    /// 255 for a write or schema change that would give `className` `count` fields, more than
    /// the `limit` (``RequestLimits/fieldsPerClass``).
    static func tooManyFields(_ className: String, count: Int, limit: Int) -> APIError {
        .parse(.invalidSchemaOperation, "\(className) would have \(count) fields; the server allows at most \(limit) per class")
    }
}
