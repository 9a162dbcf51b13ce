import CLibPQ
import Foundation
import PorterCore

/// A connection to one PostgreSQL database through libpq. Failures become target errors
/// (``PorterError/Cause/target``) naming the database without its password, with the ``PostgresError`` (SQLSTATE and
/// SQL) under them. Values travel as text, always as parameters, never spliced into SQL.
/// Used by one thread at a time.
public final class PostgresConnection: @unchecked Sendable {
    // @unchecked: libpq's connection may move between threads but not be used by two at once;
    // its holders (a sink behind a mutex, a migration target that awaits each request before
    // the next) use it from one thread at a time.
    /// The URL as messages show it: without its password.
    public let shownURL: String
    private var handle: OpaquePointer?
    /// The COPY left open for more rows (``stream(_:into:columns:freeze:)``): ended by the
    /// next statement.
    var openStream: CopyStream?

    /// Connects to the database `url` names (`postgres://user@host:port/db`, see libpq's
    /// connection URIs); a password may be in the URL, or in `PGPASSWORD` or `~/.pgpass`.
    public init(url: String) throws(PorterError) {
        shownURL = PostgresURL.redacted(url)
        let connection = PQconnectdb(url)
        handle = connection
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let message = connection.map { Self.trimmed(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(connection)
            handle = nil
            throw PorterError(.target, "\(shownURL): cannot connect: \(message)", underlying: PostgresError(sqlState: "", message: message))
        }
        // Notices (`relation … already exists, skipping`) would go to stderr: they are dropped.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { close() }

    /// Closes the connection; later calls fail. Closing twice does nothing.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// Runs `sql` with `$1`, `$2`, … bound to `parameters` (text; `nil` is NULL) and returns
    /// the rows it gives, each column as text or `nil` for NULL.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(PorterError) -> [[String?]] {
        let result = try run(sql, parameters)
        defer { PQclear(result) }
        return Self.rows(result)
    }

    /// Runs a statement and returns how many rows it changed (`INSERT`, `UPDATE`, `DELETE`).
    public func changes(_ sql: String, _ parameters: [String?] = []) throws(PorterError) -> Int {
        let result = try run(sql, parameters)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ body: () throws(PorterError) -> T) throws(PorterError) -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// The result of a statement that succeeded; the caller clears it.
    private func run(_ sql: String, _ parameters: [String?]) throws(PorterError) -> OpaquePointer {
        try endStream()
        guard let handle else { throw PorterError(.target, "\(shownURL): the connection is closed") }
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        let values = copies.map { UnsafePointer<CChar>($0) }
        let result = values.withUnsafeBufferPointer { buffer in
            PQexecParams(handle, sql, Int32(parameters.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        try check(result, sql: sql, expecting: [PGRES_COMMAND_OK, PGRES_TUPLES_OK])
        return result!
    }

    /// Throws the failure `result` carries unless its status is one of `expecting`; a failed
    /// result is cleared.
    func check(_ result: OpaquePointer?, sql: String, expecting: [ExecStatusType]) throws(PorterError) {
        if let result, expecting.contains(PQresultStatus(result)) { return }
        let failure = failure(result, sql: sql)
        PQclear(result)
        throw failure
    }

    /// The target error for a failed result (or the connection's last error when there is none).
    func failure(_ result: OpaquePointer?, sql: String) -> PorterError {
        func field(_ code: Character) -> String? {
            guard let result, let value = PQresultErrorField(result, Int32(code.asciiValue!)) else { return nil }
            return String(cString: value)
        }
        let message = field("M") ?? handle.map { Self.trimmed(PQerrorMessage($0)) } ?? "the connection is closed"
        let error = PostgresError(sqlState: field("C") ?? "", message: message, detail: field("D"), constraint: field("n"), sql: sql)
        return PorterError(.target, "\(shownURL): \(error)", underlying: error)
    }

    /// The C handle, for COPY (``copy(into:columns:_:)``).
    var connection: OpaquePointer? { handle }

    private static func rows(_ result: OpaquePointer) -> [[String?]] {
        let (count, width) = (PQntuples(result), PQnfields(result))
        return (0..<count).map { row in
            (0..<width).map { column in PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column)) }
        }
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
}
