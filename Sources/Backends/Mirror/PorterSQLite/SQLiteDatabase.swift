import CSQLite
import Foundation
import PorterCore

/// `SQLITE_TRANSIENT`: SQLite copies bound text (the C macro is not imported).
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A connection to one SQLite file; failures become target errors (``PorterError/Cause/target``) naming the file.
/// Used by one thread at a time.
public final class SQLiteDatabase {
    /// The file's path.
    public let path: String
    /// What messages call the file: its path, or the mirror a hidden file is built for.
    private let name: String
    /// The C handle, for registering functions (`sqlite3_create_function_v2`).
    package private(set) var handle: OpaquePointer?

    /// Set once per process, before the first connection.
    private static let configured: Void = { _ = csqlite_disable_memory_statistics() }()

    /// Opens the SQLite file at `path`; with `create`, an empty one is made when it does not exist, else a missing file throws.
    public convenience init(path: String, create: Bool) throws(PorterError) {
        try self.init(path: path, flags: SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0))
    }

    /// Opens the SQLite file at `path`, which messages call `name` (a mirror built under a hidden name).
    convenience init(path: String, create: Bool, shownAs name: String) throws(PorterError) {
        try self.init(path: path, flags: SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), name: name)
    }

    /// Opens the SQLite file at `path` for reading only; a missing file throws.
    package convenience init(readingOnly path: String) throws(PorterError) {
        try self.init(path: path, flags: SQLITE_OPEN_READONLY)
    }

    private init(path: String, flags: Int32, name: String? = nil) throws(PorterError) {
        SQLiteDatabase.configured
        self.path = path
        self.name = name ?? path
        // One connection, used by one thread at a time: no per-call mutex.
        let flags = flags | SQLITE_OPEN_NOMUTEX
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard status == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            let code = db.map { sqlite3_extended_errcode($0) } ?? status
            sqlite3_close(db)
            handle = nil
            throw PorterError(.target, "\(self.name): \(message)", underlying: SQLiteError(SQLiteResultCode(rawValue: code), message: message, path: self.name))
        }
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { close() }

    /// How long a statement waits for another connection's write lock before failing busy.
    package func setBusyTimeout(seconds: Double) {
        sqlite3_busy_timeout(handle, Int32(min(seconds * 1000, Double(Int32.max))))
    }

    /// Closes the connection; later calls fail. Closing twice does nothing.
    public func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// The connection's last failure as a target error: `path: context: SQLite's message`, with
    /// the ``SQLiteError`` (code, message and `sql`) under it.
    package func fail(_ context: String, sql: String?) -> PorterError {
        let message = String(cString: sqlite3_errmsg(handle))
        let code = SQLiteResultCode(rawValue: sqlite3_extended_errcode(handle))
        return PorterError(.target, "\(name): \(context): \(message)", underlying: SQLiteError(code, message: message, sql: sql, path: name))
    }

    package func execute(_ sql: String) throws(PorterError) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw fail(String(sql.prefix(60)) + (sql.count > 60 ? "…" : ""), sql: sql)
        }
    }

    package func prepare(_ sql: String) throws(PorterError) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw fail("prepare", sql: sql) }
        return SQLiteStatement(statement, database: self)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Each row of `sql` as text columns.
    package func rows(_ sql: String, _ arguments: [String] = []) throws(PorterError) -> [[String?]] {
        let statement = try prepare(sql)
        for (i, argument) in arguments.enumerated() { statement.bind(text: argument, at: i + 1) }
        var rows: [[String?]] = []
        while try statement.step() {
            rows.append((0..<statement.columnCount).map { statement.text(at: $0) })
        }
        return rows
    }
}

