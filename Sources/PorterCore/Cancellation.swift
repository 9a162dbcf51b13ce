import Foundation
import Synchronization

/// The cancellation of one run (an import, a validation, an export, a pull): ``cancel()`` asks
/// the run to stop at its next check, between records or pages. The run then rolls the target
/// back and throws a ``PorterError`` caused ``PorterError/Cause/cancelled`` whose message
/// begins with "cancelled" (the rest is its ``PorterError/cancelledWhile``). Each run owns its
/// token, so cancelling one run leaves later ones alone.
///
/// The async entry points (``Importer/run(into:progress:)``, ``Exporter/run(to:progress:)``, …)
/// make one per call and cancel it when their task is cancelled.
package final class Cancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)

    package init() {}

    /// Asks the run to stop; safe from any thread, any number of times.
    package func cancel() { cancelled.store(true, ordering: .relaxed) }

    package var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Throws the run's error once cancelled: `activity` is what was under way ("reading
    /// items.csv line 2048"), `outcome` what became of the target ("the target was left as it was").
    package func check(_ activity: @autoclosure () -> String, _ outcome: @autoclosure () -> String) throws(PorterError) {
        guard isCancelled else { return }
        throw PorterError(cancelledWhile: "while \(activity()); \(outcome())")
    }

    /// Runs `work` on a thread of its own with a new token, which is cancelled when the calling
    /// task is. Not on Swift's cooperative pool: sinks and sources block their thread (on SQLite,
    /// on network replies), and a pool of one thread per core must not wait on them.
    package static func onThread<T: Sendable>(named name: String, _ work: @escaping @Sendable (Cancellation) throws(PorterError) -> T)
        async throws(PorterError) -> T
    {
        let token = Cancellation()
        let result: Result<T, PorterError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    continuation.resume(returning: Result { () throws(PorterError) -> T in try work(token) })
                }
                thread.name = name
                thread.start()
            }
        } onCancel: {
            token.cancel()
        }
        return try result.get()
    }
}

/// A value the calling task lends to a run's thread (``Cancellation/onThread(named:_:)``) for
/// the length of an async call: a sink, an object source.
///
/// `@unchecked Sendable`, safe because the lender is suspended until the thread has finished,
/// and Swift's region isolation keeps a non-`Sendable` argument of a `nonisolated` async
/// function out of every other concurrent context for as long as the call lasts (passing one
/// that an actor or another task still uses is a compile error at the call site). So the thread
/// is the value's only user while it holds it.
package struct Lent<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
