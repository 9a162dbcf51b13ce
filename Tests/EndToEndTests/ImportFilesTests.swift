import Foundation
import ParseModel
import XCTest

/// `import` of File fields with `upload: true` (Fixtures/gallery): the files land in the
/// target once per content, their URLs serve the same bytes, and a second run stores nothing.
final class ImportFilesTests: XCTestCase {
    private let gallery = CommandRunner.fixtures.appendingPathComponent("gallery")

    /// The source files by the title of the photo that names them.
    private func sourceBytes() throws -> [String: [UInt8]] {
        let images = gallery.appendingPathComponent("images")
        let red = [UInt8](try Data(contentsOf: images.appendingPathComponent("red.png")))
        return [
            "Sunset": red, "Postcard": red, "Harbour": [UInt8](try Data(contentsOf: images.appendingPathComponent("blue.png"))),
            "Recipe": [UInt8](try Data(contentsOf: images.appendingPathComponent("notes for tea (draft).txt"))),
        ]
    }

    /// Names and modification times of a files folder's entries (hidden bookkeeping included).
    private func snapshot(_ folder: URL) throws -> [String: Date] {
        var entries: [String: Date] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.contentModificationDateKey])
        while let url = enumerator?.nextObject() as? URL {
            entries[url.path] = try url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
        }
        return entries
    }

    /// Fetches every Photo from `server` and checks each File URL serves its source's bytes.
    private func assertServedFiles(_ server: ServeProcess, file: StaticString = #filePath, line: UInt = #line) throws {
        let photos = try server.curl("GET", "/classes/Photo?limit=100")
        let results = try XCTUnwrap(photos.json["results"] as? [[String: Any]], file: file, line: line)
        XCTAssertEqual(results.count, 5, file: file, line: line)
        let expected = try sourceBytes()
        var names: [String: String] = [:]
        for photo in results {
            let title = try XCTUnwrap(photo["title"] as? String)
            guard let bytes = expected[title] else {
                XCTAssertNil(photo["image"], "\(title) has no file", file: file, line: line)
                continue
            }
            let image = try XCTUnwrap(photo["image"] as? [String: Any], title, file: file, line: line)
            let url = try XCTUnwrap(image["url"] as? String, file: file, line: line)
            XCTAssertTrue(url.hasPrefix(server.url + "/files/\(ServeProcess.appId)/"), url, file: file, line: line)
            let download = try server.curl("GET", url, auth: .none)
            XCTAssertEqual(download.status, 200, url, file: file, line: line)
            XCTAssertEqual(download.body, bytes, "\(title): the served bytes are the source file's", file: file, line: line)
            names[title] = image["name"] as? String
        }
        XCTAssertEqual(names["Sunset"], names["Postcard"], "one content, one stored file", file: file, line: line)
        XCTAssertTrue(names["Recipe"]?.hasSuffix("_notes for tea _draft_.txt") == true, names["Recipe"] ?? "", file: file, line: line)
        XCTAssertEqual(try server.storedNames().count, 3, file: file, line: line)
    }

    func testImportIntoMirrorStoresEachContentOnceAndServeServesIt() throws {
        let directory = try temporaryFolder()
        let mirror = directory.appendingPathComponent("gallery.sqlite")
        let files = URL(fileURLWithPath: mirror.path + ".files")

        let dryRun = try CommandRunner.run(["import", gallery.path, "--to", mirror.path, "--dry-run", "-q"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: files.path), "a dry run stores no file")

        let first = try CommandRunner.run(["import", gallery.path, "--to", mirror.path, "--json", "-q"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try ImportSummary.parse(first).tally("Photo")?.inserted, 5)
        let stored = try snapshot(files)
        XCTAssertEqual(stored.keys.filter { !$0.contains("/.") }.count, 3)

        Thread.sleep(forTimeInterval: 0.05)
        let second = try CommandRunner.run(["import", gallery.path, "--to", mirror.path, "--json", "-q"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try ImportSummary.parse(second).tally("Photo")?.unchanged, 5)
        XCTAssertEqual(try snapshot(files), stored, "the second import wrote no file")

        try assertServedFiles(try ServeProcess(mirror: mirror, test: self))
    }

    func testImportIntoServedMirrorUploadsEachContentOnce() throws {
        let directory = try temporaryFolder()
        let server = try ServeProcess(mirror: directory.appendingPathComponent("served.sqlite"), test: self)

        let first = try CommandRunner.run(["import", gallery.path, "--to", server.url, "--json", "-q"], environment: ServeProcess.environment)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try ImportSummary.parse(first).tally("Photo")?.inserted, 5)
        try assertServedFiles(server)
        let stored = try snapshot(server.filesFolder)

        Thread.sleep(forTimeInterval: 0.05)
        let second = try CommandRunner.run(["import", gallery.path, "--to", server.url, "--json", "-q"], environment: ServeProcess.environment)
        XCTAssertEqual(second.status, 0, second.stderr)
        let summary = try ImportSummary.parse(second)
        XCTAssertEqual(summary.tally("Photo")?.unchanged, 5)
        XCTAssertEqual(summary.requests.first { $0.phase == "files" }?.requests, 1, "one lookup of the recorded uploads, no upload")
        XCTAssertEqual(try snapshot(server.filesFolder), stored, "the second import uploaded nothing")
        try assertServedFiles(server)

        // The upload records are the master key's alone.
        XCTAssertEqual(try server.curl("GET", "/classes/PorterFiles", auth: .appOnly).code, 119)
        XCTAssertEqual((try server.curl("GET", "/classes/PorterFiles").json["results"] as? [Any])?.count, 3)
    }

    /// Where clients may create classes, one who creates `PorterFiles` first can plant a record
    /// that links an imported File field to their own file, and the class stays public, listing
    /// every imported file's name. An import neither reads nor writes a `PorterFiles` open to
    /// clients (exit 3, nothing uploaded); once it is closed to all but the master key, it is used.
    func testAPorterFilesClassOpenToClientsIsNeitherReadNorWritten() throws {
        let directory = try temporaryFolder()
        let server = try ServeProcess(mirror: directory.appendingPathComponent("served.sqlite"), test: self, arguments: ["--allow-client-class-creation"])
        let red = [UInt8](try Data(contentsOf: gallery.appendingPathComponent("images/red.png")))
        let planted = #"{"sha256":"\#(SHA256.hex(red))","file":{"__type":"File","name":"attacker.html"}}"#
        XCTAssertEqual(try server.curl("POST", "/classes/PorterFiles", body: Array(planted.utf8), contentType: "application/json", auth: .appOnly).status, 201)

        let refused = try CommandRunner.run(["import", gallery.path, "--to", server.url, "-q"], environment: ServeProcess.environment)
        XCTAssertEqual(refused.status, 3, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("the class PorterFiles") && refused.stderr.contains("is open to clients (find: {\"*\":true}"), refused.stderr)
        XCTAssertEqual(try server.storedNames().count, 0, "nothing was uploaded")
        XCTAssertEqual((try server.curl("GET", "/classes/PorterFiles").json["results"] as? [Any])?.count, 1, "nothing was recorded")
        let photos = try server.curl("GET", "/classes/Photo?limit=100")
        XCTAssertFalse(String(decoding: photos.body, as: UTF8.self).contains("attacker"), "no File field links to the planted file")

        // Closed to all but the master key (and the planted record gone), it is the import's again.
        let closed = #"{"classLevelPermissions":{"find":{},"count":{},"get":{},"create":{},"update":{},"delete":{},"addField":{},"protectedFields":{}}}"#
        XCTAssertEqual(try server.curl("PUT", "/schemas/PorterFiles", body: Array(closed.utf8), contentType: "application/json").status, 200)
        let record = try XCTUnwrap((try server.curl("GET", "/classes/PorterFiles").json["results"] as? [[String: Any]])?.first?["objectId"] as? String)
        XCTAssertEqual(try server.curl("DELETE", "/classes/PorterFiles/\(record)").status, 200)
        let imported = try CommandRunner.run(["import", gallery.path, "--to", server.url, "-q"], environment: ServeProcess.environment)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        try assertServedFiles(server)
        XCTAssertEqual(try server.curl("GET", "/classes/PorterFiles", auth: .appOnly).code, 119)
    }

    func testUploadIsOnlyForFileFields() throws {
        let directory = try temporaryFolder()
        try "title,file\nA,x.png\n".write(to: directory.appendingPathComponent("photos.csv"), atomically: true, encoding: .utf8)
        try """
        version: 1
        classes:
          Photo:
            source: photos.csv
            key: [title]
            fields:
              title: String
              file: {type: String, upload: true}
        """.write(to: directory.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        let result = try CommandRunner.run(["validate", directory.path])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.stderr.contains("dataset.yml: classes.Photo.fields.file.upload: only a File field uploads files"), result.stderr)
    }
}
