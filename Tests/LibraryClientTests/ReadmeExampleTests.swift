import Foundation
import XCTest

/// Docs/Library.md ("Using ParsePorter as a library") shows exactly the code of this target's
/// examples (the regions between `// README-EXAMPLE: name` and `// README-EXAMPLE-END`, markers
/// named when the chapter was in the README), so an edit to one without the other fails here.
final class ReadmeExampleTests: XCTestCase {
    func testEverySwiftBlockOfTheGuideIsACompiledExample() throws {
        let blocks = try guideSwiftBlocks()
        let examples = try exampleRegions()
        XCTAssertFalse(blocks.isEmpty, "Docs/Library.md has no swift blocks")
        for block in blocks {
            XCTAssertTrue(examples.values.contains(block), "this block of Docs/Library.md is not an example of Tests/LibraryClientTests verbatim:\n\(block)")
        }
        for (name, code) in examples.sorted(by: { $0.key < $1.key }) {
            XCTAssertTrue(blocks.contains(code), "the example \"\(name)\" is not in Docs/Library.md verbatim")
        }
    }

    /// The ```swift blocks of Docs/Library.md.
    private func guideSwiftBlocks() throws -> [String] {
        let chapter = try String(contentsOfFile: packageRoot + "/Docs/Library.md", encoding: .utf8)
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
