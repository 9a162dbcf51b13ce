import ParseModel
import PorterPipeline
import PorterREST

/// A Parse Server as a migration target, reached with the master key. Requests stand alone:
/// there is no transaction, so every operation is written to be safe to run again.
public final class ServerTarget: MigrationTarget, ParseAPI {
    /// The client of the Parse Server, with the master key.
    public let client: ParseRESTClient
    public var location: String { client.address.description }
    public var api: ParseAPI { self }
    public var mountPath: String { client.address.mountPath }
    private let importOptions: RESTSinkOptions

    /// The server `client` reaches; `importOptions` shape the `importDataset` operations' writes.
    public init(client: ParseRESTClient, importOptions: RESTSinkOptions = RESTSinkOptions()) {
        self.client = client
        self.importOptions = importOptions
    }

    public func begin() throws(PorterError) {}
    public func commit() throws(PorterError) {}
    public func rollback() {}

    public func importSink() -> ObjectSink { RESTSink(client: client, options: importOptions) }

    public func history() throws(PorterError) -> MigrationHistory { ServerHistory(api: self) }

    public func migrationLock(timing: LockTiming) -> MigrationLock { ServerLock(api: self, location: location, timing: timing) }

    public func send(_ method: String, _ path: String, query: [(String, String)], body: JSONValue?) async throws(ParseAPIError) -> JSONValue {
        do {
            return try await client.send(method, path, query: query, body: body, phase: "migrate")
        } catch {
            switch error {
            case .refused(let status, let code, let message): throw .refused(status: status, code: code, message: message)
            case .unavailable(let reason): throw .failed(PorterError(.target, "\(client.address): \(reason)"))
            case .cancelled: throw .failed(PorterError(.interrupted, "\(client.address): the request was cancelled"))
            }
        }
    }
}
