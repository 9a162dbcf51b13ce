import Dispatch
import Foundation
import PorterPipeline
import Synchronization

/// Ctrl-C during one run of a command: the first SIGINT cancels the run (its target rolls back,
/// the command exits 130); a second one ends the process at once. The handler is installed for
/// the run and removed when it ends, so SIGINT is the default again afterwards.
final class CtrlC: Sendable {
    private let presses = Atomic<Int>(0)

    /// Whether Ctrl-C was pressed during the run.
    var wasPressed: Bool { presses.load(ordering: .relaxed) > 0 }

    private init() {}

    /// Runs `operation` as a task the first Ctrl-C cancels. A cancelled run's error says
    /// "interrupted" where the library says "cancelled".
    static func cancels<T: Sendable>(_ operation: sending @escaping () async throws -> T) async throws -> T {
        let task = Task(operation: operation)
        return try await guarding(
            cancel: { task.cancel() },
            {
                try await withTaskCancellationHandler {
                    try await task.value
                } onCancel: {
                    task.cancel()
                }
            })
    }

    private static func guarding<T>(cancel: @escaping @Sendable () -> Void, _ body: () async throws -> T) async throws -> T {
        let ctrlC = CtrlC()
        let source = ctrlC.install(cancel)
        defer { remove(source) }
        do {
            return try await body()
        } catch let error as PorterError {
            throw ctrlC.renamed(error)
        }
    }

    /// The library's "cancelled …" as the command says it after Ctrl-C: "interrupted …".
    private func renamed(_ error: PorterError) -> PorterError {
        guard wasPressed, let detail = error.cancelledWhile else { return error }
        return PorterError(.cancelled, "interrupted " + detail)
    }

    /// Returns once Dispatch has installed its handler, which it does on a thread of its own
    /// after `resume()`. SIGINT is not ignored meanwhile (`SIG_IGN` would lose a Ctrl-C pressed
    /// then): until the run starts it ends the process by its default action.
    private func install(_ cancel: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [self] in
            // Signals that arrive together come as one event; `data` counts them.
            if presses.add(max(1, Int(source.data)), ordering: .relaxed).newValue > 1 { _exit(PorterError.Cause.cancelled.exitCode) }
            cancel()
        }
        let registered = DispatchSemaphore(value: 0)
        source.setRegistrationHandler { registered.signal() }
        source.resume()
        registered.wait()
        return source
    }

    private static func remove(_ source: DispatchSourceSignal) {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
