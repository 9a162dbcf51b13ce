import ParseModel

/// Who reads: `principals == nil` is the master key (no ACL filter); otherwise the ACL entries that grant
/// access: "*" always, plus the user's objectId and "role:<name>" entries when known.
public struct ReadAccess: Sendable {
    /// The ACL entries that grant this reader access; `nil` for the master key.
    public let principals: Set<String>?
    /// The signed-in user (not for the master key). It reads only its own `_Session` objects, all
    /// of its own `_User` object, and what the classes' `protectedFields` leave it (``ProtectedFields``).
    public let userId: String?
    /// Why the reader may not query a class a sub-query (`$inQuery`, `$select`…) names, given its
    /// schema (`nil` when the class does not exist): its class-level `find` permission, as for the
    /// outer query. `nil` when it may.
    package let subqueryDenial: @Sendable (_ className: String, _ schema: ClassSchema?) -> ParseError?

    /// A reader with these ACL principals (`nil`: the master key), signed in as `userId`:
    /// `ReadAccess(principals: ["*", userId, "role:Librarian"], userId: userId)`.
    public init(principals: Set<String>?, userId: String? = nil) {
        self.init(principals: principals, userId: userId, subqueryDenial: { _, _ in nil })
    }

    /// A reader whose sub-queries are also held to `subqueryDenial` (a server request's class-level permissions).
    package init(
        principals: Set<String>?, userId: String?,
        subqueryDenial: @escaping @Sendable (_ className: String, _ schema: ClassSchema?) -> ParseError?
    ) {
        self.principals = principals
        self.userId = userId
        self.subqueryDenial = subqueryDenial
    }

    /// The master key: every object is readable.
    public static let master = ReadAccess(principals: nil)
    /// No session: only objects public for reading.
    public static let anonymous = ReadAccess(principals: ["*"])

    /// Whether this is the master key, which no ACL or class-level permission limits.
    public var isMaster: Bool { principals == nil }

    /// Checks a class-level permission (`find`, `count`, `get`, `create`, `update`, `delete`,
    /// `addField`) as Parse Server's `validatePermission` does: a class without CLPs is public;
    /// once CLPs are set an operation they do not name is master-only. Entries granting `*`, the
    /// user, one of the user's roles, or `requiresAuthentication` for any signed-in user are
    /// honoured; `pointerFields`, `readUserFields` and `writeUserFields` grant nothing here.
    /// Denied: 119, or 101 when only signing in is missing.
    package func checkPermission(_ operation: String, on schema: ClassSchema) throws(ParseError) {
        guard let principals, let permissions = schema.classLevelPermissions else { return }
        let denied = ParseError(
            .operationForbidden,
            "Permission denied for action \(operation) on class \(schema.className).")
        guard case .object(let entries)? = permissions[operation] else { throw denied }
        for entry in entries where entry.value == .bool(true) {
            if principals.contains(entry.key) || (entry.key == "requiresAuthentication" && userId != nil) { return }
        }
        if entries["requiresAuthentication"] == .bool(true) && userId == nil {
            throw ParseError(.objectNotFound, "Permission denied, user needs to be authenticated.")
        }
        throw denied
    }

    /// 119 when a reader other than the master key queries (in `constraints`, also inside `$or`,
    /// `$and` and `$nor`) or sorts by a field of the class that ``ProtectedFields`` hides from it,
    /// or a path into one, as Parse Server's `denyProtectedFields` refuses a query on them: the
    /// answer would tell what the field holds. *Stricter* than Parse Server 7.1.0, which checks
    /// only the top-level keys of `where`: nested conditions, dotted paths and `order` too, and
    /// `_User.authData` as `email`.
    func checkQueryable(_ constraints: JSONObject, order: [ParseQuery.SortKey], schema: ClassSchema) throws(ParseError) {
        guard !isMaster else { return }
        let className = schema.className
        let unqueryable = ProtectedFields(schema, access: self, queriedObjectId: constraints["objectId"]?.stringValue).unqueryable
        guard !unqueryable.isEmpty else { return }
        func isProtected(_ key: String) -> Bool { unqueryable.contains(String(key.prefix { $0 != "." })) }
        func check(_ constraints: JSONObject) throws(ParseError) {
            for member in constraints {
                if isProtected(member.key) {
                    throw ParseError(.operationForbidden, "This user is not allowed to query \(member.key) on class \(className)")
                }
                guard ["$or", "$and", "$nor"].contains(member.key), case .array(let items) = member.value else { continue }
                for case .object(let item) in items { try check(item) }
            }
        }
        try check(constraints)
        for key in order where isProtected(key.field) {
            throw ParseError(.operationForbidden, "This user is not allowed to sort by \(key.field) on class \(className)")
        }
    }
}
