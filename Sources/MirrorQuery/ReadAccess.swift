import ParseModel

/// Who reads: `principals == nil` is the master key (no ACL filter); otherwise the ACL entries that grant
/// access: "*" always, plus the user's objectId and "role:<name>" entries when known.
public struct ReadAccess: Sendable {
    public let principals: Set<String>?
    /// Why the reader may not query a class a sub-query (`$inQuery`, `$select`…) names, given its
    /// schema (`nil` when the class does not exist): its class-level `find` permission, as for the
    /// outer query. `nil` when it may.
    public let subqueryDenial: @Sendable (_ className: String, _ schema: ClassSchema?) -> QueryError?

    public init(principals: Set<String>?, subqueryDenial: @escaping @Sendable (_ className: String, _ schema: ClassSchema?) -> QueryError? = { _, _ in nil }) {
        self.principals = principals
        self.subqueryDenial = subqueryDenial
    }

    /// The master key: every object is readable.
    public static let master = ReadAccess(principals: nil)
    /// No session: only objects public for reading.
    public static let anonymous = ReadAccess(principals: ["*"])
}
