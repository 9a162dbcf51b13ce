import Foundation
import XCTest

/// Progress on stderr: a bar on a terminal; a plain line every 5 s in a pipe, so none for a short import.
final class ProgressTests: XCTestCase {
    func testBarOnATerminal() throws {
        let scratch = try temporaryFolder()
        let target = scratch.appendingPathComponent("library.sqlite")
        let shown = try Self.underTerminal([
            CommandRunner.binary.path, "import", CommandRunner.fixtures.appendingPathComponent("library").path,
            "--to", target.path,
        ])
        XCTAssertTrue(shown.contains("[==============================] 100% 43 records"), shown)
        XCTAssertTrue(shown.contains("Genre"), shown)
    }

    /// Runs a command under a pseudo-terminal (`script`) and returns what it showed; it must succeed.
    private static func underTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", arguments.map { "'\($0)'" }.joined(separator: " "), "/dev/null"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let shown = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, shown)
        return shown
    }

    /// A pull shows each class as "n of total objects".
    func testPullBarOnATerminal() throws {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["-q"]).status, 0)
        let target = server.file.deletingLastPathComponent().appendingPathComponent("pulled.sqlite")
        let shown = try Self.underTerminal([CommandRunner.binary.path, "pull", server.url, "--to", target.path], environment: ServedMirror.environment)
        XCTAssertTrue(shown.contains("Book           [==============================] 100% 43 of 43 objects"), shown)
        XCTAssertTrue(shown.contains("Genre"), shown)
    }

    func testNoProgressInAPipeForAShortImport() throws {
        let scratch = try temporaryFolder()
        let piped = try CommandRunner.run([
            "import", CommandRunner.fixtures.appendingPathComponent("library").path,
            "--to", scratch.appendingPathComponent("a.sqlite").path,
        ])
        XCTAssertEqual(piped.status, 0)
        XCTAssertEqual(piped.stderr, "", "a short import prints no progress lines to a pipe")
        XCTAssertTrue(piped.stdout.contains("imported into"), piped.stdout)
    }
}
