import ParseModel
import PorterCore

/// A Parse Server as a migration target, reached with the master key. Requests stand alone:
/// there is no transaction, so every operation is written to be safe to run again.
public final class ServerTarget: MigrationTarget, ParseAPI {
    /// The client of the Parse Server, with the master key.
    public let client: ParseRESTClient
    /// The server's URL, without keys.
    public var location: String { client.address.description }
    /// The target itself, sending requests through ``client``.
    public var api: ParseAPI { self }
    /// The server's mount path (`/parse`).
    public var mountPath: String { client.address.mountPath }
    private let importOptions: RESTSinkOptions

    /// The server `client` reaches; `importOptions` shape the `importDataset` operations' writes.
    public init(client: ParseRESTClient, importOptions: RESTSinkOptions = RESTSinkOptions()) {
        self.client = client
        self.importOptions = importOptions
    }

    /// Does nothing: a Parse Server has no transactions.
    public func begin() throws(PorterError) {}
    /// Does nothing: each request was kept when it was answered.
    public func commit() throws(PorterError) {}
    /// Does nothing: what was sent stays.
    public func rollback() {}

    /// A REST sink writing to the server with the target's import options.
    public func importSink() -> ObjectSink { RESTSink(client: client, options: importOptions) }

    /// The `PorterMigrations` class on the server.
    public func history() throws(PorterError) -> MigrationHistory { ServerHistory(api: self) }

    /// A lock object in the `PorterMigrationLock` class.
    public func migrationLock(timing: LockTiming) -> MigrationLock { ServerLock(api: self, location: location, timing: timing) }

    /// Sends one request with the master key. Throws `refused` with the server's status, code and
    /// message, or `failed` when the server cannot be reached or the request was cancelled.
    public func send(_ method: String, _ path: String, query: [(String, String)], body: JSONValue?) async throws(ParseAPIError) -> JSONValue {
        do {
            return try await client.send(method, path, query: query, body: body, phase: "migrate")
        } catch {
            switch error {
            case .refused(let answer): throw .refused(answer)
            case .unavailable(let reason): throw .failed(PorterError(.target, "\(client.address): \(reason)"))
            case .cancelled: throw .failed(PorterError(.cancelled, "\(client.address): the request was cancelled"))
            }
        }
    }
}
