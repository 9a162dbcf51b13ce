import Foundation
import XCTest

/// Every fact the repository cites lives in it: no file cites a design or reference document
/// kept outside the repository, no section number stands without the document it belongs to,
/// every `….md#anchor` names a file of the repository and one of its headings, and every
/// relative link of the documents (README.md, Docs/) leads to a file and heading that exist,
/// and every repository path they name in code, or the scripts use, exists.
final class DocumentCitationTests: XCTestCase {
    func testNoFileCitesADocumentOutsideTheRepository() throws {
        var findings: [String] = []
        for file in try repositoryTextFiles() where file.path != #filePath {
            findings += CitationCheck.outsideCitations(in: file.text).map { "\(file.relativePath):\($0.line): \($0.text)" }
        }
        XCTAssertEqual(findings, [], "cite the repository's own Docs/ instead:\n" + findings.joined(separator: "\n"))
    }

    func testEveryDocumentAnchorNamesAHeading() throws {
        let files = try repositoryTextFiles()
        var findings: [String] = []
        for file in files where file.path != #filePath {
            let folder = (file.relativePath as NSString).deletingLastPathComponent
            for citation in CitationCheck.anchorCitations(in: file.text, isMarkdown: file.relativePath.hasSuffix(".md")) {
                let document = citation.document.isEmpty ? file.relativePath : citation.document
                let candidates = [CitationCheck.normalized((folder as NSString).appendingPathComponent(document)), document]
                guard let target = candidates.lazy.compactMap({ path in files.first { $0.relativePath == path } }).first else {
                    findings.append("\(file.relativePath):\(citation.line): \(citation.document) is not in the repository")
                    continue
                }
                if !CitationCheck.anchors(of: target.text).contains(citation.anchor) {
                    findings.append("\(file.relativePath):\(citation.line): \(target.relativePath) has no heading #\(citation.anchor)")
                }
            }
        }
        XCTAssertEqual(findings, [], findings.joined(separator: "\n"))
    }

    func testEveryRelativeLinkOfTheDocumentsResolves() throws {
        let files = try repositoryTextFiles()
        let root = URL(fileURLWithPath: packageRoot).standardizedFileURL
        let documents = files.filter { $0.relativePath == "README.md" || ($0.relativePath.hasPrefix("Docs/") && $0.relativePath.hasSuffix(".md")) }
        XCTAssertGreaterThan(documents.count, 10, "the walk found the documents: \(documents.map(\.relativePath))")
        var findings: [String] = []
        var checked = 0
        for document in documents {
            let folder = root.appendingPathComponent(document.relativePath).deletingLastPathComponent()
            for link in CitationCheck.relativeLinks(in: document.text) {
                checked += 1
                let target =
                    link.path.isEmpty ? root.appendingPathComponent(document.relativePath) : folder.appendingPathComponent(link.path).standardizedFileURL
                let relative = target.path.hasPrefix(root.path + "/") ? String(target.path.dropFirst(root.path.count + 1)) : target.path
                guard target.path.hasPrefix(root.path + "/"), FileManager.default.fileExists(atPath: target.path) else {
                    findings.append("\(document.relativePath):\(link.line): \(link.path) is not in the repository")
                    continue
                }
                guard let anchor = link.anchor else { continue }
                guard let text = files.first(where: { $0.relativePath == relative })?.text, relative.hasSuffix(".md") else {
                    findings.append("\(document.relativePath):\(link.line): #\(anchor) of \(relative), which is no Markdown file")
                    continue
                }
                if !CitationCheck.anchors(of: text).contains(anchor) {
                    findings.append("\(document.relativePath):\(link.line): \(relative) has no heading #\(anchor)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 50, "the documents' links were found")
        XCTAssertEqual(findings, [], findings.joined(separator: "\n"))
    }

    /// Every repository path the documents name in code (`Sources/...`, `scripts/...`) and every
    /// one the scripts use exists: a moved file leaves no stale path behind.
    func testEveryRepositoryPathNamedExists() throws {
        let root = URL(fileURLWithPath: packageRoot).standardizedFileURL.path
        var findings: [String] = []
        var checked = 0
        for file in try repositoryTextFiles() where file.path != #filePath {
            let name = file.relativePath
            let isDocument = ["README.md", "CONTRIBUTING.md", "Fixtures/README.md"].contains(name) || (name.hasPrefix("Docs/") && name.hasSuffix(".md"))
            let isScript = (name.hasPrefix("scripts/") && !name.hasSuffix(".md")) || (name.hasPrefix("Benchmarks/") && name.hasSuffix(".sh"))
            guard isDocument || isScript else { continue }
            for named in CitationCheck.repositoryPaths(in: file.text, codeSpansOnly: isDocument) {
                checked += 1
                if !FileManager.default.fileExists(atPath: root + "/" + named.path) {
                    findings.append("\(name):\(named.line): \(named.path) is not in the repository")
                }
            }
        }
        XCTAssertGreaterThan(checked, 100, "the paths were found")
        XCTAssertEqual(findings, [], findings.joined(separator: "\n"))
    }

    /// The checks find what they look for, and leave alone what they should.
    func testTheChecksTellCitationsApart() {
        let outside =
            "// As " + "DESIGN" + " §4 says\n/// (" + "PARSE_" + "REST.md §5)\nlet key = env[\"PARSE_REST_API_KEY\"]\n/// paged (§6)\n// FIPS 180-4 §5.1.1\n"
        XCTAssertEqual(CitationCheck.outsideCitations(in: outside).map(\.line), [1, 2, 4])

        let text = "see Docs/ParseServer.md#paging and [here](#set-up), https://example.com/README.md#x\n"
        let citations = CitationCheck.anchorCitations(in: text, isMarkdown: true)
        XCTAssertEqual(citations.map(\.document), ["Docs/ParseServer.md", ""])
        XCTAssertEqual(citations.map(\.anchor), ["paging", "set-up"])
        XCTAssertEqual(CitationCheck.normalized("Docs/../README.md"), "README.md")
        XCTAssertEqual(CitationCheck.normalized("./Docs/./a/../Library.md"), "Docs/Library.md")

        let links =
            "[a](Docs/Tutorial.md) [b](../README.md#set-up) [c](#layout) [d](https://x.org/a.md)\n```\n[e](not-a-link.md)\n```\n`[f](code.md)` ![g](Docs/img.png \"t\")\n"
        XCTAssertEqual(
            CitationCheck.relativeLinks(in: links).map { "\($0.line):\($0.path)#\($0.anchor ?? "")" },
            ["1:Docs/Tutorial.md#", "1:../README.md#set-up", "1:#layout", "5:Docs/img.png#"])

        let paths =
            "see `Sources/PorterCore/X.swift`, `Fixtures/bad/zip-*` and Sources/Y\n`scripts/test Benchmarks/out/run/`\nInitPropertyTests/testA https://x.org/Sources/Z scripts/t/NAME.json\n"
        XCTAssertEqual(
            CitationCheck.repositoryPaths(in: paths, codeSpansOnly: true).map { "\($0.line):\($0.path)" }, ["1:Sources/PorterCore/X.swift", "2:scripts/test"])
        XCTAssertEqual(
            CitationCheck.repositoryPaths(in: paths, codeSpansOnly: false).map { "\($0.line):\($0.path)" },
            ["1:Sources/PorterCore/X.swift", "1:Sources/Y", "2:scripts/test"])

        let headings = "# ParsePorter\n## Set-up\n```sh\n# not a heading\n```\n### `--target`: one name\n## Set-up\n## Über, 50 & more\n"
        XCTAssertEqual(CitationCheck.anchors(of: headings), ["parseporter", "set-up", "--target-one-name", "set-up-1", "über-50--more"])
    }

    /// The repository's text files: everything under the package root but hidden folders
    /// (`.git`, `.build*`) and files that are not UTF-8. Both checks skip this file, whose
    /// examples are what they look for.
    private func repositoryTextFiles() throws -> [(path: String, relativePath: String, text: String)] {
        let root = URL(fileURLWithPath: packageRoot).standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { throw CocoaError(.fileReadNoSuchFile) }
        var files: [(path: String, relativePath: String, text: String)] = []
        while let relative = walker.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if name.hasPrefix(".") {
                if walker.fileAttributes?[.type] as? FileAttributeType == .typeDirectory { walker.skipDescendants() }
                continue
            }
            guard walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            let path = root + "/" + relative
            guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { continue }
            files.append((path, relative, text))
        }
        XCTAssertTrue(files.contains { $0.relativePath == "README.md" }, "the walk missed README.md")
        return files
    }
}

/// What ``DocumentCitationTests`` looks for in a file's text.
enum CitationCheck {
    /// Names of documents kept outside the repository, and the way out of it.
    private static let outsidePatterns = [
        #"\bDESIGN\b"#, #"\bPARSE_REST\b"#, #"\bANCHORS\.md\b"#, #"\bSTYLE\.md\b"#, #"\bREAL_PARSE_SERVER\.md\b"#,
        #"\bSWIFT_DEPS\.md\b"#, #"\.\./shared/"#, #"/work/shared\b"#,
    ].map { try! NSRegularExpression(pattern: $0) }
    /// A section number after the name of the public standard it is a section of.
    private static let namedSection = try! NSRegularExpression(pattern: #"(FIPS \d+-\d+|RFC \d+) §"#)
    /// `path/name.md#anchor` (not inside a URL), or `](#anchor)` in Markdown.
    private static let documentAnchor = try! NSRegularExpression(pattern: #"(?<![\w/.:-])((?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)"#)
    private static let localAnchor = try! NSRegularExpression(pattern: #"\]\(#([\w-]+)\)"#)
    /// A Markdown link's target: `](target)` or `](target "title")`.
    private static let markdownLink = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#)

    /// The lines (1-based) that cite a document outside the repository, or a bare `§n`.
    static func outsideCitations(in text: String) -> [(line: Int, text: String)] {
        var found: [(line: Int, text: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            let range = NSRange(line.startIndex..., in: line)
            let outside = outsidePatterns.contains { $0.firstMatch(in: line, range: range) != nil }
            let bareSection = line.filter { $0 == "§" }.count > namedSection.numberOfMatches(in: line, range: range)
            if outside || bareSection { found.append((index + 1, line.trimmingCharacters(in: .whitespaces))) }
        }
        return found
    }

    /// The `….md#anchor` citations of a text; `document` is empty for a Markdown file's `](#anchor)`.
    static func anchorCitations(in text: String, isMarkdown: Bool) -> [(line: Int, document: String, anchor: String)] {
        var found: [(line: Int, document: String, anchor: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            let range = NSRange(line.startIndex..., in: line)
            for match in documentAnchor.matches(in: line, range: range) {
                found.append((index + 1, String(line[Range(match.range(at: 1), in: line)!]), String(line[Range(match.range(at: 2), in: line)!])))
            }
            guard isMarkdown else { continue }
            for match in localAnchor.matches(in: line, range: range) {
                found.append((index + 1, "", String(line[Range(match.range(at: 1), in: line)!])))
            }
        }
        return found
    }

    /// A path inside the repository, not inside a URL or another word; `*`, `<…>` and `$` mark
    /// a pattern, not a path.
    private static let repositoryPath = try! NSRegularExpression(pattern: #"(?<![\w/.:$-])(?:Sources|Tests|Fixtures|Benchmarks|scripts|Docs)/[\w.+/*<>$-]*"#)
    /// What the scripts make: named, never committed.
    private static let madePaths = ["Benchmarks/out", "Fixtures/library/library.sqlite", "Fixtures/library/rejects"]
    /// The placeholders of the scripts' usage texts (`real-datasets-truth/NAME.json`).
    private static let placeholders: Set<Substring> = ["NAME", "BOOKS", "DIR", "FILE"]

    /// The repository paths a text names (1-based lines), in inline code only when
    /// `codeSpansOnly` (a Markdown document), patterns and what the scripts make left out.
    static func repositoryPaths(in text: String, codeSpansOnly: Bool) -> [(line: Int, path: String)] {
        var found: [(line: Int, path: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let pieces =
                codeSpansOnly
                ? line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
                : [String(line)]
            for piece in pieces {
                for match in repositoryPath.matches(in: piece, range: NSRange(piece.startIndex..., in: piece)) {
                    var path = Substring(piece[Range(match.range, in: piece)!])
                    while let last = path.last, ".,/-".contains(last) { path.removeLast() }
                    let stems = path.split(separator: "/").map { $0.split(separator: ".").first ?? $0 }
                    guard !path.contains(where: { "*<>$".contains($0) }), !madePaths.contains(where: { path.hasPrefix($0) }),
                        !stems.contains(where: placeholders.contains)
                    else { continue }
                    found.append((index + 1, String(path)))
                }
            }
        }
        return found
    }

    /// A relative path with its `..` and `.` components resolved: `Docs/../README.md` is `README.md`.
    static func normalized(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/") where component != "." {
            if component == "..", let last = components.last, last != ".." { components.removeLast() } else { components.append(component) }
        }
        return components.joined(separator: "/")
    }

    /// `[text](target)` links of a Markdown text that lead inside the repository (no scheme), with
    /// the line (1-based), the path (empty for `#anchor` alone) and the anchor; links in fenced
    /// code and in inline code are left out.
    static func relativeLinks(in markdown: String) -> [(line: Int, path: String, anchor: String?)] {
        var found: [(line: Int, path: String, anchor: String?)] = []
        var inFence = false
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence else { continue }
            let prose = String(line).replacingOccurrences(of: #"`[^`]*`"#, with: "", options: .regularExpression)
            let range = NSRange(prose.startIndex..., in: prose)
            for match in markdownLink.matches(in: prose, range: range) {
                let target = String(prose[Range(match.range(at: 1), in: prose)!])
                guard !target.contains(":") else { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                found.append((index + 1, String(parts[0]), parts.count > 1 ? String(parts[1]) : nil))
            }
        }
        return found
    }

    /// The anchors GitHub gives a Markdown file's headings: lower case, punctuation but `-` and
    /// `_` dropped, spaces as `-`, a repeated one numbered (`-1`, `-2`); fenced code left out.
    static func anchors(of markdown: String) -> [String] {
        var anchors: [String] = []
        var seen: [String: Int] = [:]
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, let hashes = line.firstIndex(where: { $0 != "#" }), hashes != line.startIndex,
                line.distance(from: line.startIndex, to: hashes) <= 6, line[hashes] == " "
            else { continue }
            let title = line[hashes...].trimmingCharacters(in: .whitespaces).lowercased()
            let slug = String(
                title.compactMap { character -> Character? in
                    if character == " " { return "-" }
                    return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
                })
            let count = seen[slug, default: 0]
            seen[slug] = count + 1
            anchors.append(count == 0 ? slug : "\(slug)-\(count)")
        }
        return anchors
    }
}
