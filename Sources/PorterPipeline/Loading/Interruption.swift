import Dispatch
import Foundation
import Synchronization

/// Ctrl-C during an import: the first SIGINT asks the running pass to stop, so the sink rolls
/// back and the target stays as it was; a second one ends the process at once.
public final class Interruption {
    private static let requested = Atomic<Bool>(false)
    private let source: DispatchSourceSignal

    /// Whether an interrupt was requested; the import checks this between records.
    public static var isRequested: Bool { requested.load(ordering: .relaxed) }

    private init(source: DispatchSourceSignal) { self.source = source }

    /// Starts catching SIGINT; call ``stop()`` when the guarded work is over.
    public static func catchInterrupts() -> Interruption {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            if requested.exchange(true, ordering: .relaxed) { _exit(130) }
        }
        source.resume()
        return Interruption(source: source)
    }

    public func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
