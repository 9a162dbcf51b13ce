import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParseModel
import PorterPipeline

/// Why a request got no success answer.
public enum ParseRESTFailure: Error, Sendable {
    /// The server answered with an error that another try would not change: the Parse error
    /// code when the body has one (403 and 413 bodies have none), and the message.
    case refused(status: Int, code: ParseErrorCode?, message: String)
    /// No answer worth having after every attempt (network errors, timeouts, HTTP 5xx, 429), or a
    /// connection refused before the server ever answered (nothing listens there: no retries).
    case unavailable(String)
}

/// Sends Parse REST requests with the application id and keys, retrying what is worth
/// retrying (``RetryPolicy``), and counts the requests sent per phase. Safe to use from
/// several threads at once.
public final class ParseRESTClient: @unchecked Sendable {
    public let address: ParseServerAddress
    public let retry: RetryPolicy
    private let session: URLSession
    private let lock = NSLock()
    private var tallies: [RequestTally] = []
    /// Whether any request got an HTTP answer: until then, a refused connection means nothing
    /// listens at the address (not worth retrying); after, that the server went away for a while.
    private var answered = false

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
        lock.lock()
        defer { lock.unlock() }
        return tallies
    }

    /// Sends a request until it gets an answer (or the retries run out) and returns the JSON body.
    /// `path` is relative to the mount path (`/schemas`, `/classes/Book`); `operations` is how
    /// many operations it carries (for the request tallies).
    public func send(_ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil,
                     phase: String, operations: Int = 1) throws(ParseRESTFailure) -> JSONValue {
        try send(method, path, query: query, bodyBytes: body?.serializedBytes(), phase: phase, operations: operations)
    }

    /// Sends a raw body (a file upload, with its `contentType`) until it gets an answer, as
    /// ``send(_:_:query:body:phase:operations:)``.
    public func send(_ method: String, _ path: String, query: [(String, String)] = [], bodyBytes: [UInt8]?,
                     contentType: String = "application/json", phase: String, operations: Int = 1) throws(ParseRESTFailure) -> JSONValue {
        var attempt = 1
        while true {
            switch attemptOnce(method, path, query: query, bodyBytes: bodyBytes, contentType: contentType, phase: phase, operations: operations) {
            case .success(let json):
                return json
            case .failure(.final(let refusal)):
                throw refusal
            case .failure(.retryable(let reason, let retryAfter)):
                guard attempt < retry.attempts else {
                    throw .unavailable("\(method) \(address.mountPath)\(path): \(reason) (gave up after \(attempt) attempts)")
                }
                Thread.sleep(forTimeInterval: retry.delay(after: attempt, retryAfter: retryAfter))
                attempt += 1
            }
        }
    }

    /// What one attempt ended in, when it did not succeed.
    public enum AttemptFailure: Error, Sendable {
        /// Worth another try; the server may or may not have acted on the request.
        case retryable(reason: String, retryAfter: Double?)
        case final(ParseRESTFailure)
    }

    /// Sends a request once, with a body already serialized; `maintenance` adds the maintenance
    /// key, which Parse Server checks before the master key.
    public func attemptOnce(_ method: String, _ path: String, query: [(String, String)] = [], bodyBytes: [UInt8]?,
                            contentType: String = "application/json", phase: String, operations: Int = 1, maintenance: Bool = false) -> Result<JSONValue, AttemptFailure> {
        count(phase: phase, operations: operations)
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
            request.httpBody = Data(bodyBytes)
        }
        let (data, response, error) = exchange(request)
        guard let http = response as? HTTPURLResponse, error == nil else {
            let reason = error.map(Self.describe) ?? "no HTTP response"
            // A certificate that is not trusted stays untrusted: no point in asking again.
            if reason.hasPrefix("TLS") { return .failure(.final(.unavailable(reason))) }
            if (error as? URLError)?.code == .cannotConnectToHost && !hasAnswered {
                return .failure(.final(.unavailable("connection refused: nothing is listening there (is the server running, and are the host and port right?)")))
            }
            return .failure(.retryable(reason: reason, retryAfter: nil))
        }
        markAnswered()
        let json = data.flatMap { try? JSONParser.parse(bytes: Array($0)) }
        let code = ParseErrorCode(errorBody: json)
        if (200..<300).contains(http.statusCode), let json { return .success(json) }
        let message = Self.errorMessage(json, data: data, status: http.statusCode)
        if RetryPolicy.isRetryable(status: http.statusCode) || code.map(RetryPolicy.retryableCodes.contains) == true {
            let retryAfter = (http.value(forHTTPHeaderField: "Retry-After")).flatMap(Double.init)
            return .failure(.retryable(reason: "HTTP \(http.statusCode): \(message)", retryAfter: retryAfter))
        }
        return .failure(.final(.refused(status: http.statusCode, code: code, message: message)))
    }

    private func exchange(_ request: URLRequest) -> (Data?, URLResponse?, Error?) {
        nonisolated(unsafe) var result: (Data?, URLResponse?, Error?) = (nil, nil, nil)
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            result = (data, response, error)
            done.signal()
        }.resume()
        done.wait()
        return result
    }

    private var hasAnswered: Bool {
        lock.lock()
        defer { lock.unlock() }
        return answered
    }

    private func markAnswered() {
        lock.lock()
        answered = true
        lock.unlock()
    }

    private func count(phase: String, operations: Int) {
        lock.lock()
        defer { lock.unlock() }
        if let index = tallies.firstIndex(where: { $0.phase == phase }) {
            tallies[index].requests += 1
            tallies[index].operations += operations
        } else {
            tallies.append(RequestTally(phase: phase, requests: 1, operations: operations))
        }
    }

    /// Parse error bodies carry `error`, uncaught server errors `message` (PARSE_REST.md §9).
    static func errorMessage(_ json: JSONValue?, data: Data?, status: Int) -> String {
        if case .string(let text)? = json?["error"] { return text }
        if case .string(let text)? = json?["message"] { return text }
        let text = data.map { String(decoding: $0.prefix(200), as: UTF8.self) } ?? ""
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
