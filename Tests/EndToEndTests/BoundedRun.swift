import Foundation
import XCTest

extension CommandRunner {
    /// A run of `parse-porter` that was given a deadline: its result (`nil` when it was killed at
    /// the deadline), how long it took and its peak resident memory.
    struct BoundedResult {
        let result: Result?
        let seconds: Double
        /// The process's peak resident set (`VmHWM`), in bytes, as last read before it ended.
        let peakBytes: Int
    }

    /// Runs `parse-porter` as ``run(_:currentDirectory:environment:standardInput:)`` does, but
    /// kills it once `deadline` seconds have passed, and follows its peak memory meanwhile: how
    /// a test asserts that a hostile input costs bounded time and memory.
    static func run(
        _ arguments: [String], currentDirectory: URL? = nil, environment: [String: String] = [:],
        deadline: Double
    ) throws -> BoundedResult {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let started = ContinuousClock.now
        try process.run()
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let readers = [
            Thread { outData = out.fileHandleForReading.readDataToEndOfFile() },
            Thread { errData = err.fileHandleForReading.readDataToEndOfFile() },
        ]
        for reader in readers { reader.start() }
        var peak = 0, killed = false
        while process.isRunning {
            peak = max(peak, peakResidentBytes(of: process.processIdentifier) ?? 0)
            if ContinuousClock.now - started > .milliseconds(Int64(deadline * 1000)) {
                kill(process.processIdentifier, SIGKILL)
                killed = true
                break
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - started
        while readers.contains(where: { !$0.isFinished }) { usleep(1000) }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let result =
            killed
            ? nil
            : Result(
                status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                stderr: String(decoding: errData, as: UTF8.self))
        return BoundedResult(result: result, seconds: seconds, peakBytes: peak)
    }

    /// `VmHWM` of a running process, in bytes; `nil` once it has ended.
    static func peakResidentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }
}
