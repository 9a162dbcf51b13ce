import Foundation
import ParseModel

/// When and how long to wait before sending a request again: network errors, HTTP 5xx, 429 and
/// Parse's retryable codes, with exponential backoff and jitter, a bounded number of times.
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first one included.
    public var attempts: Int
    /// The wait before the second attempt; it doubles for each attempt after that, up to ``maximumDelay``.
    public var initialDelay: Double
    /// The longest wait between two attempts, whatever the backoff says.
    public var maximumDelay: Double

    /// A policy of `attempts` in all, waits doubling from `initialDelay` up to `maximumDelay` seconds.
    public init(attempts: Int = 6, initialDelay: Double = 0.25, maximumDelay: Double = 8) {
        self.attempts = attempts
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// Parse error codes worth another try (Docs/ParseServer.md#errors): internal error, connection
    /// failed (Parse Server's rate limit answer), timeout, request limit exceeded (hosted servers).
    public static let retryableCodes: Set<ParseErrorCode> = [.internalServerError, .connectionFailed, .timeout, .requestLimitExceeded]

    /// Whether an HTTP status is worth another try.
    public static func isRetryable(status: Int) -> Bool { status == 429 || status >= 500 }

    /// Seconds to wait before attempt number `attempt + 1` (`attempt` counts from 1); a server's
    /// `Retry-After` is honoured when it asks for longer.
    public func delay(after attempt: Int, retryAfter: Double? = nil) -> Double {
        let exponential = min(maximumDelay, initialDelay * pow(2, Double(attempt - 1)))
        let jittered = exponential * Double.random(in: 0.5...1.0)
        return max(jittered, min(retryAfter ?? 0, 60))
    }
}
