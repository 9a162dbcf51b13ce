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

    private func denied(_ operation: String, _ className: String) -> APIError {
        .parse(119, "Permission denied for action \(operation) on class \(className).")
    }
}
