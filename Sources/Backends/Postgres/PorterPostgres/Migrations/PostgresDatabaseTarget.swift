import ParseModel
import ParseRules
import PorterCore

/// A Parse Server's own PostgreSQL database as a migration target, in `PostgresStorageAdapter`'s
/// layout: the `/schemas` requests answered in-process with the mirror's checks, on `_SCHEMA`,
/// the class tables and their indexes, and the `/classes` and `/batch` requests of object
/// operations by ``PostgresObjectRequests``; a unit of work is one PostgreSQL transaction (DDL
/// included), imports share it.
///
/// A target serves one run at a time: open one per concurrent run.
public final class PostgresDatabaseTarget: MigrationTarget, ParseAPI, @unchecked Sendable {
    // @unchecked: one libpq connection and its transaction state; a run awaits each request
    // before it sends the next, so the connection is used by one thread at a time.

    /// The database URL without its password.
    public let location: String
    /// The target itself: it answers requests in-process.
    public var api: ParseAPI { self }
    /// Parse Server's default mount path: no request here carries it.
    public var mountPath: String { "/parse" }
    /// A unit of work is a transaction: a failed migration or push leaves the database as it was.
    public var isTransactional: Bool { true }
    private let url: String
    private let connection: PostgresConnection
    private var inTransaction = false

    /// Connects to the database at `url` (`postgres://user@host:port/db`); an error caused ``PorterError/Cause/target`` when it cannot.
    public init(url: String) throws(PorterError) {
        self.url = url
        location = PostgresURL.redacted(url)
        connection = try PostgresConnection(url: url)
    }

    /// Opens the transaction.
    public func begin() throws(PorterError) {
        try connection.execute("BEGIN")
        inTransaction = true
    }

    /// Commits the transaction.
    public func commit() throws(PorterError) {
        guard inTransaction else { return }
        inTransaction = false
        try connection.execute("COMMIT")
    }

    /// Rolls the transaction back: the database is as it was at ``begin()``.
    public func rollback() {
        guard inTransaction else { return }
        inTransaction = false
        _ = try? connection.execute("ROLLBACK")
    }

    /// ``PostgresTarget`` on this connection: an import is a savepoint in the open transaction.
    public func importSink() -> ObjectSink { PostgresTarget(sharing: connection) }

    /// The `_PorterMigrations` table, made by the first entry written.
    public func history() throws(PorterError) -> MigrationHistory { PostgresHistory(connection: connection) }

    /// A PostgreSQL advisory lock, held on a connection of its own.
    public func migrationLock(timing: LockTiming) -> MigrationLock { PostgresLock(url: url, location: location, timing: timing) }

    /// Classes, fields and indexes named longer than the 63 bytes PostgreSQL keeps of a name
    /// are refused before a migration starts (a field a rename or a type change adds is refused
    /// when it is added, which rolls the migration back).
    public func refusal(of operation: MigrationOperation) -> String? {
        let tooLong: [RefusedName]
        switch operation {
        case .createClass(let schema): tooLong = PostgresIdentifiers.longNames(in: schema)
        case .addField(let className, let field): tooLong = [PostgresIdentifiers.longName(of: field, in: className)].compactMap { $0 }
        case .addIndex(let className, let name, _): tooLong = [PostgresIdentifiers.longName(ofIndex: name, in: className)].compactMap { $0 }
        case .deleteField, .dropIndex, .setPermissions, .importDataset, .renameField, .changeType, .updateObjects, .deleteObjects: tooLong = []
        }
        return tooLong.isEmpty ? nil : tooLong.map(\.description).joined(separator: "; ")
    }

    /// Answers `/schemas` and `/schemas/<Class>` as Parse Server would on this database, and
    /// the object requests ``PostgresObjectRequests`` answers; other routes are refused.
    /// Outside a unit of work a request is a transaction of its own; inside, a savepoint: a
    /// refused request changes nothing and the transaction goes on.
    public func send(_ method: String, _ path: String, query: [(String, String)], body: JSONValue?) throws(ParseAPIError) -> JSONValue {
        let parts = ParseRoute.segments(of: path)
        var object = JSONObject()
        if case .object(let given)? = body { object = given }
        let answerRequest: () throws(PorterError) -> APIResponse
        switch parts.first {
        case "schemas" where parts.count <= 2:
            let requests = SchemaRequests(storage: PostgresSchemaStorage(database: PostgresSchemas(connection: connection)), mountPath: mountPath)
            answerRequest = { () throws(PorterError) in try requests.answer(method, className: parts.count == 2 ? parts[1] : nil, body: object) }
        case "classes", "batch":
            let requests = PostgresObjectRequests(connection: connection, mountPath: mountPath, now: ParseDate.now)
            answerRequest = { () throws(PorterError) in try requests.answer(method, path, query: query, body: object) }
        default:
            throw .failed(PorterError(.target, "\(location): \(method) \(path) is not answered on a PostgreSQL database"))
        }
        let nested = inTransaction
        let answer: APIResponse
        do throws(PorterError) {
            try connection.execute(nested ? "SAVEPOINT porter_request" : "BEGIN")
            do {
                answer = try answerRequest()
            } catch {
                undo(nested)
                throw error
            }
            if (200..<300).contains(answer.status) {
                try connection.execute(nested ? "RELEASE SAVEPOINT porter_request" : "COMMIT")
            } else {
                undo(nested)
            }
        } catch {
            throw .failed(error)
        }
        guard (200..<300).contains(answer.status) else {
            throw .refused(ParseErrorAnswer(status: answer.status, body: answer.body, otherwise: answer.body.serialized()))
        }
        return answer.body
    }

    /// Undoes a request: back to its savepoint, or its own transaction rolled back.
    private func undo(_ nested: Bool) {
        if nested {
            _ = try? connection.execute("ROLLBACK TO SAVEPOINT porter_request")
            _ = try? connection.execute("RELEASE SAVEPOINT porter_request")
        } else {
            _ = try? connection.execute("ROLLBACK")
        }
    }
}
