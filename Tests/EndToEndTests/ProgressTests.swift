import Foundation
import XCTest

/// Progress on stderr: a bar on a terminal; a plain line every 5 s in a pipe, so none for a short import.
final class ProgressTests: XCTestCase {
    func testBarOnATerminal() throws {
        let scratch = try CommandRunner.temporaryDirectory(self)
        let target = scratch.appendingPathComponent("library.sqlite")
        // `script` runs the command under a pseudo-terminal and copies what it shows to stdout.
        let command = [CommandRunner.binary.path, "import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", target.path]
            .map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let shown = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, shown)
        XCTAssertTrue(shown.contains("[==============================] 100% 43 records"), shown)
        XCTAssertTrue(shown.contains("Genre"), shown)
    }

    func testNoProgressInAPipeForAShortImport() throws {
        let scratch = try CommandRunner.temporaryDirectory(self)
        let piped = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path,
                                           "--to", scratch.appendingPathComponent("a.sqlite").path])
        XCTAssertEqual(piped.status, 0)
        XCTAssertEqual(piped.stderr, "", "a short import prints no progress lines to a pipe")
        XCTAssertTrue(piped.stdout.contains("imported into"), piped.stdout)
    }
}
