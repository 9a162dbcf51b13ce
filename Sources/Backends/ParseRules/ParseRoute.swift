/// What a Parse REST request asks for: its method and its path below the mount path, read as
/// Parse Server's routers read them (`ClassesRouter`, `SchemasRouter`, `UsersRouter`, …), for
/// the mirror's server and the PostgreSQL backend alike. A batch's sub-requests are read the same
/// way once their mount path is off.
package enum ParseRoute: Equatable {
    /// `GET /serverInfo`, `GET /config`.
    case serverInfo, config
    /// `/schemas` (`className` nil: GET all, POST) and `/schemas/<Class>` (GET, POST, PUT, DELETE).
    case schemas(className: String?)
    /// `DELETE /purge/<Class>`.
    case purge(className: String)
    /// `POST /batch`.
    case batch
    /// `/login`, `/verifyPassword` (GET or POST), `POST /logout`, `GET /users/me`, `GET /sessions/me`.
    case logIn, verifyPassword, logOut, currentUser, currentSession
    /// `GET` and `POST /classes/<Class>` (or an alias: `/users`, `/roles`, `/sessions`, `/installations`).
    case query(className: String), create(className: String)
    /// `GET /aggregate/<Class>`.
    case aggregate(className: String)
    /// `GET`, `PUT` and `DELETE /classes/<Class>/<objectId>` (or an alias).
    case get(className: String, objectId: String), update(className: String, objectId: String), delete(className: String, objectId: String)

    /// The route `method` asks for on `path` (`/classes/Book/dune`, below the mount path; empty
    /// segments are skipped, so a trailing `/` changes nothing); `nil` when no route answers it.
    package init?(method: String, path: String) {
        let parts = Self.segments(of: path)
        guard let first = parts.first else { return nil }
        switch (method, first, parts.count) {
        case ("GET", "serverInfo", 1): self = .serverInfo
        case ("GET", "config", 1): self = .config
        case ("DELETE", "purge", 2): self = .purge(className: parts[1])
        case ("GET", "schemas", 1...2), ("POST", "schemas", 1...2), ("PUT", "schemas", 2), ("DELETE", "schemas", 2):
            self = .schemas(className: parts.count == 2 ? parts[1] : nil)
        case ("POST", "batch", 1): self = .batch
        case ("GET", "login", 1), ("POST", "login", 1): self = .logIn
        case ("GET", "verifyPassword", 1), ("POST", "verifyPassword", 1): self = .verifyPassword
        case ("POST", "logout", 1): self = .logOut
        case ("GET", "users", 2) where parts[1] == "me": self = .currentUser
        case ("GET", "sessions", 2) where parts[1] == "me": self = .currentSession
        case ("GET", "aggregate", 2): self = .aggregate(className: parts[1])
        case (_, "classes", 2...3):
            self.init(method: method, className: parts[1], objectId: parts.count == 3 ? parts[2] : nil)
        case (_, _, 1...2):
            guard let className = Self.aliases[first] else { return nil }
            self.init(method: method, className: className, objectId: parts.count == 2 ? parts[1] : nil)
        default: return nil
        }
    }

    /// The segments of a path: `/classes/Book/` is `["classes", "Book"]`.
    package static func segments(of path: String) -> [String] {
        path.split(separator: "/").map(String.init)
    }

    private init?(method: String, className: String, objectId: String?) {
        switch (method, objectId) {
        case ("GET", nil): self = .query(className: className)
        case ("POST", nil): self = .create(className: className)
        case ("GET", let id?): self = .get(className: className, objectId: id)
        case ("PUT", let id?): self = .update(className: className, objectId: id)
        case ("DELETE", let id?): self = .delete(className: className, objectId: id)
        default: return nil
        }
    }

    /// `/users`, `/roles`, `/sessions`, `/installations`: the system classes' own routes.
    private static let aliases = ["users": "_User", "roles": "_Role", "sessions": "_Session", "installations": "_Installation"]
}
