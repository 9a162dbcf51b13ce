import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Sends `request` and returns the body and response, like `data(for:)`; cancelling the
    /// awaiting task ends the wait at once, with `CancellationError`. The request itself is left
    /// to finish (or time out) unseen: swift-corelibs-foundation cannot cancel a data task
    /// safely. Its `data(for:)` cancels from inside the task's cancellation handler, which holds
    /// the task's status lock while `cancel()` waits for the session's queue, and that queue may
    /// be resuming the same task (both then wait for ever); and a `cancel()` that races the
    /// answer crashes the process ("a task that is not in the registry").
    func dataCancellingSafely(for request: URLRequest) async throws -> (Data, URLResponse) {
        let answer = PendingAnswer()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard answer.wait(continuation) else { return continuation.resume(throwing: CancellationError()) }
                dataTask(with: request) { data, response, error in
                    if let error {
                        answer.resume(with: .failure(error))
                    } else if let data, let response {
                        answer.resume(with: .success((data, response)))
                    } else {
                        answer.resume(with: .failure(URLError(.badServerResponse)))
                    }
                }.resume()
            }
        } onCancel: {
            // Not here: this handler holds the task's status lock, which resuming it takes too.
            DispatchQueue.global().async { answer.resume(with: .failure(CancellationError())) }
        }
    }
}

/// The continuation waiting for one request's answer, resumed once: by the answer or by a
/// cancellation, whichever comes first.
private final class PendingAnswer: Sendable {
    private enum State {
        case notWaiting, waiting(CheckedContinuation<(Data, URLResponse), any Error>), resumed
    }

    private let state = Mutex(State.notWaiting)

    /// Keeps `continuation`; false when the request was cancelled before it was sent.
    func wait(_ continuation: CheckedContinuation<(Data, URLResponse), any Error>) -> Bool {
        state.withLock { state in
            guard case .notWaiting = state else { return false }
            state = .waiting(continuation)
            return true
        }
    }

    /// Resumes the waiting task with `result`, unless it was resumed already.
    func resume(with result: Result<(Data, URLResponse), any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<(Data, URLResponse), any Error>? in
            defer { state = .resumed }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        continuation?.resume(with: result)
    }
}
