import Foundation
import PorterHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Test support, not product code: an HTTP handler that passes every request on to another
/// server (a real Parse Server) and its answer back, so that a ``FaultInjector`` in front of it
/// can make a real server's traffic fail the ways a network does.
public final class ForwardingProxy: HTTPHandler, @unchecked Sendable {
    private let target: URL
    private let session: URLSession

    /// Forwards to `target`, the server's URL without the mount path (`http://127.0.0.1:1337`).
    public init(target: URL) {
        self.target = target
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        session = URLSession(configuration: configuration)
    }

    public func respond(to request: HTTPRequest) throws -> HTTPResponse {
        var components = URLComponents(url: target.appendingPathComponent(String(request.path.dropFirst())), resolvingAgainstBaseURL: false)!
        if !request.query.isEmpty { components.queryItems = request.query.map { URLQueryItem(name: $0.name, value: $0.value) } }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        var forwarded = URLRequest(url: components.url!)
        forwarded.httpMethod = request.method
        for (name, value) in request.headers where !["host", "content-length", "transfer-encoding", "connection"].contains(name.lowercased()) {
            forwarded.addValue(value, forHTTPHeaderField: name)
        }
        if !request.body.isEmpty { forwarded.httpBody = Data(request.body) }
        guard let (body, http) = try? session.blockingData(for: forwarded) else { throw HTTPAbort() }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            guard let name = name as? String, let value = value as? String,
                !["content-length", "transfer-encoding", "connection", "content-encoding"].contains(name.lowercased())
            else { continue }
            headers.add(name, value)
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](body))
    }
}
