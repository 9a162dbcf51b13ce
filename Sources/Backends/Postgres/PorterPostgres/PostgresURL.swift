/// `postgres://` and `postgresql://` connection URLs, as libpq reads them.
public enum PostgresURL {
    /// Whether `text` is a PostgreSQL connection URL.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The URL without its password, for messages: `postgres://ana:secret@db/app` is shown
    /// as `postgres://ana@db/app`. A `password=` query parameter is dropped too.
    public static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        var rest = url[scheme.upperBound...]
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            let parameters = rest[rest.index(after: mark)...].split(separator: "&").filter { !$0.lowercased().hasPrefix("password=") }
            query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
            rest = rest[..<mark]
        }
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            let user = authority[..<at]
            let name = user.firstIndex(of: ":").map { user[..<$0] } ?? user
            authority = name + authority[at...]
        }
        return url[..<scheme.upperBound] + authority + rest[authorityEnd...] + query
    }
}
