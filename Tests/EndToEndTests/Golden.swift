import Foundation
import XCTest

/// Expected outputs kept as files under `Tests/EndToEndTests/Goldens/`, compared byte for byte.
///
/// With `PARSE_PORTER_RECORD_GOLDENS=1` in the environment (or when the file is missing) the
/// output is written as the new golden file and the test fails, saying so, as
/// swift-argument-parser's snapshot tests do; run once more without the variable to check.
enum Golden {
    static let folder = CommandRunner.packageRoot.appendingPathComponent("Tests/EndToEndTests/Goldens")
    static let recordVariable = "PARSE_PORTER_RECORD_GOLDENS"

    static var recording: Bool {
        let value = ProcessInfo.processInfo.environment[recordVariable] ?? ""
        return !value.isEmpty && value != "0"
    }

    /// Compares `actual` with the golden file at `path` (relative to ``folder``), or records it.
    static func assert(_ actual: String, matches path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = folder.appendingPathComponent(path)
        guard !recording, let expected = try? String(contentsOf: url, encoding: .utf8) else {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try actual.write(to: url, atomically: true, encoding: .utf8)
            XCTFail("recorded \(path); run the test again without \(recordVariable) to compare", file: file, line: line)
            return
        }
        guard actual != expected else { return }
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let first = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actualLines.count, expectedLines.count)
        let shown = { (lines: [Substring]) in first < lines.count ? String(lines[first]) : "<end>" }
        XCTFail(
            """
            \(path) differs from the output at line \(first + 1) (\(recordVariable)=1 records the output as the new golden file):
              golden: \(shown(expectedLines))
              output: \(shown(actualLines))
            """, file: file, line: line)
    }

    /// `text` with what changes from run to run replaced: `folders` (longest first) by their
    /// placeholders, and durations (`"elapsedSeconds": 0.12`, JUnit's `time="0.12"`) by `<seconds>`.
    static func normalized(_ text: String, folders: [(path: String, placeholder: String)]) -> String {
        var text = text
        for (path, placeholder) in folders.sorted(by: { $0.path.count > $1.path.count }) {
            text = text.replacingOccurrences(of: path, with: placeholder)
        }
        for pattern in [#"("elapsedSeconds"\s*:\s*)[0-9.eE+-]+"#, #"(\btime=")[0-9.]+"#] {
            let expression = try! NSRegularExpression(pattern: pattern)
            text = expression.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "$1<seconds>")
        }
        return text
    }
}
