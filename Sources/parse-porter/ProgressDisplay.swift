import Foundation
import PorterPipeline

/// Shows progress on stderr: a redrawn bar on a terminal, a plain line every few seconds
/// otherwise (logs, CI), nothing when quiet.
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
        return { progress in
            let fraction = progress.totalBytes > 0 ? Double(progress.bytesRead) / Double(progress.totalBytes) : 0
            display.show(phase: progress.phase, count: progress.records, unit: "records", fraction: fraction,
                         finished: progress.totalBytes > 0 && progress.bytesRead >= progress.totalBytes)
        }
    }

    /// The callback to hand to an export, or `nil` when quiet.
    static func exportCallback(quiet: Bool) -> ((ExportProgress) -> Void)? {
        guard !quiet else { return nil }
        let display = ProgressDisplay()
        return { progress in
            display.show(phase: progress.className, count: progress.objects, unit: "objects",
                         fraction: progress.total > 0 ? Double(progress.objects) / Double(progress.total) : 1,
                         finished: progress.objects >= progress.total)
        }
    }

    /// One phase's progress: `count` things done, `fraction` of the phase.
    func show(phase: String, count: Int, unit: String, fraction: Double, finished: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let interval = interactive ? 0.1 : 5.0
        let newPhase = interactive && phase != lastPhase
        guard now.timeIntervalSince(lastShown) >= interval || (interactive && finished) || newPhase else { return }
        lastShown = now
        lastPhase = phase
        let percent = Int(min(1, fraction) * 100)
        if interactive {
            let width = 30
            let filled = Int(min(1, fraction) * Double(width))
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
            let line = "\u{1B}[2K\r\(phase.padding(toLength: 14, withPad: " ", startingAt: 0)) [\(bar)] \(percent)% \(count) \(unit)"
            FileHandle.standardError.write(Data((line + (finished ? "\n" : "")).utf8))
        } else {
            Terminal.error("\(phase): \(count) \(unit) (\(percent)%)")
        }
    }
}
