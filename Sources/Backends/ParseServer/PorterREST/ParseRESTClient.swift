import Foundation
import ParseModel
import PorterCore
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a request got no success answer.
public enum ParseRESTFailure: Error, Sendable {
    /// The server answered with an error that another try would not change (403 and 413
    /// answers carry no Parse error code).
    case refused(ParseErrorAnswer)
    /// No answer worth having after every attempt (network errors, timeouts, HTTP 5xx, 429), or a
    /// connection refused before the server ever answered (nothing listens there: no retries).
    case unavailable(String)
    /// The task sending the request was cancelled: it stopped waiting for the request in flight,
    /// which the server may or may not have acted on.
    case cancelled
}

/// Sends Parse REST requests with the application id and keys, retrying what is worth
/// retrying (``RetryPolicy``), and counts the requests sent per phase. Safe to share between
/// tasks: cancelling the task that awaits ``send(_:_:query:body:phase:operations:)`` ends its wait
/// for the request in flight at once (the request runs out unseen) and ends the retries.
///
/// ```swift
/// let client = ParseRESTClient(address: ParseServerAddress(url: url, applicationId: "app", masterKey: key))
/// let schemas = try await client.send("GET", "/schemas", phase: "schemas")
/// ```
public final class ParseRESTClient: Sendable {
    /// The server's URL, application id and keys.
    public let address: ParseServerAddress
    /// How often and how long to wait before sending a failed request again.
    public let retry: RetryPolicy
    private let session: URLSession
    private let state = Mutex(State())

    private struct State {
        var tallies: [RequestTally] = []
        /// Whether any request got an HTTP answer: until then, a refused connection means nothing
        /// listens at the address (not worth retrying); after, that the server went away for a while.
        var answered = false
    }

    /// `timeout`: seconds one request may take before it counts as failed.
    public init(address: ParseServerAddress, timeout: Double = 30, retry: RetryPolicy = RetryPolicy(), maximumConnections: Int = 4) {
        self.address = address
        self.retry = retry
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 2
        configuration.httpMaximumConnectionsPerHost = max(1, maximumConnections)
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    deinit { session.invalidateAndCancel() }

    /// The requests sent so far, in the order their phases began.
    public var requestTallies: [RequestTally] {
        state.withLock { $0.tallies }
    }

    /// Sends a request until it gets an answer (or the retries run out) and returns the JSON body.
    /// `path` is relative to the mount path (`/schemas`, `/classes/Book`); `operations` is how
    /// many operations it carries (for the request tallies).
    public func send(
        _ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil,
        phase: String, operations: Int = 1
    ) async throws(ParseRESTFailure) -> JSONValue {
        try await send(method, path, query: query, bodyBytes: body?.serializedBytes(), phase: phase, operations: operations)
    }

    /// Sends a raw body (a file upload, with its `contentType`) until it gets an answer, as
    /// ``send(_:_:query:body:phase:operations:)``.
    public func send(
        _ method: String, _ path: String, query: [(String, String)] = [], bodyBytes: [UInt8]?,
        contentType: String = "application/json", phase: String, operations: Int = 1
    ) async throws(ParseRESTFailure) -> JSONValue {
        var attempt = 1
        while true {
            switch await attemptOnce(method, path, query: query, bodyBytes: bodyBytes, contentType: contentType, phase: phase, operations: operations) {
            case .success(let json):
                return json
            case .failure(.final(let refusal)):
                throw refusal
            case .failure(.retryable(let reason, let retryAfter)):
                guard attempt < retry.attempts else {
                    throw .unavailable("\(method) \(address.mountPath)\(path): \(reason) (gave up after \(attempt) attempts)")
                }
                try await retry.wait(after: attempt, retryAfter: retryAfter)
                attempt += 1
            }
        }
    }

    /// What one attempt ended in, when it did not succeed.
    public enum AttemptFailure: Error, Sendable {
        /// Worth another try; the server may or may not have acted on the request.
        case retryable(reason: String, retryAfter: Double?)
        /// Not worth another try: a refusal, no server at the address, or the task was cancelled.
        case final(ParseRESTFailure)
    }

    /// Sends a request once, with a body already serialized; `maintenance` adds the maintenance
    /// key, which Parse Server checks before the master key.
    public func attemptOnce(
        _ method: String, _ path: String, query: [(String, String)] = [], bodyBytes: [UInt8]?,
        contentType: String = "application/json", phase: String, operations: Int = 1,
        maintenance: Bool = false
    ) async -> Result<JSONValue, AttemptFailure> {
        if Task.isCancelled { return .failure(.final(.cancelled)) }
        count(phase: phase, operations: operations)
        let request = makeRequest(method, path, query: query, bodyBytes: bodyBytes, contentType: contentType, maintenance: maintenance)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.dataCancellingSafely(for: request)
        } catch {
            if Task.isCancelled || (error as? URLError)?.code == .cancelled || error is CancellationError { return .failure(.final(.cancelled)) }
            let reason = Self.describe(error)
            // A certificate that is not trusted stays untrusted: no point in asking again.
            if reason.hasPrefix("TLS") { return .failure(.final(.unavailable(reason))) }
            if (error as? URLError)?.code == .cannotConnectToHost && !hasAnswered {
                return .failure(
                    .final(.unavailable("connection refused: nothing is listening there (is the server running, and are the host and port right?)")))
            }
            return .failure(.retryable(reason: reason, retryAfter: nil))
        }
        guard let http = response as? HTTPURLResponse else { return .failure(.retryable(reason: "no HTTP response", retryAfter: nil)) }
        state.withLock { $0.answered = true }
        let json = try? JSONParser.parse(bytes: Array(data))
        if (200..<300).contains(http.statusCode), let json { return .success(json) }
        let answer = ParseErrorAnswer(status: http.statusCode, body: json, otherwise: Self.unparsedMessage(data, status: http.statusCode))
        if RetryPolicy.isRetryable(status: http.statusCode) || answer.code.map(RetryPolicy.retryableCodes.contains) == true {
            let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap(Double.init)
            return .failure(.retryable(reason: "HTTP \(http.statusCode): \(answer.message)", retryAfter: retryAfter))
        }
        return .failure(.final(.refused(answer)))
    }

