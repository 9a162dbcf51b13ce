import Foundation
import MirrorQuery
import ParseModel
import ParseRules
import PorterHTTP
import PorterSQLite

/// The keys and token a request carries, from its headers or, when it sends no
/// `X-Parse-Application-Id` header, from the `_ApplicationId`-style members of its JSON body
/// (what the JavaScript SDK sends).
struct Credentials {
    var applicationId: String?
    var masterKey: String?
    var maintenanceKey: String?
    /// REST API, client, JavaScript and Windows keys: any of them may carry the client key.
    var clientKeys: [String] = []
    var sessionToken: String?
    var installationId: String?

    /// Body members that carry credentials or request options, never object fields.
    static let bodyMembers: Set<String> = [
        "_ApplicationId", "_MasterKey", "_ClientKey", "_JavaScriptKey", "_SessionToken", "_InstallationId",
        "_ClientVersion", "_RevocableSession", "_ContentType", "_context", "_method",
    ]

    /// No credentials: what an in-process ``MirrorSession`` request carries (it acts as master).
    init() {}

    init(headers: HTTPHeaders, body: JSONObject?) {
        if let appId = headers["X-Parse-Application-Id"] {
            applicationId = appId
            masterKey = headers["X-Parse-Master-Key"]
            maintenanceKey = headers["X-Parse-Maintenance-Key"]
            clientKeys = ["X-Parse-REST-API-Key", "X-Parse-Client-Key", "X-Parse-Javascript-Key", "X-Parse-Windows-Key"].compactMap { headers[$0] }
            sessionToken = headers["X-Parse-Session-Token"]
            installationId = headers["X-Parse-Installation-Id"]
        } else if let body {
            func member(_ name: String) -> String? {
                if case .string(let value)? = body[name] { return value }
                return nil
            }
            applicationId = member("_ApplicationId")
            masterKey = member("_MasterKey")
            clientKeys = ["_ClientKey", "_JavaScriptKey"].compactMap(member)
            sessionToken = member("_SessionToken")
            installationId = member("_InstallationId")
        }
    }
}

/// Who is calling: the master key, a user signed in with a session token, or anonymous.
struct Caller: Sendable {
    let isMaster: Bool
    let userId: String?
    let sessionToken: String?
    /// The ACL entries that grant this caller access: `*`, the user's objectId and `role:<name>`
    /// for each role the user has (directly or through the roles' `roles` relations).
    let principals: Set<String>
    /// The maintenance key: master access to objects, creates keep given timestamps, no schemas.
    var isMaintenance = false

    static let master = Caller(isMaster: true, userId: nil, sessionToken: nil, principals: ["*"])
    static let maintenance = Caller(isMaster: true, userId: nil, sessionToken: nil, principals: ["*"], isMaintenance: true)
    static let anonymous = Caller(isMaster: false, userId: nil, sessionToken: nil, principals: ["*"])

    /// Whether the caller holds the master key itself (`/schemas`, `/serverInfo`).
    var hasMasterKey: Bool { isMaster && !isMaintenance }

    /// What the query engine may show this caller.
    var readAccess: ReadAccess {
        isMaster ? .master : ReadAccess(principals: principals, userId: userId) { [self] className, schema in subqueryDenial(className, schema) }
    }

    /// Whether an object with this ACL may be changed or deleted; no ACL is public.
    func canWrite(_ acl: ParseACL?) -> Bool {
        guard !isMaster, let acl else { return true }
        return principals.contains { acl.entries[$0]?.write == true }
    }

    /// Checks the keys as Parse Server's `handleParseHeaders` does, then resolves the session:
    /// a wrong application id or client key, or the master key from an address not allowed,
    /// is 403; an unknown or expired session token is 209. The master key ignores the token.
    static func authenticate(
        _ credentials: Credentials, remoteAddress: String, configuration: ParseServerConfiguration,
        data: DataAccess
    ) throws -> Caller {
        guard credentials.applicationId == configuration.applicationId else { throw APIError.unauthorized }
        // Parse Server checks the maintenance key first; from an address not allowed it is ignored.
        if let key = configuration.maintenanceKey, credentials.maintenanceKey == key,
            configuration.maintenanceKeyIPs?.contains(remoteAddress) ?? true
        {
            return .maintenance
        }
        if credentials.masterKey == configuration.masterKey {
            if let allowed = configuration.masterKeyIPs, !allowed.contains(remoteAddress) { throw APIError.unauthorized }
            return .master
        }
        if let clientKey = configuration.restAPIKey, !credentials.clientKeys.contains(clientKey) { throw APIError.unauthorized }
        guard let token = credentials.sessionToken else { return .anonymous }
        return try data.read { connection in
            guard let userId = try sessionUser(token: token, connection: connection) else { throw APIError.invalidSessionToken }
            let roles = try roleNames(userId: userId, connection: connection)
            return Caller(isMaster: false, userId: userId, sessionToken: token, principals: Set(["*", userId] + roles.map { "role:" + $0 }))
        }
    }

    /// The user of an unexpired `_Session` with this token.
    private static func sessionUser(token: String, connection: MirrorConnection) throws -> String? {
        guard try connection.schema("_Session") != nil else { return nil }
        let rows = try connection.database.rows(
            "SELECT user FROM _Session WHERE sessionToken = ?1 AND (expiresAt IS NULL OR expiresAt > ?2)",
            [token, ParseDate.now.iso])
        return rows.first?[0] ?? nil
    }

    /// The names of the roles whose `users` relation holds the user, and of every role whose
    /// `roles` relation holds one of those (Parse's role inheritance).
    private static func roleNames(userId: String, connection: MirrorConnection) throws -> [String] {
        let users = MirrorLayout.joinTable(owner: "_Role", field: "users")
        let roles = MirrorLayout.joinTable(owner: "_Role", field: "roles")
        let tables = Set(
            try connection.database.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?1, ?2, '_Role')", [users, roles])
                .compactMap { $0[0] })
        guard tables.contains(users), tables.contains("_Role") else { return [] }
        let inherited = tables.contains(roles) ? " UNION SELECT j.owningId FROM \(quoted(roles)) AS j JOIN granted ON j.relatedId = granted.id" : ""
        let sql = """
            WITH RECURSIVE granted(id) AS (SELECT owningId FROM \(quoted(users)) WHERE relatedId = ?1\(inherited))
            SELECT name FROM _Role WHERE objectId IN (SELECT id FROM granted) AND name IS NOT NULL
            """
        return try connection.database.rows(sql, [userId]).compactMap { $0[0] }
    }
}

extension ParseDate {
    /// The current time, to the millisecond.
    static var now: ParseDate {
        ParseDate(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
