import MirrorQuery
import ParseModel
import ParseRules
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
            response["sessionToken"] = try createSession(
                userId: objectId, action: "signup", installationId: request.credentials.installationId,
                connection: connection)["sessionToken"]
            return APIResponse(response, status: 201, location: "\(request.publicURL)/users/\(objectId)")
        }
    }

    /// `GET /login?username=…&password=…` or `POST /login` with a JSON body (also by `email`):
    /// the user with a new `sessionToken`; 101 "Invalid username/password." when they do not match.
    func logIn(_ request: APIRequest, caller: Caller, data: DataAccess) throws -> APIResponse {
        let userId = try authenticateUser(request, caller: caller, data: data)
        return try data.write { connection in
            let session = try createSession(
                userId: userId, action: "login", installationId: request.credentials.installationId,
                connection: connection)
            guard var user = try userJSON(userId, connection: connection) else { throw Self.invalidLogIn }
            user["sessionToken"] = session["sessionToken"]
            return APIResponse(user)
        }
    }

    /// `GET` or `POST /verifyPassword` with the parameters of a log-in: the user, as a log-in
    /// answers it but without a session (none is made); the same errors as a log-in.
    func verifyPassword(_ request: APIRequest, caller: Caller, data: DataAccess) throws -> APIResponse {
        let userId = try authenticateUser(request, caller: caller, data: data)
        return try data.read { connection in
            guard let user = try userJSON(userId, connection: connection) else { throw Self.invalidLogIn }
            return APIResponse(user)
        }
    }

    private static let invalidLogIn = APIError.parse(.objectNotFound, "Invalid username/password.")

    /// The user a log-in's `username`, `email` and `password` (body, else query) name, as Parse
    /// Server's `_authenticateUserFromRequest` finds it: by `username` and `email` when both are
    /// given, a `username` also matching an `email` (the user of that username first), a password
    /// that is not a string never matching. A user whose ACL is `{}` is locked out (101) except
    /// for the master key. Missing (or empty) username and email: 200; password: 201.
    private func authenticateUser(_ request: APIRequest, caller: Caller, data: DataAccess) throws -> String {
        /// A parameter as sent; a falsy one (`""`, `null`, `false`, `0`) counts as missing, as in Parse Server.
        func parameter(_ name: String) -> JSONValue? {
            let value = request.body[name] ?? request.query.first { $0.name == name }.map { JSONValue.string($0.value) }
            switch value {
            case nil, .null?, .bool(false)?, .string("")?, .integer(0)?: return nil
            case .double(let number)? where number == 0 || number.isNaN: return nil
            default: return value
            }
        }
        let username = parameter("username"), email = parameter("email")
        guard username != nil || email != nil else { throw APIError.parse(.usernameMissing, "username/email is required.") }
        guard let given = parameter("password") else { throw APIError.parse(.passwordMissing, "password is required.") }
        guard case .string(let password) = given, username.map({ $0.stringValue != nil }) ?? true, email.map({ $0.stringValue != nil }) ?? true else {
            throw Self.invalidLogIn
        }
        let account = try data.read { connection -> (id: String, hash: String, acl: String?)? in
            guard try connection.schema("_User") != nil, try hasPasswordColumn(connection) else { return nil }
            let name = username?.stringValue, address = email?.stringValue
            let (condition, values): (String, [String]) =
                if let name, let address { ("username = ?1 AND email = ?2", [name, address]) } else if let address { ("email = ?1", [address]) } else {
                    ("username = ?1 OR email = ?1", [name ?? ""])
                }
            let rows = try connection.database.rows("SELECT objectId, _hashed_password, ACL, username FROM _User WHERE \(condition)", values)
            let row = rows.count > 1 ? rows.first { $0[3] == username?.stringValue } : rows.first
            guard let id = row?[0] ?? nil, let hash = row?[1] ?? nil else { return nil }
            return (id, hash, row?[2] ?? nil)
        }
        // No account is checked against the decoy hash, so its answer takes as long as a wrong password's.
        guard Passwords.verify(password, hash: account?.hash ?? Passwords.decoy), let account else { throw Self.invalidLogIn }
        if !caller.isMaster, let acl = account.acl, case .object(let entries)? = try? JSONParser.parse(acl), entries.isEmpty {
            throw Self.invalidLogIn
        }
        return account.id
    }

    /// `GET /users/me`: the user of the request's session token, with the token, as an included
    /// object (`"__type":"Object"`, `"className":"_User"`); 209 without a session. With the master
    /// key the token is looked up as well, as Parse Server does.
    func currentUser(_ request: APIRequest, data: DataAccess) throws -> APIResponse {
        guard let token = request.credentials.sessionToken else { throw APIError.invalidSessionToken }
        return try data.read { connection in
            guard let userId = try sessionRow(token: token, connection: connection)?.user,
                var user = try userJSON(userId, connection: connection)
            else { throw APIError.invalidSessionToken }
            user["__type"] = .string("Object")
            user["className"] = .string("_User")
            user["sessionToken"] = .string(token)
            return APIResponse(user)
        }
    }

    /// `GET /sessions/me`: the session of the request's token, token included (also with the
    /// master key); 209 "Session token required." without one.
    func currentSession(_ request: APIRequest, data: DataAccess) throws -> APIResponse {
        guard let token = request.credentials.sessionToken else { throw APIError.parse(.invalidSessionToken, "Session token required.") }
        return try data.read { connection in
            guard let id = try sessionRow(token: token, connection: connection)?.objectId,
                let session = try connection.reader().get(
                    className: "_Session", objectId: id, keys: nil, include: [],
                    schemas: connection.schemas(), access: .master, budget: nil)
            else {
                throw APIError.parse(.invalidSessionToken, "Session token not found.")
            }
            return APIResponse(session)
        }
    }

    /// `POST /logout`: ends the session of the request's token, also when the master key sends it; `{}`.
    func logOut(_ request: APIRequest, data: DataAccess) throws -> APIResponse {
        if let token = request.credentials.sessionToken {
            try data.write { connection in
                guard try connection.schema("_Session") != nil else { return }
                let delete = try connection.database.prepare("DELETE FROM _Session WHERE sessionToken = ?1")
                delete.bind(text: token, at: 1)
                try delete.run()
            }
        }
        return APIResponse(JSONObject())
    }

    /// The session stored with `token`, expired or not (the key checks ran before).
    private func sessionRow(token: String, connection: MirrorConnection) throws -> (objectId: String, user: String?)? {
        guard try connection.schema("_Session") != nil,
            let row = try connection.database.rows("SELECT objectId, user FROM _Session WHERE sessionToken = ?1", [token]).first,
            let objectId = row[0]
        else { return nil }
        return (objectId, row[1])
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
    /// (203, or 125 when it is neither an address nor empty), or set `emailVerified` without the master key (119).
    func checkUserFields(_ body: JSONObject, excluding userId: String?, caller: Caller, connection: MirrorConnection) throws {
        if !caller.isMaster && body["emailVerified"] != nil {
            throw APIError.parse(.operationForbidden, "Clients aren't allowed to manually update email verification.")
        }
        // An empty email is no address and passes, as in Parse Server (a Parse.com user may have one); it stays unique.
        if case .string(let email)? = body["email"], !email.isEmpty, !email.dropFirst().dropLast().contains("@") {
            throw APIError.parse(.invalidEmailAddress, "Email address format is invalid.")
        }
        guard try connection.schema("_User") != nil else { return }
        for (field, code, message) in [
            ("username", ParseErrorCode.usernameTaken, "Account already exists for this username."),
            ("email", ParseErrorCode.emailTaken, "Account already exists for this email address."),
        ] {
            guard case .string(let value)? = body[field] else { continue }
            let taken = try connection.database.rows(
                "SELECT 1 FROM _User WHERE lower(\(quoted(field))) = lower(?1) AND objectId IS NOT ?2", [value, userId ?? ""])
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
    func changePassword(
        _ hash: String, userId: String, caller: Caller, request: APIRequest, connection: MirrorConnection,
        response: inout JSONObject
    ) throws {
        try storePasswordHash(hash, userId: userId, connection: connection)
        try deleteSessions(userId: userId, connection: connection)
        guard !caller.isMaster, caller.userId == userId else { return }
        response["sessionToken"] = try createSession(
            userId: userId, action: "signup", installationId: request.credentials.installationId,
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

    /// A new `_Session` of the user, valid for a year (Parse's default `sessionLength`), made by
    /// `action` (`createdWith`, with the `password` auth provider unless `authProvider` is nil),
    /// with `additional` fields and no ACL (the session routes keep sessions to their users): the
    /// session as stored, with its objectId. A session of an installation replaces the user's
    /// other sessions of that installation (Parse Server's `destroyDuplicatedSessions`).
    func createSession(
        userId: String, action: String, authProvider: String? = "password", installationId: String?,
        additional: JSONObject = JSONObject(), connection: MirrorConnection
    ) throws -> JSONObject {
        let token = RandomTokens.sessionToken()
        let expiresAt = ParseDate(millisecondsSince1970: ParseDate.now.millisecondsSince1970 + 365 * 24 * 3_600_000)
        var session = additional
        session["sessionToken"] = .string(token)
        session["user"] = ParseValue.pointer(PointerRef(className: "_User", objectId: userId)).wireJSON
        session["createdWith"] = .object(
            JSONObject([JSONMember("action", .string(action))] + (authProvider.map { [JSONMember("authProvider", .string($0))] } ?? [])))
        session["expiresAt"] = ParseValue.date(expiresAt).wireJSON
        if let installationId { session["installationId"] = .string(installationId) }
        let plan = try WritePlan(className: "_Session", body: WriteBody(session), current: connection.schema("_Session"), caller: .master, creating: true)
        let objectId = RandomTokens.objectId()
        _ = try insert(plan, objectId: objectId, connection: connection)
        if let installationId {
            _ = try connection.database.rows(
                "DELETE FROM _Session WHERE user = ?1 AND installationId = ?2 AND sessionToken IS NOT ?3",
                [userId, installationId, token])
        }
        session["objectId"] = .string(objectId)
        return session
    }

    private func userJSON(_ userId: String, connection: MirrorConnection) throws -> JSONObject? {
        try connection.reader().get(className: "_User", objectId: userId, keys: nil, include: [], schemas: connection.schemas(), access: .master, budget: nil)
    }
}
