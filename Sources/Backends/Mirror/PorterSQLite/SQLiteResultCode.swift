import CSQLite

/// An SQLite result code (<https://sqlite.org/rescode.html>): a primary code such as
/// ``SQLITE_CONSTRAINT``, or an extended one such as ``SQLITE_CONSTRAINT_UNIQUE`` that
/// refines it. Open: codes without a name here are kept as they are.
///
/// A primary code in a pattern matches its extended codes too:
///
/// ```swift
/// switch error.extendedResultCode {
/// case .SQLITE_CONSTRAINT_UNIQUE: … // this one only
/// case .SQLITE_CONSTRAINT: …        // any other constraint
/// case .SQLITE_BUSY, .SQLITE_LOCKED: …
/// default: …
/// }
/// ```
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code as SQLite returns it.
    public let rawValue: Int32

    /// The code `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low eight bits (`SQLITE_CONSTRAINT` for `SQLITE_CONSTRAINT_UNIQUE`).
    public var primaryResultCode: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xff) }

    /// Whether this is a primary code rather than an extended one.
    public var isPrimary: Bool { rawValue & 0xff == rawValue }

    /// SQLite's English text for the code (`"database is locked"`).
    public var description: String { String(cString: sqlite3_errstr(rawValue)) }

    /// A primary pattern matches the code and its extended codes; an extended one only itself.
    public static func ~= (pattern: SQLiteResultCode, code: SQLiteResultCode) -> Bool {
        pattern.isPrimary ? pattern == code.primaryResultCode : pattern == code
    }

    /// Success.
    public static let SQLITE_OK = SQLiteResultCode(rawValue: 0)
    /// A generic error: bad SQL, a missing table or column.
    public static let SQLITE_ERROR = SQLiteResultCode(rawValue: 1)
    /// SQLite's own consistency check failed.
    public static let SQLITE_INTERNAL = SQLiteResultCode(rawValue: 2)
    /// Access permission denied.
    public static let SQLITE_PERM = SQLiteResultCode(rawValue: 3)
    /// The operation was stopped (`sqlite3_interrupt`, a progress handler).
    public static let SQLITE_ABORT = SQLiteResultCode(rawValue: 4)
    /// Another connection holds a lock the operation needs.
    public static let SQLITE_BUSY = SQLiteResultCode(rawValue: 5)
    /// A conflict within the same connection, or a shared-cache lock.
    public static let SQLITE_LOCKED = SQLiteResultCode(rawValue: 6)
    /// Out of memory.
    public static let SQLITE_NOMEM = SQLiteResultCode(rawValue: 7)
    /// A write to a read-only database.
    public static let SQLITE_READONLY = SQLiteResultCode(rawValue: 8)
    /// Interrupted by `sqlite3_interrupt`.
    public static let SQLITE_INTERRUPT = SQLiteResultCode(rawValue: 9)
    /// The operating system reported an I/O error.
    public static let SQLITE_IOERR = SQLiteResultCode(rawValue: 10)
    /// The database file is malformed.
    public static let SQLITE_CORRUPT = SQLiteResultCode(rawValue: 11)
    /// The disk is full.
    public static let SQLITE_FULL = SQLiteResultCode(rawValue: 13)
    /// The file cannot be opened.
    public static let SQLITE_CANTOPEN = SQLiteResultCode(rawValue: 14)
    /// The schema changed under a prepared statement.
    public static let SQLITE_SCHEMA = SQLiteResultCode(rawValue: 17)
    /// A string or blob is larger than SQLite allows.
    public static let SQLITE_TOOBIG = SQLiteResultCode(rawValue: 18)
    /// A constraint (unique, not null, check, foreign key) was violated.
    public static let SQLITE_CONSTRAINT = SQLiteResultCode(rawValue: 19)
    /// A value's type does not fit a strict column.
    public static let SQLITE_MISMATCH = SQLiteResultCode(rawValue: 20)
    /// The library was used wrongly.
    public static let SQLITE_MISUSE = SQLiteResultCode(rawValue: 21)
    /// A parameter number out of range.
    public static let SQLITE_RANGE = SQLiteResultCode(rawValue: 25)
    /// The file is not an SQLite database.
    public static let SQLITE_NOTADB = SQLiteResultCode(rawValue: 26)
    /// A step has another row.
    public static let SQLITE_ROW = SQLiteResultCode(rawValue: 100)
    /// A step has finished.
    public static let SQLITE_DONE = SQLiteResultCode(rawValue: 101)

    /// A `CHECK` constraint failed.
    public static let SQLITE_CONSTRAINT_CHECK = SQLiteResultCode(rawValue: 19 | 1 << 8)
    /// A foreign key constraint failed.
    public static let SQLITE_CONSTRAINT_FOREIGNKEY = SQLiteResultCode(rawValue: 19 | 3 << 8)
    /// A `NOT NULL` constraint failed.
    public static let SQLITE_CONSTRAINT_NOTNULL = SQLiteResultCode(rawValue: 19 | 5 << 8)
    /// A `PRIMARY KEY` constraint failed.
    public static let SQLITE_CONSTRAINT_PRIMARYKEY = SQLiteResultCode(rawValue: 19 | 6 << 8)
    /// A `UNIQUE` constraint or unique index failed.
    public static let SQLITE_CONSTRAINT_UNIQUE = SQLiteResultCode(rawValue: 19 | 8 << 8)
    /// A rowid is not unique.
    public static let SQLITE_CONSTRAINT_ROWID = SQLiteResultCode(rawValue: 19 | 10 << 8)
    /// Another connection in recovery holds the lock.
    public static let SQLITE_BUSY_RECOVERY = SQLiteResultCode(rawValue: 5 | 1 << 8)
    /// A snapshot is no longer available.
    public static let SQLITE_BUSY_SNAPSHOT = SQLiteResultCode(rawValue: 5 | 2 << 8)
    /// A busy timeout ran out (SQLite 3.43 and later).
    public static let SQLITE_BUSY_TIMEOUT = SQLiteResultCode(rawValue: 5 | 3 << 8)
}

/// A failure SQLite reported, as ``PorterError/sqliteError`` carries it under a target error.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (``SQLiteResultCode/SQLITE_CONSTRAINT``).
    public var resultCode: SQLiteResultCode { extendedResultCode.primaryResultCode }
    /// The extended result code (``SQLiteResultCode/SQLITE_CONSTRAINT_UNIQUE``), or the primary
    /// one when SQLite gave no refinement.
    public let extendedResultCode: SQLiteResultCode
    /// SQLite's message (`"UNIQUE constraint failed: Book.title"`).
    public let message: String
    /// The SQL of the statement that failed, when a statement did.
    public let sql: String?
    /// The database file.
    public let path: String

    /// A failure of `sql` on `path`.
    public init(_ extendedResultCode: SQLiteResultCode, message: String, sql: String? = nil, path: String) {
        self.extendedResultCode = extendedResultCode
        self.message = message
        self.sql = sql
        self.path = path
    }

    /// `path: message (code N)`.
    public var description: String { "\(path): \(message) (code \(extendedResultCode.rawValue))" }
}
