import Dispatch
import Synchronization

/// Runs async work to its end from synchronous code, blocking the calling thread meanwhile.
///
/// Only for callers on dedicated threads of their own: the import pass (a Parse Server's sink
/// and batch sender) and the readers of export and pull (a Parse Server's object source).
/// Never call it from a task or a Dispatch worker: the work it waits for needs a thread of
/// Swift's cooperative pool, and a pool thread blocked here may be the one it needs.
///
/// The work runs in a task of its own, which the caller's cancellation does not reach.
package enum BlockingBridge {
    package static func wait<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () async throws(Failure) -> Value
    ) throws(Failure) -> Value {
        let outcome = Mutex<Result<Value, Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<Value, Failure>
            do throws(Failure) { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}
