import Foundation
import XCTest

/// Ctrl-C cancels the run under way; a second Ctrl-C ends the process at once.
final class CtrlCTests: XCTestCase {
    /// stdin held open by its writer: the first Ctrl-C only asks the copy to stop (it waits for
    /// the next chunk), the second ends the process, exit 130, with nothing written.
    func testASecondCtrlCEndsAProcessThatIsStillWaiting() throws {
        let (process, input, _, target) = try startImportFromStdin()
        kill(process.processIdentifier, SIGINT)
        usleep(500_000)
        XCTAssertTrue(process.isRunning, "the copy of stdin waits for its next chunk after the first Ctrl-C")
        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        XCTAssertFalse(process.isRunning, "the second Ctrl-C ended the process")
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
    }

    /// One Ctrl-C: the run stops and says so in the command's words; the stdin copy it was
    /// making ends when its writer closes it.
    func testCtrlCWhileStdinIsReadSaysInterrupted() throws {
        let (process, input, errors, target) = try startImportFromStdin()
        kill(process.processIdentifier, SIGINT)
        usleep(200_000)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(message, "interrupted while reading stdin; nothing was written\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
    }

    /// A Ctrl-C is never lost, however early: sent the moment the import first does anything
    /// with SIGINT (ignores or catches it), the run stops with 130 once stdin ends. Ignoring
    /// SIGINT until Dispatch had installed its handler lost the presses of that window, and the
    /// import went on with what stdin held.
    func testACtrlCAsSoonAsTheImportHandlesSIGINTEndsIt() throws {
        for run in 0..<10 {
            let target = try temporaryFolder().appendingPathComponent("never-\(run).sqlite")
            let input = Pipe()
            let process = Process()
            process.executableURL = CommandRunner.binary
            process.arguments = ["import", "-", "--class", "Item", "--format", "csv", "--target", target.path, "-q"]
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let status = "/proc/\(process.processIdentifier)/status"
            func handlesSIGINT() -> Bool {
                let lines = ((try? String(contentsOfFile: status, encoding: .utf8)) ?? "").split(separator: "\n")
                return lines.contains { line in
                    guard line.hasPrefix("SigIgn:") || line.hasPrefix("SigCgt:"),
                        let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16)
                    else { return false }
                    return mask & (1 << (SIGINT - 1)) != 0
                }
            }
            while process.isRunning && !handlesSIGINT() { usleep(100) }
            kill(process.processIdentifier, SIGINT)
            usleep(500_000)  // for the handler to run: a stdin ending before it is read to its end
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit, "run \(run)")
            XCTAssertEqual(process.terminationStatus, 130, "run \(run): the Ctrl-C was lost")
            XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "run \(run)")
        }
    }

    /// `import -` into a new mirror, started with a first chunk of CSV on its stdin, which stays
    /// open; returned once its Ctrl-C handler is in place and its stdin thread waits in a read.
    private func startImportFromStdin() throws -> (process: Process, input: Pipe, errors: Pipe, target: URL) {
        let target = try temporaryFolder().appendingPathComponent("never.sqlite")
        let input = Pipe(), errors = Pipe()
        let process = Process()
        process.executableURL = CommandRunner.binary
        process.arguments = ["import", "-", "--class", "Item", "--format", "csv", "--target", target.path, "-q"]
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data("name,price\npen,2\n".utf8))
        XCTAssertTrue(CommandRunner.waitUntilCatching(SIGINT, process), "the import never read its stdin")
        let deadline = Date().addingTimeInterval(60)
        while !readsStdin(process) {
            guard process.isRunning, Date() < deadline else { XCTFail("the import never copied its stdin"); break }
            usleep(5_000)
        }
        return (process, input, errors, target)
    }

    /// Whether a thread of `process` waits in a read of a pipe (Linux's
    /// `/proc/<pid>/task/<tid>/wchan`): stdin is the only pipe the import reads.
    private func readsStdin(_ process: Process) -> Bool {
        let tasks = "/proc/\(process.processIdentifier)/task"
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
        return threads.contains { thread in
            ((try? String(contentsOfFile: "\(tasks)/\(thread)/wchan", encoding: .utf8)) ?? "").contains("pipe_read")
        }
    }
}
