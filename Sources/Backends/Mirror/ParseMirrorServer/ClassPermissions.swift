import MirrorQuery
import ParseModel
import ParseRules

extension Caller {
    /// Checks a class-level permission as Parse Server does (see ``ReadAccess/checkPermission(_:on:)``).
    func checkPermission(_ operation: String, on schema: ClassSchema) throws {
        try readAccess.checkPermission(operation, on: schema)
    }

    /// Why this caller may not run a sub-query on `className` (`schema` is `nil` when the class
    /// does not exist): what a query of its own on the class would answer with client class
    /// creation off (a missing class is 119 but for the master key and Parse's own classes; so
    /// are installations); `nil` when it may.
    func subqueryDenial(_ className: String, _ schema: ClassSchema?) -> ParseError? {
        do { try checkInstallationAccess("find", on: className) } catch { return error }
        guard let schema else {
            guard isMaster || ParseNames.systemClasses.contains(className) else { return ParseError(APIError.nonExistentClass(className)) }
            return nil
        }
        do { try checkPermission("find", on: schema) } catch { return ParseError(APIError(error)) }
        return nil
    }
}

extension ParseError {
    /// A route's error as a Parse error (its code, or `internalServerError` for one without).
    init(_ error: APIError) {
        self.init(error.answer.code ?? .internalServerError, error.answer.message)
    }
}
