import PorterCore

/// A failure PostgreSQL reported, as ``PorterError/postgresError`` carries it under a target error.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505` a unique violation); empty when the server gave none
    /// (a connection that failed before a statement ran).
    public let sqlState: String
    /// PostgreSQL's primary message (`duplicate key value violates unique constraint …`).
    public let message: String
    /// PostgreSQL's detail line, when it gave one (`Key (username)=(ana) already exists.`).
    public let detail: String?
    /// The constraint or index concerned, when one is (`_User_unique_username`).
    public let constraint: String?
    /// The SQL of the statement that failed, when a statement did.
    public let sql: String?

    /// A failure of `sql` described by the server's fields.
    public init(sqlState: String, message: String, detail: String? = nil, constraint: String? = nil, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
        self.sql = sql
    }

    /// Whether a unique constraint or index refused a row (SQLSTATE 23505).
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// `message (detail) [SQLSTATE]`.
    public var description: String {
        message + (detail.map { " (\($0))" } ?? "") + (sqlState.isEmpty ? "" : " [SQLSTATE \(sqlState)]")
    }
}

extension PorterError {
    /// The PostgreSQL failure behind a target error, when PostgreSQL's is what failed.
    public var postgresError: PostgresError? { underlyingError as? PostgresError }
}
