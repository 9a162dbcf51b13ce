import MirrorQuery
import ParseModel
import PorterSQLite

/// Sign-up, log-in, log-out and the current user: `_User` objects with bcrypt password hashes
/// in the `_hashed_password` column (never returned) and `_Session` objects holding `r:` tokens.
extension ParseMirrorAPI {
    /// `POST /users` (or `/classes/_User`): username and password are required (200, 201),
    /// usernames and emails are unique ignoring case (202, 203); answers 201 with the
    /// new user's `objectId`, `createdAt` and a new session's `sessionToken`.
    func signUp(_ request: APIRequest, caller: Caller, data: DataAccess) throws -> APIResponse {
        var body = request.body
        guard case .string(let username)? = body["username"], !username.isEmpty else { throw APIError.parse(.usernameMissing, "bad or missing username") }
        guard let password = try Self.takePassword(from: &body) else { throw APIError.parse(.passwordMissing, "password is required") }
        let objectId = try customObjectId(body, className: "_User") ?? RandomTokens.objectId()
        let hash = try request.hash(password)
        return try data.write { connection in
            try checkUserFields(body, excluding: nil, caller: caller, connection: connection)
            let plan = try writePlan(body, className: "_User", current: connection.schema("_User"), caller: caller, creating: true)
            var response = try insert(plan, objectId: objectId, timestamps: Self.givenTimestamps(request.body, caller: caller), connection: connection)
            try storePasswordHash(hash, userId: objectId, connection: connection)
            response["sessionToken"] = try createSession(userId: objectId, action: "signup", installationId: request.credentials.installationId,
                                                         connection: connection)["sessionToken"]
            return APIResponse(response, status: 201, location: "\(request.publicURL)/users/\(objectId)")
        }
    }

    /// `GET /login?username=…&password=…` or `POST /login` with a JSON body (also by `email`):
    /// the user with a new `sessionToken`; 101 "Invalid username/password." when they do not match.
    func logIn(_ request: APIRequest, data: DataAccess) throws -> APIResponse {
        /// An empty value counts as missing, as Parse Server's falsy checks make it.
        func parameter(_ name: String) -> String? {
            (request.body[name]?.stringValue ?? request.query.first { $0.name == name }?.value).flatMap { $0.isEmpty ? nil : $0 }
        }
        let login = parameter("username").map { ("username", $0) } ?? parameter("email").map { ("email", $0) }
        guard let (column, name) = login else { throw APIError.parse(.usernameMissing, "username/email is required.") }
        guard let password = parameter("password") else { throw APIError.parse(.passwordMissing, "password is required.") }
        let invalid = APIError.parse(.objectNotFound, "Invalid username/password.")
        let account = try data.read { connection -> (id: String, hash: String)? in
            guard try connection.schema("_User") != nil, try hasPasswordColumn(connection) else { return nil }
            let row = try connection.database.rows("SELECT objectId, _hashed_password FROM _User WHERE \(quoted(column)) = ?1", [name]).first
            guard let id = row?[0], let hash = row?[1] else { return nil }
            return (id, hash)
        }
        // No account is checked against the decoy hash, so its answer takes as long as a wrong password's.
        guard Passwords.verify(password, hash: account?.hash ?? Passwords.decoy), let account else { throw invalid }
        return try data.write { connection in
            let session = try createSession(userId: account.id, action: "login", installationId: request.credentials.installationId,
                                            connection: connection)
            guard var user = try userJSON(account.id, connection: connection) else { throw invalid }
            user["sessionToken"] = session["sessionToken"]
            return APIResponse(user)
        }
    }

    /// `GET /users/me`: the session's user with its `sessionToken`; 209 without a valid session.
    func currentUser(_ caller: Caller, data: DataAccess) throws -> APIResponse {
        guard let userId = caller.userId, let token = caller.sessionToken else { throw APIError.invalidSessionToken }
        return try data.read { connection in
            guard var user = try userJSON(userId, connection: connection) else { throw APIError.invalidSessionToken }
            user["sessionToken"] = .string(token)
            return APIResponse(user)
        }
    }

    /// `POST /logout`: ends the caller's session; `{}`.
    func logOut(_ caller: Caller, data: DataAccess) throws -> APIResponse {
        if let token = caller.sessionToken {
            try data.write { connection in
                let delete = try connection.database.prepare("DELETE FROM _Session WHERE sessionToken = ?1")
                delete.bind(text: token, at: 1)
                try delete.run()
            }
        }
        return APIResponse(JSONObject())
    }

    // MARK: Helpers shared with the object routes

    /// Removes `password` from a `_User` body: the new password, or `nil` when there is none.
    static func takePassword(from body: inout JSONObject) throws -> String? {
        guard let value = body["password"] else { return nil }
        body["password"] = nil
        guard case .string(let password) = value, !password.isEmpty else { throw APIError.parse(.passwordMissing, "password is required") }
        return password
    }

