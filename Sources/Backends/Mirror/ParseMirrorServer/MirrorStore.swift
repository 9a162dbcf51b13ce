import Foundation
import MirrorQuery
import ParseModel
import ParseRules
import PorterCore
import PorterSQLite

/// The mirror file as the server uses it from many threads: WAL mode, one writer at a time
/// (a process-wide lock plus `BEGIN IMMEDIATE`, which also waits for writers in other
/// processes), and a pool of read connections that each read one snapshot per request.
final class MirrorStore: @unchecked Sendable {
    let path: String
    /// Serialises writes; `writer` is only used while it is held (or by a ``MirrorSession``,
    /// which owns its store).
    private let writeLock = WriteLock()
    let writer: MirrorConnection
    /// Guards `idle` and `isClosed`.
    private let poolLock = NSLock()
    private var idle: [MirrorConnection] = []
    /// Set by ``close()``: no connection is handed out after it.
    private var isClosed = false
    private let schemaCache = SchemaCache()
    /// Read connections kept open between requests; more are opened under load and closed after.
    private static let idleLimit = 8

    /// Seconds a query on any of the store's connections may run.
    private let queryTimeLimit: Double

    /// Opens the mirror at `path`, creating an empty one (`_SCHEMA`, `_PorterMigrations`) when
    /// the file does not exist.
    /// Refuses paths that are not a file (`":memory:"`, `""`, `file:` URIs): each connection
    /// of the store opens the path anew, and would see a database of its own.
    init(path: String, queryTimeLimit: Double = MirrorReader.defaultTimeLimit) throws {
        guard Self.namesAFile(path) else {
            throw PorterError(
                .invalidRequest,
                "\"\(path)\" is not a mirror file: a served mirror is opened by several connections, which must share one "
                    + "SQLite file, so an in-memory or temporary database cannot be served; give the path of a file (in a temporary folder for tests)")
        }
        self.path = path
        self.queryTimeLimit = queryTimeLimit
        let database = try SQLiteDatabase(path: path, create: true)
        try Self.switchToWAL(database)
        // In WAL mode NORMAL keeps the mirror consistent after a crash; a power loss may undo the last commits.
        try database.execute("PRAGMA synchronous = NORMAL")
        // The writer keeps the pages it writes (64 MB, as the importer) and checkpoints every ~40 MB of log.
        try database.execute("PRAGMA cache_size = -65536")
        try database.execute("PRAGMA wal_autocheckpoint = 10000")
        // Only a mirror that lacks them takes the write lock: another process may be in a long
        // write transaction (a migration) that a reader must not wait for.
        let present = try database.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('_SCHEMA', '_PorterMigrations')")
        if present.first?.first != "2" {
            try database.execute("BEGIN IMMEDIATE")
            for sql in MirrorLayout.bookkeepingTablesSQL { try database.execute(sql) }
            try database.execute("COMMIT")
        }
        writer = MirrorConnection(database: database, schemaCache: schemaCache, queryTimeLimit: queryTimeLimit)
    }

