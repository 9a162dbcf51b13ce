import ParseModel
import ParseRules

/// `_Session` as Parse Server guards it (`RestWrite.handleSession`, `RestQuery`, `rest.del`;
/// Docs/ParseServer.md#sessions): only the master key sees or changes other users' sessions, and a client never
/// chooses a token, a user or an expiry. Reads are narrowed to the caller's own sessions by the
/// query engine (``ReadAccess``); the writes are checked here.
extension ParseMirrorAPI {
    /// Fields of a session that only the server (or the master key) sets.
    private static let serverSessionFields = ["sessionToken", "expiresAt", "createdWith"]

    /// A read of `_Session` without a session and without the master key: 209.
    static func checkSessionRead(_ className: String, caller: Caller) throws {
        guard className == "_Session", !caller.isMaster, caller.userId == nil else { return }
        throw APIError.invalidSessionToken
    }

    /// Refuses a `_Session` write body as Parse Server does: no session (and no master key) is
    /// 209, an `ACL` is 105 for everyone; a client may not set the token, the expiry, how the
    /// session was created or (on update) the installation, nor move a session to another user (105).
    static func checkSessionWrite(_ body: JSONObject, caller: Caller, creating: Bool) throws {
        guard caller.isMaster || caller.userId != nil else { throw APIError.parse(.invalidSessionToken, "Session token required.") }
        if body["ACL"] != nil { throw APIError.parse(.invalidKeyName, "Cannot set ACL on a Session.") }
        guard !caller.isMaster else { return }
        for field in serverSessionFields + (creating ? [] : ["installationId"]) where body[field] != nil {
            throw APIError.parse(.invalidKeyName, "\(field) of a session is set by the server.")
        }
        if !creating, let user = body["user"], user != ParseValue.pointer(PointerRef(className: "_User", objectId: caller.userId ?? "")).wireJSON {
            throw APIError.parse(.invalidKeyName, "A session cannot be moved to another user.")
        }
    }

    /// `POST /sessions` by a signed-in client: a new session of the caller with a server-made
    /// token, `createdWith` `{"action":"create"}` (the body's `user` and `objectId` are ignored, its
    /// other fields kept), answered 201 with the session's fields and objectId, token included, as
    /// Parse Server answers it (no `createdAt`).
    func createOwnSession(_ request: APIRequest, caller: Caller, data: DataAccess) throws -> APIResponse {
        guard let userId = caller.userId else { throw APIError.parse(.invalidSessionToken, "Session token required.") }
        var additional = request.body
        for field in ["objectId", "user", "installationId"] { additional[field] = nil }
        return try data.write { connection in
            // The body's installationId, else the request's `X-Parse-Installation-Id`, as Parse Server takes it.
            let installationId = request.body["installationId"]?.stringValue ?? request.credentials.installationId
            let session = try createSession(
                userId: userId, action: "create", authProvider: nil, installationId: installationId,
                additional: additional, connection: connection)
            let objectId = session["objectId"]?.stringValue ?? ""
            return APIResponse(session, status: 201, location: "\(request.publicURL)/sessions/\(objectId)")
        }
    }

    /// A non-master change or delete of a session must be the caller's own: 101 otherwise, as
    /// for a missing one (Parse Server adds `user == caller` to the update's query); a delete
    /// says "Object not found for delete.", as Parse Server's.
    static func checkSessionOwner(_ objectId: String, caller: Caller, deleting: Bool = false, connection: MirrorConnection) throws {
        let owner = try connection.database.rows("SELECT user FROM _Session WHERE objectId = ?1", [objectId]).first
        let notFound = deleting ? APIError.parse(.objectNotFound, "Object not found for delete.") : APIError.objectNotFound
        guard !caller.isMaster else {
            if deleting && owner == nil { throw notFound }
            return
        }
        guard let userId = caller.userId else { throw APIError.invalidSessionToken }
        guard owner?[0] == userId else { throw notFound }
    }
}
