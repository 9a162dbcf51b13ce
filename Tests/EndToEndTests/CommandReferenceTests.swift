import Foundation
import XCTest

/// `Docs/Commands.md` is what `scripts/command-reference` writes from the `--help` goldens that
/// ``GoldenTests`` checks against the built command, so the reference cannot drift from `--help`.
final class CommandReferenceTests: XCTestCase {
    func testTheCommandReferenceIsGeneratedFromTheHelpGoldens() throws {
        let check = try runScript(["--check"])
        XCTAssertEqual(
            check.status, 0,
            "Docs/Commands.md is not what scripts/command-reference writes from Tests/EndToEndTests/Goldens/help/: run scripts/command-reference (\(check.stderr))"
        )
        // What it compares holds every golden help text whole.
        let reference = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("Docs/Commands.md"), encoding: .utf8)
        let goldens = try FileManager.default.contentsOfDirectory(atPath: Golden.folder.appendingPathComponent("help").path)
        XCTAssertGreaterThanOrEqual(goldens.count, 20)
        for name in goldens {
            var help = try String(contentsOf: Golden.folder.appendingPathComponent("help/\(name)"), encoding: .utf8)
            while help.hasSuffix("\n") { help.removeLast() }
            XCTAssertTrue(reference.contains("```text\n" + help + "\n```\n"), "Docs/Commands.md lacks \(name)")
        }
    }

    /// The script notices a reference that differs, and says what to run.
    func testTheCheckFailsOnAnEditedReference() throws {
        let folder = try temporaryFolder("command-reference")
        for path in ["scripts/command-reference", "scripts/command-reference-intro.md", "Tests/EndToEndTests/Goldens/help", "Docs/Commands.md"] {
            let target = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: CommandRunner.packageRoot.appendingPathComponent(path), to: target)
        }
        let reference = folder.appendingPathComponent("Docs/Commands.md")
        let text = try String(contentsOf: reference, encoding: .utf8)
        try text.replacingOccurrences(of: "OVERVIEW: Validate", with: "OVERVIEW: Check").write(to: reference, atomically: true, encoding: .utf8)
        let check = try runScript(["--check"], root: folder)
        XCTAssertEqual(check.status, 1)
        XCTAssertTrue(check.stderr.contains("run scripts/command-reference"), check.stderr)
        XCTAssertEqual(try runScript([], root: folder).status, 0)
        XCTAssertEqual(try String(contentsOf: reference, encoding: .utf8), text, "the script writes the reference back as it was")
    }

    private func runScript(_ arguments: [String], root: URL = CommandRunner.packageRoot) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/command-reference").path] + arguments
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
