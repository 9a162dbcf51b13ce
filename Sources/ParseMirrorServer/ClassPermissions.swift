import MirrorQuery
import ParseModel

extension Caller {
    /// Checks a class-level permission as Parse Server does (see ``ReadAccess/checkPermission(_:on:)``).
    func checkPermission(_ operation: String, on schema: ClassSchema) throws {
        try readAccess.checkPermission(operation, on: schema)
    }
}
