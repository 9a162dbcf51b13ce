import Foundation
import ParseModel
import PorterCore

/// One operation of a `/batch` request.
struct BatchOperation: Sendable {
    let method: String
    /// Relative to the mount path, e.g. `/classes/Book/abc`.
    let path: String
    let body: JSONObject
}

/// What the server answered for one operation.
enum BatchResult: Sendable {
    case success(JSONValue)
    case failure(ParseError)
}

/// Sends operations in `/batch` requests of at most `batchSize`, `concurrency` requests at a time,
/// and retries what failed for a reason worth retrying. Operations inside one batch may run
/// concurrently on the server, so callers never put dependent operations in one call.
struct BatchSender {
    let client: ParseRESTClient
    let batchSize: Int
    let concurrency: Int
    /// Request bodies stay under this many bytes (Parse Server's default limit is 20 MB).
    var maximumBodyBytes = 16 * 1024 * 1024

    /// Asked before operations whose request may have reached the server are sent again: the
    /// results of those (among the given indices) that already took effect. Creates need it;
    /// updates and relation operations can simply be sent again.
    typealias Recovery = @Sendable ([Int]) throws(PorterError) -> [Int: JSONValue]

    /// Results in operation order. Throws when the server stays unavailable or refuses whole batches.
    func send(_ operations: [BatchOperation], phase: String, recover: Recovery? = nil) throws(PorterError) -> [BatchResult] {
        let pipeline = BatchPipeline(sender: self, phase: phase)
        pipeline.submit(operations, recover: recover)
        return try pipeline.finish()
    }

    /// Sends the operations of `indices` (one batch, split further when the body is too large)
    /// until each has a result; results go to `state` at `offset + index`.
    fileprivate func sendChunk(
        _ indices: [Int], of operations: [BatchOperation], phase: String, recover: Recovery?,
        into state: SendState, offset: Int
    ) throws(PorterError) {
        try sendChunk(indices, of: operations, phase: phase, recover: recover) { index, result in state.set(offset + index, result) }
    }

    private func sendChunk(
        _ indices: [Int], of operations: [BatchOperation], phase: String, recover: Recovery?,
        record: (Int, BatchResult) -> Void
    ) throws(PorterError) {
        var pending = indices
        var attempt = 1
        while !pending.isEmpty {
            let requests = pending.map { index -> JSONValue in
                let operation = operations[index]
                return .object(
                    JSONObject([
                        "method": .string(operation.method), "path": .string(client.address.mountPath + operation.path),
                        "body": .object(operation.body),
                    ]))
            }
            let body = JSONValue.object(JSONObject(["requests": .array(requests)])).serializedBytes()
            if pending.count > 1 && body.count > maximumBodyBytes {
                let half = pending.count / 2
                try sendChunk(Array(pending[..<half]), of: operations, phase: phase, recover: recover, record: record)
                try sendChunk(Array(pending[half...]), of: operations, phase: phase, recover: recover, record: record)
                return
            }
            var retryReason = ""
            var retryAfter: Double?
            var reachedServer = false
            // Creates carrying the source's timestamps need the maintenance key to keep them.
            let maintenance = pending.contains { operations[$0].body["createdAt"] != nil }
            switch client.attemptOnceBlocking("POST", "/batch", bodyBytes: body, phase: phase, operations: pending.count, maintenance: maintenance) {
            case .success(.array(let items)) where items.count == pending.count:
                var again: [Int] = []
                for (index, item) in zip(pending, items) {
                    if let success = item["success"] {
                        record(index, .success(success))
                    } else if let code = ParseErrorCode(errorBody: item["error"]), RetryPolicy.retryableCodes.contains(code) {
                        again.append(index)
                        retryReason = "Parse error \(code)"
                    } else {
                        let code = ParseErrorCode(errorBody: item["error"]) ?? .otherCause
                        let message: String = if case .string(let m)? = item["error"]?["error"] { m } else { "no message" }
                        record(index, .failure(ParseError(code, message)))
                    }
                }
                pending = again
                reachedServer = true
            case .success:
                throw PorterError(.target, "\(client.address): /batch answered with something other than one result per request")
            case .failure(.final(.cancelled)):
                throw PorterError(.cancelled, "\(client.address): a /batch request was cancelled; the server may have acted on it")
            case .failure(.final(.unavailable(let reason))):
                throw PorterError(.target, "\(client.address): \(reason)")
            case .failure(.final(let refusal)):
                throw PorterError(.target, "\(client.address): the server refused a /batch request: \(ParseRESTErrors.describe(refusal))")
            case .failure(.retryable(let reason, let after)):
                retryReason = reason
                retryAfter = after
            }
            guard !pending.isEmpty else { return }
            guard attempt < client.retry.attempts else {
                throw PorterError(.target, "\(client.address): the server stopped answering (\(retryReason)); gave up after \(attempt) attempts")
            }
            do {
                try BlockingBridge.wait { [retry = client.retry, attempt, retryAfter] () async throws(ParseRESTFailure) in
                    try await retry.wait(after: attempt, retryAfter: retryAfter)
                }
            } catch {
                throw PorterError(.cancelled, "\(client.address): cancelled while waiting to send a /batch request again")
            }
            attempt += 1
            if !reachedServer, let recover {
                let done = try recover(pending)
                for (index, result) in done { record(index, .success(result)) }
                pending.removeAll { done[$0] != nil }
            }
        }
    }
}

