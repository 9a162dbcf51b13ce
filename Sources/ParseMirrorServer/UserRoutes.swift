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
        guard case .string(let username)? = body["username"], !username.isEmpty else { throw APIError.parse(200, "bad or missing username") }
        guard let password = try Self.takePassword(from: &body) else { throw APIError.parse(201, "password is required") }
        let objectId = try customObjectId(body, className: "_User") ?? RandomTokens.objectId()
        let hash = try Passwords.hash(password)
        return try data.write { connection in
            try checkUserFields(body, excluding: nil, caller: caller, connection: connection)
            let plan = try writePlan(body, className: "_User", current: connection.schema("_User"), caller: caller, creating: true)
            var response = try insert(plan, objectId: objectId, timestamps: Self.givenTimestamps(request.body, caller: caller), connection: connection)
            try storePasswordHash(hash, userId: objectId, connection: connection)
            response["sessionToken"] = .string(try createSession(userId: objectId, action: "signup", request: request, connection: connection))
            return APIResponse(response, status: 201, location: "\(request.publicURL)/users/\(objectId)")
        }
    }

    /// `GET /login?username=…&password=…` or `POST /login` with a JSON body (also by `email`):
    /// the user with a new `sessionToken`; 101 "Invalid username/password." when they do not match.
    func logIn(_ request: APIRequest, data: DataAccess) throws -> APIResponse {
        func parameter(_ name: String) -> String? {
            request.body[name]?.stringValue ?? request.query.first { $0.name == name }?.value
        }
        let login = parameter("username").map { ("username", $0) } ?? parameter("email").map { ("email", $0) }
        guard let (column, name) = login else { throw APIError.parse(200, "username/email is required.") }
        guard let password = parameter("password") else { throw APIError.parse(201, "password is required.") }
        let invalid = APIError.parse(101, "Invalid username/password.")
        let account = try data.read { connection -> (id: String, hash: String)? in
            guard try connection.schema("_User") != nil, try hasPasswordColumn(connection) else { return nil }
            let row = try connection.database.rows("SELECT objectId, _hashed_password FROM _User WHERE \(quoted(column)) = ?1", [name]).first
            guard let id = row?[0], let hash = row?[1] else { return nil }
            return (id, hash)
        }
        guard let account, Passwords.verify(password, hash: account.hash) else { throw invalid }
        return try data.write { connection in
            let token = try createSession(userId: account.id, action: "login", request: request, connection: connection)
            guard var user = try userJSON(account.id, connection: connection) else { throw invalid }
            user["sessionToken"] = .string(token)
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
        guard case .string(let password) = value, !password.isEmpty else { throw APIError.parse(201, "password is required") }
        return password
    }

    /// Checks what a `_User` write may not do: take another user's username (202) or email
    /// (203, or 125 when it is not an address), or set `emailVerified` without the master key (119).
    func checkUserFields(_ body: JSONObject, excluding userId: String?, caller: Caller, connection: MirrorConnection) throws {
        if !caller.isMaster && body["emailVerified"] != nil {
            throw APIError.parse(119, "Clients aren't allowed to manually update email verification.")
        }
        if case .string(let email)? = body["email"], !email.dropFirst().dropLast().contains("@") {
            throw APIError.parse(125, "Email address format is invalid.")
        }
        guard try connection.schema("_User") != nil else { return }
        for (field, code, message) in [("username", 202, "Account already exists for this username."), ("email", 203, "Account already exists for this email address.")] {
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

    func deleteSessions(userId: String, connection: MirrorConnection) throws {
        guard try connection.schema("_Session") != nil else { return }
        let delete = try connection.database.prepare("DELETE FROM _Session WHERE user = ?1")
        delete.bind(text: userId, at: 1)
        try delete.run()
    }

    /// A `_User` object as the caller may see it: never the password or its hash, and the
    /// email only for the master key and the user itself (Parse Server's default
    /// `protectedFields: {_User: {"*": ["email"]}}`).
    static func redacted(_ object: JSONObject, className: String, for caller: Caller) -> JSONObject {
        guard className == "_User" else { return object }
        let isSelf = caller.isMaster || (caller.userId != nil && object["objectId"]?.stringValue == caller.userId)
        var hidden: Set = ["password", "_hashed_password", "sessionToken"]
        if !isSelf { hidden.insert("email") }
        return JSONObject(object.members.filter { !hidden.contains($0.key) })
    }

    private func hasPasswordColumn(_ connection: MirrorConnection) throws -> Bool {
        !(try connection.database.rows("SELECT 1 FROM pragma_table_info('_User') WHERE name = '_hashed_password'")).isEmpty
    }

    /// A new `_Session` of the user, valid for a year (Parse's default `sessionLength`): its token.
    private func createSession(userId: String, action: String, request: APIRequest, connection: MirrorConnection) throws -> String {
        let token = RandomTokens.sessionToken()
        let expiresAt = ParseDate(millisecondsSince1970: ParseDate.now.millisecondsSince1970 + 365 * 24 * 3_600_000)
        var session = JSONObject([
            "sessionToken": .string(token),
            "user": ParseValue.pointer(PointerRef(className: "_User", objectId: userId)).wireJSON,
            "createdWith": .object(JSONObject(["action": .string(action), "authProvider": .string("password")])),
            "expiresAt": ParseValue.date(expiresAt).wireJSON,
            "ACL": .object(JSONObject([JSONMember(userId, .object(JSONObject(["read": .bool(true), "write": .bool(true)])))])),
        ])
        if let installationId = request.credentials.installationId { session["installationId"] = .string(installationId) }
        let plan = try WritePlan(className: "_Session", body: WriteBody(session), current: connection.schema("_Session"), caller: .master, creating: true)
        _ = try insert(plan, objectId: RandomTokens.objectId(), connection: connection)
        return token
    }

    private func userJSON(_ userId: String, connection: MirrorConnection) throws -> JSONObject? {
        try connection.reader().get(className: "_User", objectId: userId, keys: nil, include: [], schemas: connection.schemas(), access: .master)
            .map { Self.redacted($0, className: "_User", for: .master) }
    }
}