    /// Checks what a `_User` write may not do: take another user's username (202) or email
    /// (203, or 125 when it is not an address), or set `emailVerified` without the master key (119).
    func checkUserFields(_ body: JSONObject, excluding userId: String?, caller: Caller, connection: MirrorConnection) throws {
        if !caller.isMaster && body["emailVerified"] != nil {
            throw APIError.parse(.operationForbidden, "Clients aren't allowed to manually update email verification.")
        }
        if case .string(let email)? = body["email"], !email.dropFirst().dropLast().contains("@") {
            throw APIError.parse(.invalidEmailAddress, "Email address format is invalid.")
        }
        guard try connection.schema("_User") != nil else { return }
        for (field, code, message) in [("username", ParseErrorCode.usernameTaken, "Account already exists for this username."), ("email", ParseErrorCode.emailTaken, "Account already exists for this email address.")] {
            guard case .string(let value)? = body[field] else { continue }
            let taken = try connection.database.rows("SELECT 1 FROM _User WHERE lower(\(quoted(field))) = lower(?1) AND objectId IS NOT ?2", [value, userId ?? ""])
            if !taken.isEmpty { throw APIError.parse(code, message) }
        }
    }

    func storePasswordHash(_ hash: String, userId: String, connection: MirrorConnection) throws {
        if try !hasPasswordColumn(connection) { try connection.database.execute("ALTER TABLE _User ADD COLUMN _hashed_password TEXT") }
        let update = try connection.database.prepare("UPDATE _User SET _hashed_password = ?1 WHERE objectId = ?2")
        update.bind(text: hash, at: 1)
        update.bind(text: userId, at: 2)
        try update.run()
    }

    /// Stores a new password hash and ends every session of the user, as Parse Server's
    /// `revokeSessionOnPasswordReset` (on by default) does; a user who changed their own password
    /// gets a new session, whose token the response carries.
    func changePassword(_ hash: String, userId: String, caller: Caller, request: APIRequest, connection: MirrorConnection,
                        response: inout JSONObject) throws {
        try storePasswordHash(hash, userId: userId, connection: connection)
        try deleteSessions(userId: userId, connection: connection)
        guard !caller.isMaster, caller.userId == userId else { return }
        response["sessionToken"] = try createSession(userId: userId, action: "signup", installationId: request.credentials.installationId,
                                                     connection: connection)["sessionToken"]
    }

    func deleteSessions(userId: String, connection: MirrorConnection) throws {
        guard try connection.schema("_Session") != nil else { return }
        let delete = try connection.database.prepare("DELETE FROM _Session WHERE user = ?1")
        delete.bind(text: userId, at: 1)
        try delete.run()
    }

    private func hasPasswordColumn(_ connection: MirrorConnection) throws -> Bool {
        !(try connection.database.rows("SELECT 1 FROM pragma_table_info('_User') WHERE name = '_hashed_password'")).isEmpty
    }

    /// A new `_Session` of the user, valid for a year (Parse's default `sessionLength`), with
    /// `additional` fields: the session as stored, with its objectId and createdAt. A session of an
    /// installation replaces the user's other sessions of that installation (Parse Server's
    /// `destroyDuplicatedSessions`).
    func createSession(userId: String, action: String, installationId: String?, additional: JSONObject = JSONObject(),
                       connection: MirrorConnection) throws -> JSONObject {
        let token = RandomTokens.sessionToken()
        let expiresAt = ParseDate(millisecondsSince1970: ParseDate.now.millisecondsSince1970 + 365 * 24 * 3_600_000)
        var session = additional
        session["sessionToken"] = .string(token)
        session["user"] = ParseValue.pointer(PointerRef(className: "_User", objectId: userId)).wireJSON
        session["createdWith"] = .object(JSONObject(["action": .string(action), "authProvider": .string("password")]))
        session["expiresAt"] = ParseValue.date(expiresAt).wireJSON
        if let installationId { session["installationId"] = .string(installationId) }
        let acl = JSONObject([JSONMember(userId, .object(JSONObject(["read": .bool(true), "write": .bool(true)])))])
        var stored = session
        stored["ACL"] = .object(acl)
        let plan = try WritePlan(className: "_Session", body: WriteBody(stored), current: connection.schema("_Session"), caller: .master, creating: true)
        let created = try insert(plan, objectId: RandomTokens.objectId(), connection: connection)
        if let installationId {
            _ = try connection.database.rows("DELETE FROM _Session WHERE user = ?1 AND installationId = ?2 AND sessionToken IS NOT ?3",
                                             [userId, installationId, token])
        }
        session.members += created.members
        return session
    }

    private func userJSON(_ userId: String, connection: MirrorConnection) throws -> JSONObject? {
        try connection.reader().get(className: "_User", objectId: userId, keys: nil, include: [], schemas: connection.schemas(), access: .master)
    }
}