/// Batches sent in the background, `concurrency` requests at a time, while the caller
/// prepares more; results come back in submission order.
///
/// The senders are threads of their own, not Dispatch or `OperationQueue` workers: each waits
/// for its answer, and on Linux Dispatch adds a worker for blocked ones only about once a
/// second, while URLSession needs a free worker to deliver any answer (with `concurrency`
/// blocked workers on a 2-core machine, each request past the first waited about a second).
final class BatchPipeline: @unchecked Sendable {
    // @unchecked: the chunks waiting and the thread count are guarded by `condition`, which the
    // compiler cannot see.
    private let sender: BatchSender
    private let phase: String
    private let state = SendState()
    /// Guards the chunks waiting and the sender threads running; broadcast when a thread ends.
    private let condition = NSCondition()
    private var waiting: [@Sendable () -> Void] = []
    private var threads = 0

    init(sender: BatchSender, phase: String) {
        self.sender = sender
        self.phase = phase
    }

    /// Queues operations, in batches of the sender's size; `recover` gets indices into `operations`.
    func submit(_ operations: [BatchOperation], recover: BatchSender.Recovery?) {
        guard !operations.isEmpty else { return }
        let offset = state.reserve(operations.count)
        let sender = sender, phase = phase, state = state
        for start in stride(from: 0, to: operations.count, by: sender.batchSize) {
            let chunk = Array(start..<min(start + sender.batchSize, operations.count))
            enqueue {
                guard !state.failed else { return }
                do throws(PorterError) {
                    try sender.sendChunk(chunk, of: operations, phase: phase, recover: recover, into: state, offset: offset)
                } catch {
                    state.fail(error)
                }
            }
        }
    }

    /// Waits for every queued batch: the results in submission order, or the first failure.
    func finish() throws(PorterError) -> [BatchResult] {
        condition.lock()
        while threads > 0 { condition.wait() }
        condition.unlock()
        if let failure = state.failure { throw failure }
        return state.results.map { $0! }
    }

    /// Queues a chunk; starts a sender thread while fewer than `concurrency` run.
    private func enqueue(_ chunk: @escaping @Sendable () -> Void) {
        condition.lock()
        defer { condition.unlock() }
        waiting.append(chunk)
        guard threads < max(1, sender.concurrency) else { return }
        threads += 1
        let thread = Thread { [self] in sendWaitingChunks() }
        thread.name = "parse-porter /batch"
        thread.start()
    }

    /// Sends chunks until none is waiting, then ends the thread.
    private func sendWaitingChunks() {
        while true {
            condition.lock()
            guard !waiting.isEmpty else {
                threads -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let chunk = waiting.removeFirst()
            condition.unlock()
            chunk()
        }
    }
}

/// Results of a send, filled from several threads.
private final class SendState: @unchecked Sendable {
    // @unchecked: every stored property is guarded by `lock`, which the compiler cannot see.
    private let lock = NSLock()
    private var storage: [BatchResult?] = []
    private var firstFailure: PorterError?

    /// Room for `count` more results; returns where they start.
    func reserve(_ count: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        storage += Array(repeating: nil, count: count)
        return storage.count - count
    }

    func set(_ index: Int, _ result: BatchResult) {
        lock.lock()
        storage[index] = result
        lock.unlock()
    }

    func fail(_ error: PorterError) {
        lock.lock()
        firstFailure = firstFailure ?? error
        lock.unlock()
    }

    var failed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return firstFailure != nil
    }

    var failure: PorterError? {
        lock.lock()
        defer { lock.unlock() }
        return firstFailure
    }

    var results: [BatchResult?] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
