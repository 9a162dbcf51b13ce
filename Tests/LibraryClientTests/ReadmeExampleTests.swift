import Foundation
import XCTest

/// The README chapter "Using ParsePorter as a library" shows exactly the code of this target's
/// examples (the regions between `// README-EXAMPLE: name` and `// README-EXAMPLE-END`), so an
/// edit to one without the other fails here.
final class ReadmeExampleTests: XCTestCase {
    private static let chapterTitle = "## Using ParsePorter as a library"

    func testEveryReadmeSwiftBlockIsACompiledExample() throws {
        let blocks = try readmeSwiftBlocks()
        let examples = try exampleRegions()
        XCTAssertFalse(blocks.isEmpty, "the README chapter has no swift blocks")
        for block in blocks {
            XCTAssertTrue(examples.values.contains(block), "this README block is not an example of Tests/LibraryClientTests verbatim:\n\(block)")
        }
        for (name, code) in examples.sorted(by: { $0.key < $1.key }) {
            XCTAssertTrue(blocks.contains(code), "the example \"\(name)\" is not in the README chapter verbatim")
        }
    }

    /// The ```swift blocks of the chapter, up to the next chapter (`## `).
    private func readmeSwiftBlocks() throws -> [String] {
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        let start = try XCTUnwrap(readme.range(of: "\n" + Self.chapterTitle + "\n"), "README has no chapter \(Self.chapterTitle)")
        let rest = readme[start.upperBound...]
        let chapter = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        var blocks: [String] = []
        var current: [Substring]?
        for line in chapter.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The example regions of this target's files, by name.
    private func exampleRegions() throws -> [String: String] {
        let folder = packageRoot + "/Tests/LibraryClientTests"
        var regions: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: folder + "/" + name, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            var current: (name: String, lines: [Substring])?
            for line in lines {
                if line.hasPrefix("// README-EXAMPLE: ") {
                    current = (String(line.dropFirst("// README-EXAMPLE: ".count)), [])
                } else if line == "// README-EXAMPLE-END", let region = current {
                    XCTAssertNil(regions[region.name], "two examples are named \(region.name)")
                    regions[region.name] = region.lines.joined(separator: "\n")
                    current = nil
                } else {
                    current?.lines.append(line)
                }
            }
            XCTAssertNil(current, "\(name): an example without // README-EXAMPLE-END")
        }
        return regions
    }
}
