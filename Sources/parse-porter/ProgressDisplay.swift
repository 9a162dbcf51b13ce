import Foundation
import PorterPipeline

/// Shows import progress on stderr: a redrawn bar on a terminal, a plain line every few
/// seconds otherwise (logs, CI), nothing when quiet.
final class ProgressDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let interactive: Bool
    private var lastShown = Date()
    private var lastPhase = ""

    init() { interactive = Terminal.stderrIsTerminal }

    /// The callback to hand to the importer, or `nil` when quiet.
    static func callback(quiet: Bool) -> (@Sendable (ImportProgress) -> Void)? {
        guard !quiet else { return nil }
        let display = ProgressDisplay()
        return { display.show($0) }
    }

    func show(_ progress: ImportProgress) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let finished = progress.totalBytes > 0 && progress.bytesRead >= progress.totalBytes
        let interval = interactive ? 0.1 : 5.0
        let newPhase = interactive && progress.phase != lastPhase
        guard now.timeIntervalSince(lastShown) >= interval || (interactive && finished) || newPhase else { return }
        lastShown = now
        lastPhase = progress.phase
        let fraction = progress.totalBytes > 0 ? min(1, Double(progress.bytesRead) / Double(progress.totalBytes)) : 0
        let percent = Int(fraction * 100)
        if interactive {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
            let line = "\u{1B}[2K\r\(progress.phase.padding(toLength: 14, withPad: " ", startingAt: 0)) [\(bar)] \(percent)% \(progress.records) records"
            FileHandle.standardError.write(Data((line + (finished ? "\n" : "")).utf8))
        } else {
            Terminal.error("\(progress.phase): \(progress.records) records (\(percent)%)")
        }
    }
}