    /// Puts the file in WAL mode. Switching a file in rollback-journal mode needs its exclusive
    /// lock, and while another process holds its write lock (a second `migrate` runner that
    /// created the file a moment before) SQLite refuses at once rather than wait, to avoid a
    /// deadlock: the switch is tried again for up to 5 seconds, as a busy write would wait.
    private static func switchToWAL(_ database: SQLiteDatabase) throws(PorterError) {
        let deadline = Date().addingTimeInterval(5)
        while true {
            do {
                try database.execute("PRAGMA journal_mode = WAL")
                return
            } catch  where error.sqliteError?.resultCode == .SQLITE_BUSY && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
    }

    /// Whether SQLite opens `path` as a file every connection shares, rather than a database of
    /// the connection's own (`":memory:"`, `""`) or a URI (`file:…`, which may name one).
    static func namesAFile(_ path: String) -> Bool {
        !path.isEmpty && path != ":memory:" && !path.hasPrefix("file:")
    }

    /// Closes every connection, so SQLite checkpoints the write-ahead log and removes the
    /// `-wal` and `-shm` files. Call it once no request runs; reads and writes after it fail.
    func close() {
        writeLock.lock()
        defer { writeLock.unlock() }
        poolLock.lock()
        let pooled = idle
        idle = []
        let wasClosed = isClosed
        isClosed = true
        poolLock.unlock()
        guard !wasClosed else { return }
        for connection in pooled { connection.close() }
        writer.close()
    }

    /// Runs `body` in one read transaction on a pooled connection.
    func read<T>(_ body: (MirrorConnection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        try connection.database.execute("BEGIN")
        defer { try? connection.database.execute("COMMIT") }
        return try body(connection)
    }

    /// Runs `body` in the write transaction: committed when it returns, rolled back when it throws.
    func write<T>(_ body: (MirrorConnection) throws -> T) throws -> T {
        writeLock.lock()
        defer { writeLock.unlock() }
        guard !closed else { throw Self.closedFailure }
        try writer.database.execute("BEGIN IMMEDIATE")
        do {
            let result = try body(writer)
            try writer.database.execute("COMMIT")
            return result
        } catch {
            try? writer.database.execute("ROLLBACK")
            throw error
        }
    }

    /// Whether another request waits for the write lock.
    var writeLockIsWaitedFor: Bool { writeLock.isWaitedFor }

    private func checkOut() throws -> MirrorConnection {
        poolLock.lock()
        let pooled = idle.popLast()
        let wasClosed = isClosed
        poolLock.unlock()
        guard !wasClosed else { throw Self.closedFailure }
        if let pooled { return pooled }
        return MirrorConnection(database: try SQLiteDatabase(path: path, create: false), schemaCache: schemaCache, queryTimeLimit: queryTimeLimit)
    }

    private func checkIn(_ connection: MirrorConnection) {
        poolLock.lock()
        defer { poolLock.unlock() }
        if !isClosed && idle.count < Self.idleLimit { idle.append(connection) } else { connection.close() }
    }

    private var closed: Bool {
        poolLock.lock()
        defer { poolLock.unlock() }
        return isClosed
    }

    private static let closedFailure = APIError.internalFailure("the mirror was closed: the server has stopped")
}

/// The single writer's lock, served first come, first served: with a plain mutex a client that
/// writes in a loop takes it again before the threads waiting for it wake, and can keep it from
/// them for as long as it likes. It also tells whether anyone waits.
final class WriteLock: @unchecked Sendable {
    private let condition = NSCondition()
    private var nextTicket = 0
    /// The ticket whose holder has the lock, or takes it next.
    private var serving = 0

    func lock() {
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        while serving != ticket { condition.wait() }
        condition.unlock()
    }

    func unlock() {
        condition.lock()
        serving += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Whether a thread waits for the lock (besides the one holding it).
    var isWaitedFor: Bool {
        condition.lock()
        defer { condition.unlock() }
        return nextTicket - serving > 1
    }
}

/// Parsed `_SCHEMA` rows shared by all connections, keyed by class and reused while the
/// stored JSON text is unchanged, so every request sees the committed schema (also changes
/// made by other connections or processes) without re-parsing it.
final class SchemaCache: @unchecked Sendable {
    private let lock = NSLock()
    private var parsed: [String: (text: String, schema: ClassSchema)] = [:]

    func schema(className: String, text: String) throws -> ClassSchema {
        lock.lock()
        let cached = parsed[className]
        lock.unlock()
        if let cached, cached.text == text { return cached.schema }
        guard let json = try? JSONParser.parse(text), let schema = try? ClassSchema(schemaJSON: json) else {
            throw APIError.internalFailure("_SCHEMA row for \(className) is not a valid /schemas JSON")
        }
        lock.lock()
        parsed[className] = (text, schema)
        lock.unlock()
        return schema
    }
}
