import ParseModel
import PorterCore
import PorterSQLite
import Synchronization

/// A SQLite mirror as a migration target: requests answered in-process by a ``MirrorSession``
/// (the rules `serve` applies), a unit of work is one transaction, imports share it.
///
/// A mirror target may be handed from task to task, but serves one run at a time: open one
/// target per concurrent run. ``close()`` closes its connection; it also closes when the target
/// is released.
public final class MirrorTarget: MigrationTarget, ParseAPI, @unchecked Sendable {
    // @unchecked: the compiler cannot check the one SQLite connection (opened without SQLite's
    // own mutex) and its transaction state. A run awaits each request before it sends the next,
    // so the connection is used by one thread at a time, which is all SQLite asks.

    /// The mirror's connection, answering Parse REST requests in-process.
    public let session: MirrorSession
    /// The mirror file's path.
    public var location: String { session.path }
    /// The target itself: it answers requests in-process.
    public var api: ParseAPI { self }
    /// The mount path requests are answered under (`/parse`); `/batch` sub-request paths carry it.
    public var mountPath: String { session.mountPath }
    /// A unit of work is a transaction.
    public var isTransactional: Bool { true }
    /// A mirror.
    public var storeName: String { "mirror" }
    /// Seconds a unit of work waits for another process's write transaction.
    public var busyTimeout: Double
    private let closed = Mutex(false)

    /// The mirror at `path`; `create` makes an empty one when there is none.
    public init(path: String, create: Bool, busyTimeout: Double = 5) throws(PorterError) {
        session = try MirrorSession(path: path, create: create)
        self.busyTimeout = busyTimeout
    }

    /// Rolls back a unit of work still open and closes the mirror's connection, so that the
    /// file may be moved, removed or opened anew; SQLite removes its `-wal` and `-shm` files.
    /// Closing twice does nothing. Later units of work and requests throw a `.target` error.
    public func close() {
        closed.withLock { isClosed in
            guard !isClosed else { return }
            isClosed = true
            session.close()
        }
    }

    private func checkOpen() throws(PorterError) {
        if closed.withLock({ $0 }) { throw PorterError(.target, "\(location): the mirror was closed") }
    }

    /// Opens a write transaction, waiting up to ``busyTimeout`` seconds for another writer.
    public func begin() throws(PorterError) {
        try checkOpen()
        try session.begin(busyTimeout: busyTimeout)
    }
    /// Commits the open transaction.
    public func commit() throws(PorterError) { try session.commit() }
    /// Rolls the open transaction back.
    public func rollback() { session.rollback() }

    /// A sink writing into the mirror inside the open transaction.
    public func importSink() -> ObjectSink { SQLiteMirror(sharing: session.database) }

    /// The mirror's `_PorterMigrations` table; throws when the table cannot be read or created.
    public func history() throws(PorterError) -> MigrationHistory {
        try checkOpen()
        return try MirrorHistory(database: session.database)
    }

    /// A lock kept in the mirror.
    public func migrationLock(timing: LockTiming) -> MigrationLock { MirrorLock(target: self, timing: timing) }

    /// Outside a unit of work each request is a transaction of its own, a read-only one for a GET.
    public func send(_ method: String, _ path: String, query: [(String, String)], body: JSONValue?) throws(ParseAPIError) -> JSONValue {
        let answer: (status: Int, body: JSONValue)
        do throws(PorterError) {
            try checkOpen()
            if session.inTransaction {
                answer = try session.send(method, path, query: query, body: body)
            } else {
                // A read waits for no writer: `status` and `schema check` run beside a long migration.
                try session.begin(busyTimeout: busyTimeout, readOnly: method == "GET")
                do {
                    answer = try session.send(method, path, query: query, body: body)
                    try session.commit()
                } catch {
                    session.rollback()
                    throw error
                }
            }
        } catch {
            throw .failed(error)
        }
        guard (200..<300).contains(answer.status) else {
            throw .refused(ParseErrorAnswer(status: answer.status, body: answer.body, otherwise: answer.body.serialized()))
        }
        return answer.body
    }
}
