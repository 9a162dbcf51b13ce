import MirrorQuery
import ParseModel

extension Caller {
    /// Checks a class-level permission (`find`, `count`, `get`, `create`, `update`, `delete`,
    /// `addField`) as Parse Server does: a class without CLPs is public; once CLPs are set an
    /// operation they do not name is master-only. Entries granting `*`, the user, one of the
    /// user's roles, or `requiresAuthentication` for any signed-in user are honoured;
    /// `pointerFields`, `readUserFields` and `writeUserFields` are not (they grant nothing here).
    func checkPermission(_ operation: String, on schema: ClassSchema) throws {
        guard !isMaster, let permissions = schema.classLevelPermissions else { return }
        guard case .object(let entries)? = permissions[operation] else { throw denied(operation, schema.className) }
        for entry in entries where entry.value == .bool(true) {
            if principals.contains(entry.key) || (entry.key == "requiresAuthentication" && userId != nil) { return }
        }
        if entries["requiresAuthentication"] == .bool(true) && userId == nil {
            throw APIError.parse(101, "Permission denied, user needs to be authenticated.")
        }
        throw denied(operation, schema.className)
    }

    /// Why this caller may not run a sub-query on `className` (`schema` is `nil` when the class
    /// does not exist): exactly what a query of its own on the class would answer; `nil` when it may.
    func subqueryDenial(_ className: String, _ schema: ClassSchema?) -> QueryError? {
        guard let schema else {
            guard ParseMirrorAPI.mayUseMissingClass(className, caller: self) else { return QueryError(APIError.nonExistentClass(className)) }
            return nil
        }
        do { try checkPermission("find", on: schema) } catch { return QueryError(APIError(error)) }
        return nil
    }

    private func denied(_ operation: String, _ className: String) -> APIError {
        .parse(119, "Permission denied for action \(operation) on class \(className).")
    }
}

extension QueryError {
    /// A route's Parse error as a query error (its code, or 1 for one without).
    init(_ error: APIError) {
        self.init(code: error.code ?? ParseErrorCode.internalServerError.rawValue, error.message)
    }
}
