import Foundation
import ParseModel
import ParseRules
import PorterCore
import PorterSQLite

/// Parse's REST API answered in-process over one mirror file, with the master key, inside
/// transactions the caller opens and closes: how migrations and schema commands change a
/// mirror with exactly the rules `serve` applies. A request that fails changes nothing (it
/// runs in a savepoint); ``commit()`` keeps, ``rollback()`` undoes everything since ``begin()``.
/// Used by one thread at a time.
public final class MirrorSession {
    /// The mirror's file path.
    public let path: String
    private let api: ParseMirrorAPI
    private let connection: MirrorConnection
    /// Whether a transaction is open (between ``begin(busyTimeout:)`` and ``commit()`` or ``rollback()``).
    package private(set) var inTransaction = false

    /// Opens the mirror at `path`, creating an empty one when `create` and the file does not exist.
    package init(path: String, create: Bool) throws(PorterError) {
        guard create || FileManager.default.fileExists(atPath: path) else {
            throw PorterError(.target, "\(path): no such mirror")
        }
        self.path = path
        let configuration = ParseServerConfiguration(applicationId: "parse-porter", masterKey: UUID().uuidString)
        do { api = try ParseMirrorAPI(mirrorPath: path, configuration: configuration) } catch let error as PorterError {
            throw error
        } catch {
            throw PorterError(.target, "\(path): \(error)")
        }
        connection = api.store.writer
    }

    /// The connection requests run on, for work done beside them in the same transaction
    /// (an import through ``SQLiteMirror``).
    package var database: SQLiteDatabase { connection.database }

    /// The mount path requests are answered under (`/parse`): `/batch` sub-request paths carry it.
    package var mountPath: String { api.mountPath }

    /// Starts a write transaction; waits up to `busyTimeout` seconds while another process writes.
    /// A `readOnly` transaction reads one snapshot and waits for no writer (the mirror is in WAL
    /// mode); requests that write fail in it.
    package func begin(busyTimeout: Double = 5, readOnly: Bool = false) throws(PorterError) {
        database.setBusyTimeout(seconds: busyTimeout)
        try database.execute(readOnly ? "BEGIN" : "BEGIN IMMEDIATE")
        inTransaction = true
    }

    /// Commits the transaction ``begin(busyTimeout:readOnly:)`` started.
    package func commit() throws(PorterError) {
        guard inTransaction else { return }
        try database.execute("COMMIT")
        inTransaction = false
    }

    /// Undoes everything since ``begin(busyTimeout:readOnly:)``; nothing happens outside a transaction.
    package func rollback() {
        guard inTransaction else { return }
        try? database.execute("ROLLBACK")
        inTransaction = false
    }

    /// Rolls back an open transaction and closes the mirror's connections (SQLite then removes
    /// its `-wal` and `-shm` files). Closing twice does nothing; requests after it fail.
    package func close() {
        rollback()
        api.close()
    }

    /// Answers one request (`path` below the mount path, e.g. `/schemas/Book`) as Parse Server
    /// would with the master key: the HTTP status and the JSON body, an error body when the status
    /// is not 2xx. A failure of the mirror file itself is thrown.
    package func send(_ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil) throws(PorterError) -> (
        status: Int, body: JSONValue
    ) {
        guard inTransaction else { throw PorterError(.target, "\(self.path): a request outside a transaction") }
        var object = JSONObject()
        if case .object(let given)? = body { object = given }
        let request = APIRequest(
            method: method, path: path, body: object, query: query.map { (name: $0.0, value: $0.1) },
            credentials: Credentials(), publicURL: api.mountPath)
        let data = DataAccess(store: api.store, batch: connection)
        try database.execute("SAVEPOINT session_request")
        let outcome: Result<APIResponse, any Error>
        do { outcome = .success(try api.route(request, caller: .master, data: data)) } catch { outcome = .failure(error) }
        switch outcome {
        case .success(let response):
            try database.execute("RELEASE session_request")
            return (response.status, response.body)
        case .failure(let error):
            try database.execute("ROLLBACK TO session_request")
            try database.execute("RELEASE session_request")
            if let error = error as? PorterError { throw error }
            let failure = APIError(error)
            return (failure.answer.status, failure.body)
        }
    }
}
