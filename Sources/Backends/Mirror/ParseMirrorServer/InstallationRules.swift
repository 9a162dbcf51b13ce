import MirrorQuery
import ParseModel

/// `_Installation`: only the master key may find (query, count, sub-query) or delete
/// installations, as Parse Server's `enforceRoleSecurity` rules; a client may still create,
/// get and update them as their ACLs allow.
extension Caller {
    /// 119 when this caller may not `operation` (`find` or `delete`) objects of `className`.
    func checkInstallationAccess(_ operation: String, on className: String) throws(ParseError) {
        guard className == "_Installation", !isMaster, operation == "find" || operation == "delete" else { return }
        throw ParseError(.operationForbidden, "Clients aren't allowed to perform the \(operation) operation on the installation collection.")
    }
}
