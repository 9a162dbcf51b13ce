import Foundation
import XCTest

/// The shell completion scripts and the man page swift-argument-parser generates from the
/// command tree (Docs/Commands.md, "Man page and shell completions").
final class ManualAndCompletionTests: XCTestCase {
    private static let subcommands = ["import", "validate", "plan", "export", "pull", "serve", "migrate", "schema", "init"]

    func testCompletionScriptsNameTheSubcommands() throws {
        let bash = try CommandRunner.run(["--generate-completion-script", "bash"])
        XCTAssertEqual(bash.status, 0, bash.stderr)
        XCTAssertTrue(bash.stdout.contains("complete -o filenames -F _parse-porter parse-porter"), "a bash completion function for parse-porter")
        for name in Self.subcommands + ["status", "baseline", "repair", "check", "infer"] {
            XCTAssertTrue(bash.stdout.contains(name), "the bash script offers \(name)")
        }
        XCTAssertTrue(bash.stdout.contains("--target") && bash.stdout.contains("--project"), "options complete too")
        for shell in ["zsh", "fish"] {
            let script = try CommandRunner.run(["--generate-completion-script", shell])
            XCTAssertEqual(script.status, 0, "\(shell): \(script.stderr)")
            XCTAssertTrue(Self.subcommands.allSatisfy(script.stdout.contains), "\(shell) script names every subcommand")
        }
    }

    /// `generate-manual`, the tool behind `swift package plugin generate-manual`, built beside
    /// `parse-porter` by `swift build --product generate-manual` (scripts/test runs it), writes one page per command from the same tree.
    func testGenerateManualWritesAPagePerCommand() throws {
        let tool = CommandRunner.binary.deletingLastPathComponent().appendingPathComponent("generate-manual")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            throw XCTSkip("generate-manual is not built beside parse-porter: `swift build --product generate-manual` builds it (scripts/test does)")
        }
        let directory = try temporaryFolder()
        let generator = Process()
        generator.executableURL = tool
        generator.arguments = [CommandRunner.binary.path, "--multi-page", "--date", "2026-01-01", "--output-directory", directory.path]
        generator.standardOutput = FileHandle.nullDevice
        try generator.run()
        generator.waitUntilExit()
        XCTAssertEqual(generator.terminationStatus, 0)
        let pages = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        for page in ["parse-porter.1", "parse-porter.import.1", "parse-porter.migrate.up.1", "parse-porter.schema.check.1"] {
            XCTAssertTrue(pages.contains(page), "\(page) in \(pages.sorted())")
        }
        let root = try String(contentsOf: directory.appendingPathComponent("parse-porter.1"), encoding: .utf8)
        XCTAssertTrue(root.contains(".Nm parse-porter\n"), root)
        let importPage = try String(contentsOf: directory.appendingPathComponent("parse-porter.import.1"), encoding: .utf8)
        XCTAssertTrue(importPage.contains("target") && importPage.contains("parse-porter.yml"), "the import page documents --target")
    }
}
