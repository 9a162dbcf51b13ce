import Foundation
import PorterTestSupport
import XCTest

/// The README's "Layout" section draws the module graph as one line per module of Sources/
/// (`Module → its dependencies`, as Package.swift declares them, sorted); this test reads the
/// graph from `swift package dump-package` and fails when the two disagree.
final class ModuleGraphTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testTheReadmeGraphIsPackageSwifts() throws {
        let declared = try packageGraph()
        let drawn = try readmeGraph()
        XCTAssertFalse(declared.isEmpty)
        let undrawn = declared.filter { !drawn.contains($0) }, stale = drawn.filter { !declared.contains($0) }
        XCTAssertTrue(
            undrawn.isEmpty && stale.isEmpty,
            """
            the README's module graph differs from Package.swift.
            Not in the README: \(undrawn.joined(separator: "\n"))
            Not in Package.swift: \(stale.joined(separator: "\n"))
            """)
        XCTAssertEqual(drawn.count, Set(drawn).count, "a module is drawn twice")
    }

    /// `Module → A, B` for every library and executable target under Sources/, from the
    /// manifest as SwiftPM reads it.
    private func packageGraph() throws -> [String] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("module-graph-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (status, data) = try standardOutput(of: "swift", ["package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"])
        XCTAssertEqual(status, 0, "swift package dump-package failed")
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let targets = try XCTUnwrap(manifest["targets"] as? [[String: Any]])
        return targets.compactMap { target -> String? in
            guard let name = target["name"] as? String, let type = target["type"] as? String, ["regular", "executable"].contains(type),
                (target["path"] as? String ?? "Sources/").hasPrefix("Sources/")
            else { return nil }
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
                // {"byName": ["X", null]}, {"target": ["X", null]} or {"product": ["X", "package", …]}
                (dependency.values.first as? [Any])?.first as? String
            }
            return "\(name) → " + (dependencies.isEmpty ? "(none)" : dependencies.sorted().joined(separator: ", "))
        }
    }

    /// The lines of the first ```text block after "## Layout" that contain " → ".
    private func readmeGraph() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try XCTUnwrap(readme.range(of: "\n## Layout\n"), "README has no Layout section")
        let rest = readme[section.upperBound...]
        let start = try XCTUnwrap(rest.range(of: "```text\n"), "the Layout section has no ```text block")
        let block = rest[start.upperBound...]
        let end = try XCTUnwrap(block.range(of: "\n```"))
        return block[..<end.lowerBound].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.contains(" → ") }
    }
}