/// A prepared statement; finalised when released.
package final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let database: SQLiteDatabase

    init(_ statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit { sqlite3_finalize(statement) }

    /// Binds all of the text's UTF-8 bytes, NUL characters included (a C string would end at the first).
    package func bind(text: String, at index: Int) {
        // A native string's bytes are contiguous: SQLite copies them, with no array in between.
        var text = text
        text.withUTF8 { bytes in
            guard let start = bytes.baseAddress else {
                // A NULL pointer would bind SQL NULL, not the empty text.
                _ = sqlite3_bind_text(statement, Int32(index), "", 0, sqliteTransient)
                return
            }
            _ = start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(statement, Int32(index), $0, Int32(bytes.count), sqliteTransient)
            }
        }
    }
    package func bind(integer: Int64, at index: Int) { sqlite3_bind_int64(statement, Int32(index), integer) }
    package func bind(double: Double, at index: Int) { sqlite3_bind_double(statement, Int32(index), double) }
    package func bindNull(at index: Int) { sqlite3_bind_null(statement, Int32(index)) }

    /// Steps once: `true` when a row is available, `false` when done.
    package func step() throws(PorterError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.fail("write", sql: sqlite3_sql(statement).map { String(cString: $0) })
        }
    }

    /// Runs the statement to its end and resets it for the next bindings.
    package func run() throws(PorterError) {
        defer { reset() }
        while try step() {}
    }

    package func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    package var columnCount: Int { Int(sqlite3_column_count(statement)) }

    /// The column's text, all of its bytes (NUL characters included).
    package func text(at column: Int) -> String? {
        guard let pointer = sqlite3_column_text(statement, Int32(column)) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// `body` applied to the column's text bytes, read in place; `nil` for NULL.
    package func withText<Result>(at column: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard sqlite3_column_type(statement, Int32(column)) != SQLITE_NULL, let pointer = sqlite3_column_text(statement, Int32(column)) else { return nil }
        return body(UnsafeRawBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(statement, Int32(column)))))
    }

    /// Whether the column holds text with exactly the bytes of `text`; reads them in place.
    package func holdsText(_ text: String, at column: Int) -> Bool {
        guard sqlite3_column_type(statement, Int32(column)) == SQLITE_TEXT else { return false }
        let stored = sqlite3_column_text(statement, Int32(column))
        let count = Int(sqlite3_column_bytes(statement, Int32(column)))
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == count else { return false }
            guard let stored, let start = bytes.baseAddress else { return count == 0 }
            return memcmp(stored, start, count) == 0
        }
    }

    /// The declared type of a result column that is a table column (`TEXT`, `NUMERIC`…); `nil` for an expression.
    package func declaredType(at column: Int) -> String? { sqlite3_column_decltype(statement, Int32(column)).map { String(cString: $0) } }

    package func integer(at column: Int) -> Int64 { sqlite3_column_int64(statement, Int32(column)) }
    package func double(at column: Int) -> Double { sqlite3_column_double(statement, Int32(column)) }
    /// The size in bytes of a column's value without converting it: its bytes for text and blobs, 8
    /// for a number, 0 for NULL. (`sqlite3_column_bytes` on a number would turn it into text,
    /// after which SQLite no longer promises its storage class.)
    package func storedSize(at column: Int) -> Int {
        switch sqlite3_column_type(statement, Int32(column)) {
        case SQLITE_TEXT, SQLITE_BLOB: Int(sqlite3_column_bytes(statement, Int32(column)))
        case SQLITE_NULL: 0
        default: 8
        }
    }
    /// `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    package func storageClass(at column: Int) -> Int32 { sqlite3_column_type(statement, Int32(column)) }
    package func columnName(at column: Int) -> String { String(cString: sqlite3_column_name(statement, Int32(column))) }
}

/// `"name"` with inner quotes doubled.
package func quoted(_ identifier: String) -> String {
    guard identifier.utf8.contains(0x22) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

extension PorterError {
    /// The SQLite failure behind a target error of a mirror, if that is what it is: match its
    /// ``SQLiteError/resultCode`` (`.SQLITE_BUSY`, `.SQLITE_CONSTRAINT`…), never its message.
    public var sqliteError: SQLiteError? { underlyingError as? SQLiteError }
}
