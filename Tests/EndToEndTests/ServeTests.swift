import Foundation
import XCTest

/// `parse-porter serve` over an imported mirror, driven by curl the way Parse clients send
/// requests (Docs/ParseSwift.md#requests), with Parse Server's status codes and error shapes.
final class ServeTests: XCTestCase {
    private var url = ""
    private let appId = ServeProcess.appId, masterKey = ServeProcess.masterKey

    override func setUpWithError() throws {
        let directory = try temporaryFolder()
        let mirror = directory.appendingPathComponent("library.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", mirror.path, "-q"]).status, 0)
        url = try ServeProcess(mirror: mirror, test: self).url
    }

    struct Answer {
        let status: Int
        let headers: String
        let json: [String: Any]
        let array: [Any]?
    }

    /// One curl request; `master` adds the master key.
    private func curl(_ method: String, _ path: String, query: [String] = [], body: String? = nil, master: Bool = false, appId: String? = nil) throws -> Answer
    {
        var arguments = ["-s", "-i", "-X", method, "-H", "X-Parse-Application-Id: \(appId ?? self.appId)", "-H", "Content-Type: application/json"]
        if master { arguments += ["-H", "X-Parse-Master-Key: \(masterKey)"] }
        if let body { arguments += ["--data-binary", body] }
        if !query.isEmpty { arguments += ["-G"] + query.flatMap { ["--data-urlencode", $0] } }
        if method == "GET" && !query.isEmpty { arguments.remove(at: arguments.firstIndex(of: "-X")!); arguments.remove(at: arguments.firstIndex(of: "GET")!) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments + [url + path]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? "", body = parts.dropFirst().joined(separator: "\r\n\r\n")
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let parsed = try? JSONSerialization.jsonObject(with: Data(body.utf8))
        return Answer(status: status, headers: head, json: parsed as? [String: Any] ?? [:], array: parsed as? [Any])
    }

    func testQueriesAsParseSwiftSendsThem() throws {
        // JSON-array parameters, include of a pointer, order descending, limit.
        let page = try curl(
            "GET", "/classes/Book",
            query: [
                #"where={"publishingYear":{"$gte":1950}}"#, #"order=["-publishingYear","title"]"#,
                "limit=3", "skip=0", #"include=["genre"]"#,
            ])
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.headers.lowercased().contains("cache-control: no-store"), page.headers)
        let results = try XCTUnwrap(page.json["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 3)
        let years = results.compactMap { $0["publishingYear"] as? Int }
        XCTAssertEqual(years, years.sorted(by: >))
        XCTAssertTrue(years.allSatisfy { $0 >= 1950 })
        let genre = try XCTUnwrap(results[0]["genre"] as? [String: Any])
        XCTAssertEqual(genre["__type"] as? String, "Object")
        XCTAssertNotNil(genre["name"] as? String)
        XCTAssertEqual((results[0]["authors"] as? [String: Any])?["__type"] as? String, "Relation")
        // containsString: \Q…\E, and a POST query with _method GET and count.
        let dune = try curl("GET", "/classes/Book", query: [#"where={"title":{"$regex":"^\\Qdune\\E$","$options":"i"}}"#])
        XCTAssertEqual((dune.json["results"] as? [[String: Any]])?.compactMap { $0["title"] as? String }, ["Dune"])
        let counted = try curl("POST", "/classes/Book", body: #"{"_method":"GET","where":{},"count":true,"limit":0}"#)
        XCTAssertEqual(counted.json["count"] as? Int, 43)
        XCTAssertEqual((counted.json["results"] as? [Any])?.count, 0)
        // A relation read back with $relatedTo.
        let book = try XCTUnwrap((dune.json["results"] as? [[String: Any]])?.first?["objectId"] as? String)
        let authors = try curl(
            "GET", "/classes/Author", query: [#"where={"$relatedTo":{"object":{"__type":"Pointer","className":"Book","objectId":"\#(book)"},"key":"authors"}}"#]
        )
        XCTAssertEqual((authors.json["results"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["Frank Herbert"])
    }

    func testErrorShapesAreParseServers() throws {
        let unauthorized = try curl("GET", "/classes/Book", appId: "wrongApp")
        XCTAssertEqual(unauthorized.status, 403)
        XCTAssertEqual(unauthorized.json["error"] as? String, "unauthorized")
        XCTAssertNil(unauthorized.json["code"])
        let missing = try curl("GET", "/classes/Book/doesNotExist")
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(missing.json["code"] as? Int, 101)
        let mismatch = try curl("POST", "/classes/Book", body: #"{"title":"T","publishingYear":"nineteen"}"#, master: true)
        XCTAssertEqual(mismatch.status, 400)
        XCTAssertEqual(mismatch.json["code"] as? Int, 111)
        let customId = try curl("POST", "/classes/Book", body: #"{"objectId":"abc","title":"T"}"#, master: true)
        XCTAssertEqual(customId.json["code"] as? Int, 105)
        let schemas = try curl("GET", "/schemas")
        XCTAssertEqual(schemas.status, 403)
        XCTAssertEqual(schemas.json["error"] as? String, "unauthorized: master key is required")
        let badPath = try curl("POST", "/batch", body: #"{"requests":[{"method":"POST","path":"/classes/Book","body":{"title":"X"}}]}"#, master: true)
        XCTAssertEqual(badPath.status, 400)
        XCTAssertEqual(badPath.json["code"] as? Int, 107)
        let batch = try curl(
            "POST", "/batch",
            body:
                #"{"requests":[{"method":"POST","path":"/parse/classes/Book","body":{"title":"New"}},{"method":"PUT","path":"/parse/classes/Book/nope","body":{"title":"Y"}}]}"#,
            master: true)
        XCTAssertEqual(batch.status, 200)
        let items = try XCTUnwrap(batch.array as? [[String: Any]])
        XCTAssertNotNil((items[0]["success"] as? [String: Any])?["objectId"])
        XCTAssertEqual((items[1]["error"] as? [String: Any])?["code"] as? Int, 101)
    }
}
