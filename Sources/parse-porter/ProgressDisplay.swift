import Foundation
import PorterPipeline

/// What one progress line shows: a phase, how far it is, and what was counted.
protocol ProgressReport: Sendable {
    var phase: String { get }
    /// 0…1; 0 when the total is not known.
    var fraction: Double { get }
    var finished: Bool { get }
    /// `43 records`, `500 of 1200 objects`.
    var counted: String { get }
}

extension ImportProgress: ProgressReport {
    var fraction: Double { totalBytes > 0 ? min(1, Double(bytesRead) / Double(totalBytes)) : 0 }
    var finished: Bool { totalBytes > 0 && bytesRead >= totalBytes }
    var counted: String { "\(records) records" }
}

extension ClassProgress: ProgressReport {
    var phase: String { className }
    var fraction: Double { total > 0 ? min(1, Double(objects) / Double(total)) : 1 }
    var finished: Bool { objects >= total }
    var counted: String { "\(objects) of \(total) objects" }
}

/// Shows progress on stderr: a redrawn bar on a terminal, a plain line every few seconds
/// otherwise (logs, CI), nothing when quiet.
final class ProgressDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let interactive: Bool
    private var lastShown = Date()
    private var lastPhase = ""

    init() { interactive = Terminal.stderrIsTerminal }

    /// The callback to hand to an import, export or pull, or `nil` when quiet.
    static func callback<Progress: ProgressReport>(quiet: Bool) -> (@Sendable (Progress) -> Void)? {
        guard !quiet else { return nil }
        let display = ProgressDisplay()
        return { display.show($0) }
    }

    func show(_ progress: some ProgressReport) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        let interval = interactive ? 0.1 : 5.0
        let newPhase = interactive && progress.phase != lastPhase
        guard now.timeIntervalSince(lastShown) >= interval || (interactive && progress.finished) || newPhase else { return }
        lastShown = now
        lastPhase = progress.phase
        let percent = Int(progress.fraction * 100)
        if interactive {
            let width = 30
            let filled = Int(progress.fraction * Double(width))
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
            let line = "\u{1B}[2K\r\(progress.phase.padding(toLength: 14, withPad: " ", startingAt: 0)) [\(bar)] \(percent)% \(progress.counted)"
            FileHandle.standardError.write(Data((line + (progress.finished ? "\n" : "")).utf8))
        } else {
            Terminal.error("\(progress.phase): \(progress.counted) (\(percent)%)")
        }
    }
}
