import Foundation
import PorterPipeline
import XCTest

/// The habits the command shares with other tools: `--version`, and Parse Server's own
/// environment variables.
final class CommandConventionsTests: XCTestCase {
    func testVersionPrintsTheReleaseVersionOnly() throws {
        let result = try CommandRunner.run(["--version"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, PorterRelease.version + "\n")
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(try CommandRunner.run(["--help"]).stdout.contains("--version"), "the root help names --version")
    }
}
