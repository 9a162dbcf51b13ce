// The "Testing an app against an in-process Parse API" example of Docs/Serve.md, compiled and
// run; Docs/Serve.md shows the lines between the markers, which `testTheGuideShowsThisExample`
// checks.
// Docs example begin
import Foundation
import ParseMirrorServer
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class BookListTests: XCTestCase {
    private var server: MirrorServer!

    override func setUp() async throws {
        let mirror = FileManager.default.temporaryDirectory.appendingPathComponent("books-\(UUID().uuidString).sqlite").path
        server = try await MirrorServer.start(
            mirror: mirror, configuration: ParseServerConfiguration(applicationId: "bookApp", masterKey: "test-master-key"))
        // A ParseSwift or Parse JS app under test would be pointed at server.url here.
    }

    override func tearDown() async throws {
        await server.stop()
        try? FileManager.default.removeItem(atPath: server.mirrorPath)
        try? FileManager.default.removeItem(atPath: server.mirrorPath + ".files")
    }

    func testASavedBookIsListed() async throws {
        var save = URLRequest(url: server.url.appendingPathComponent("classes/Book"))
        save.httpMethod = "POST"
        save.setValue("bookApp", forHTTPHeaderField: "X-Parse-Application-Id")
        save.setValue("test-master-key", forHTTPHeaderField: "X-Parse-Master-Key")
        save.httpBody = Data(#"{"title":"Emma"}"#.utf8)
        let (_, saved) = try await URLSession.shared.data(for: save)
        XCTAssertEqual((saved as? HTTPURLResponse)?.statusCode, 201)

        var list = URLRequest(url: server.url.appendingPathComponent("classes/Book"))
        list.setValue("bookApp", forHTTPHeaderField: "X-Parse-Application-Id")
        let (body, listed) = try await URLSession.shared.data(for: list)
        XCTAssertEqual((listed as? HTTPURLResponse)?.statusCode, 200)
        let results = try XCTUnwrap(JSONSerialization.jsonObject(with: body) as? [String: Any])["results"] as? [[String: Any]]
        XCTAssertEqual(results?.map { $0["title"] as? String }, ["Emma"])
    }
}
// Docs example end

extension BookListTests {
    func testTheGuideShowsThisExample() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let guide = try String(contentsOf: PackageFolders.root.appendingPathComponent("Docs/Serve.md"), encoding: .utf8)
        let example = try XCTUnwrap(
            source.components(separatedBy: "// Docs example begin\n").dropFirst().first?
                .components(separatedBy: "// Docs example end\n").first)
        XCTAssertTrue(guide.contains("```swift\n" + example + "```\n"), "Docs/Serve.md shows this file's example as it is")
    }
}