    private func makeRequest(
        _ method: String, _ path: String, query: [(String, String)], bodyBytes: [UInt8]?,
        contentType: String, maintenance: Bool
    ) -> URLRequest {
        var components = URLComponents(url: address.url.appendingPathComponent(String(path.dropFirst())), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        // `+` is a space to Parse Server's query parser: it must travel encoded.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        var request = URLRequest(url: components.url!)
        request.httpMethod = method
        request.setValue(address.applicationId, forHTTPHeaderField: "X-Parse-Application-Id")
        if let key = address.masterKey { request.setValue(key, forHTTPHeaderField: "X-Parse-Master-Key") }
        if let key = address.restAPIKey { request.setValue(key, forHTTPHeaderField: "X-Parse-REST-API-Key") }
        if maintenance, let key = address.maintenanceKey { request.setValue(key, forHTTPHeaderField: "X-Parse-Maintenance-Key") }
        if let bodyBytes {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.httpBodyStream = OneShotBody(bodyBytes)
        }
        return request
    }

    private var hasAnswered: Bool {
        state.withLock { $0.answered }
    }

    private func count(phase: String, operations: Int) {
        state.withLock { state in
            if let index = state.tallies.firstIndex(where: { $0.phase == phase }) {
                state.tallies[index].requests += 1
                state.tallies[index].operations += operations
            } else {
                state.tallies.append(RequestTally(phase: phase, requests: 1, operations: operations))
            }
        }
    }

    /// The message of an error body that is not Parse's (neither `error` nor `message`): its
    /// first 200 bytes, or the status when it is empty.
    static func unparsedMessage(_ data: Data, status: Int) -> String {
        let text = String(decoding: data.prefix(200), as: UTF8.self)
        return text.isEmpty ? "HTTP \(status)" : text
    }

    static func describe(_ error: Error) -> String {
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut: return "timed out"
            case .cannotConnectToHost: return "connection refused"
            case .networkConnectionLost: return "connection lost"
            case .cannotFindHost: return "unknown host"
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid:
                return "TLS certificate not trusted"
            default: return urlError.localizedDescription
            }
        }
        return "\(error)"
    }
}
