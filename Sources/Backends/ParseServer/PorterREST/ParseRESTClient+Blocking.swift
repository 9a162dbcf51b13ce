import ParseModel
import PorterCore

extension ParseRESTClient {
    /// ``send(_:_:query:body:phase:operations:)`` for synchronous callers on dedicated threads
    /// (see ``BlockingBridge``).
    package func sendBlocking(
        _ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil,
        phase: String, operations: Int = 1
    ) throws(ParseRESTFailure) -> JSONValue {
        try BlockingBridge.wait { () async throws(ParseRESTFailure) -> JSONValue in
            try await self.send(method, path, query: query, body: body, phase: phase, operations: operations)
        }
    }

    /// ``send(_:_:query:bodyBytes:contentType:phase:operations:)`` for synchronous callers on
    /// dedicated threads (see ``BlockingBridge``).
    package func sendBlocking(
        _ method: String, _ path: String, query: [(String, String)] = [], bodyBytes: [UInt8]?,
        contentType: String = "application/json", phase: String, operations: Int = 1
    ) throws(ParseRESTFailure) -> JSONValue {
        try BlockingBridge.wait { () async throws(ParseRESTFailure) -> JSONValue in
            try await self.send(method, path, query: query, bodyBytes: bodyBytes, contentType: contentType, phase: phase, operations: operations)
        }
    }

    /// ``attemptOnce(_:_:query:bodyBytes:contentType:phase:operations:maintenance:)`` for
    /// synchronous callers on dedicated threads (see ``BlockingBridge``).
    package func attemptOnceBlocking(
        _ method: String, _ path: String, bodyBytes: [UInt8]?, phase: String, operations: Int,
        maintenance: Bool
    ) -> Result<JSONValue, AttemptFailure> {
        BlockingBridge.wait { () async -> Result<JSONValue, AttemptFailure> in
            await self.attemptOnce(method, path, bodyBytes: bodyBytes, phase: phase, operations: operations, maintenance: maintenance)
        }
    }
}

extension RetryPolicy {
    /// Waits before attempt number `attempt + 1` (see ``delay(after:retryAfter:)``); a cancelled
    /// task stops waiting at once.
    package func wait(after attempt: Int, retryAfter: Double? = nil) async throws(ParseRESTFailure) {
        do {
            try await Task.sleep(for: .seconds(delay(after: attempt, retryAfter: retryAfter)))
        } catch {
            throw .cancelled
        }
    }
}
