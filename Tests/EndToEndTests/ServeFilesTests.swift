import Foundation
import XCTest

/// `parse-porter serve`'s file routes over HTTP, with curl as the client: upload, download,
/// delete, the names Parse refuses, the size limit and who may upload.
final class ServeFilesTests: XCTestCase {
    private var server: ServeProcess!
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryFolder()
        server = try ServeProcess(mirror: directory.appendingPathComponent("app.sqlite"), test: self)
    }

    /// Every byte value, NUL and invalid UTF-8 included.
    private let picture: [UInt8] = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }

    func testUploadDownloadAndDelete() throws {
        let upload = try server.curl("POST", "/files/photo.png", body: picture, contentType: "image/png")
        XCTAssertEqual(upload.status, 201, String(decoding: upload.body, as: UTF8.self))
        let name = try XCTUnwrap(upload.json["name"] as? String)
        let url = try XCTUnwrap(upload.json["url"] as? String)
        XCTAssertNotNil(name.wholeMatch(of: /[0-9a-f]{32}_photo\.png/), name)
        XCTAssertEqual(url, "\(server.url)/files/\(ServeProcess.appId)/\(name)")
        XCTAssertEqual(upload.header("Location"), url)
        XCTAssertEqual(try server.storedNames(), [name])
        XCTAssertEqual(try Data(contentsOf: server.filesFolder.appendingPathComponent(name)), Data(picture))

        // Anyone with the URL reads the bytes, with the type they were sent with.
        let download = try server.curl("GET", url, auth: .none)
        XCTAssertEqual(download.status, 200)
        XCTAssertEqual(download.body, picture)
        XCTAssertEqual(download.header("Content-Type"), "image/png")
        XCTAssertEqual(download.header("X-Content-Type-Options"), "nosniff")

        // A File field stores the name; reads give the URL that serves it.
        let created = try server.curl(
            "POST", "/classes/Album", body: Array(#"{"cover":{"__type":"File","name":"\#(name)"}}"#.utf8),
            contentType: "application/json")
        XCTAssertEqual(created.status, 201)
        let objectId = try XCTUnwrap(created.json["objectId"] as? String)
        let fetched = try server.curl("GET", "/classes/Album/\(objectId)")
        XCTAssertEqual((fetched.json["cover"] as? [String: Any])?["url"] as? String, url)
        let found = try server.curl("GET", "/classes/Album")
        let cover = ((found.json["results"] as? [[String: Any]])?.first?["cover"] as? [String: Any])
        XCTAssertEqual(cover?["url"] as? String, url)
        XCTAssertEqual(try server.curl("GET", try XCTUnwrap(cover?["url"] as? String), auth: .none).body, picture)

        // Delete: the master key only, as Parse Server's enforceMasterKeyAccess.
        let denied = try server.curl("DELETE", "/files/\(name)", auth: .appOnly)
        XCTAssertEqual(denied.status, 403)
        XCTAssertEqual(denied.error, "unauthorized: master key is required")
        XCTAssertEqual(try server.curl("GET", url, auth: .none).body, picture, "a refused delete leaves the file")
        XCTAssertEqual(try server.curl("DELETE", "/files/\(name)").status, 200)
        XCTAssertEqual(try server.storedNames(), [])
        let gone = try server.curl("GET", url, auth: .none)
        XCTAssertEqual(gone.status, 404)
        XCTAssertEqual(String(decoding: gone.body, as: UTF8.self), "File not found.")
        let again = try server.curl("DELETE", "/files/\(name)")
        XCTAssertEqual(again.status, 400)
        XCTAssertEqual(again.code, 153)
    }

    func testNamesGetAnExtensionFromTheirTypeAndATypeFromTheirExtension() throws {
        let notes = try server.curl("POST", "/files/notes", body: Array("plain words".utf8), contentType: "text/plain")
        XCTAssertEqual(notes.status, 201)
        let notesName = try XCTUnwrap(notes.json["name"] as? String)
        XCTAssertTrue(notesName.hasSuffix("_notes.txt"), notesName)
        XCTAssertEqual(try server.curl("GET", try XCTUnwrap(notes.json["url"] as? String), auth: .none).header("Content-Type"), "text/plain")

        let untyped = try server.curl("POST", "/files/data.json", body: Array("{}".utf8))
        XCTAssertEqual(untyped.status, 201)
        XCTAssertEqual(try server.curl("GET", try XCTUnwrap(untyped.json["url"] as? String), auth: .none).header("Content-Type"), "application/json")

        // Parse's name rule allows spaces and @; the URL encodes them as encodeURIComponent does.
        let spaced = try server.curl("POST", "/files/my%20cat@home.jpg", body: picture, contentType: "image/jpeg")
        XCTAssertEqual(spaced.status, 201)
        let url = try XCTUnwrap(spaced.json["url"] as? String)
        XCTAssertTrue(url.hasSuffix("_my%20cat%40home.jpg"), url)
        XCTAssertEqual(try server.curl("GET", url, auth: .none).body, picture)
    }

    func testHostileNamesNeverLeaveTheFilesFolder() throws {
        // A file beside the mirror that a traversal would reach.
        try Data("secret".utf8).write(to: directory.appendingPathComponent("secret.txt"))
        let refused: [(String, Int)] = [
            ("/files/..", 122), ("/files/%2e%2e", 122), ("/files/.hidden", 122), ("/files/a%00b.txt", 122),
            ("/files/%2e%2e%5csecret.txt", 122), ("/files/" + String(repeating: "a", count: 129), 122),
            ("/files/%3Cscript%3E.png", 122), ("/files/caf%C3%A9.png", 122), ("/files", 122),
        ]
        for (path, code) in refused {
            let reply = try server.curl("POST", path, body: Array("x".utf8), contentType: "text/plain")
            XCTAssertEqual(reply.status, 400, path)
            XCTAssertEqual(reply.code, code, "\(path): \(String(decoding: reply.body, as: UTF8.self))")
        }
        XCTAssertEqual(
            try server.curl("POST", "/files/" + String(repeating: "a", count: 128), body: Array("x".utf8)).status, 201,
            "128 characters are allowed")
        // Slashes, raw or encoded, make a path no file route answers (refused as a JSON request).
        for path in ["/files/../secret.txt", "/files/..%2Fsecret.txt", "/files/%2Ftmp%2Fx", "/files/sub/x.txt"] {
            let status = try server.curl("POST", path, body: Array("x".utf8)).status
            XCTAssertTrue((400..<500).contains(status), "\(path): \(status)")
        }
        // Downloads and deletes of such names find nothing, and never the files beside the mirror.
        let app = ServeProcess.appId
        for path in [
            "/files/\(app)/..%2Fsecret.txt", "/files/\(app)/%2e%2e", "/files/\(app)/../secret.txt", "/files/\(app)/.types",
            "/files/\(app)/..%2F..%2Fapp.sqlite", "/files/\(app)/%2Fetc%2Fpasswd", "/files/\(app)/a%00",
        ] {
            let reply = try server.curl("GET", path, auth: .none)
            XCTAssertTrue([403, 404].contains(reply.status), "\(path): \(reply.status)")
            XCTAssertFalse(String(decoding: reply.body, as: UTF8.self).contains("secret"), path)
        }
        for path in ["/files/%2e%2e%2Fsecret.txt", "/files/..", "/files/.types"] {
            XCTAssertNotEqual(try server.curl("DELETE", path).status, 200, path)
        }
        XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("secret.txt"), encoding: .utf8), "secret")
        XCTAssertEqual(try server.storedNames().count, 1, "only the 128-character upload is stored")
        let besideMirror = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix("app.sqlite") }
        XCTAssertEqual(besideMirror, ["secret.txt"])
    }

    func testSizeLimitIsParseServersMaxUploadSize() throws {
        let limit = 20 * 1024 * 1024
        let tooLarge = try server.curl(
            "POST", "/files/big.bin", body: [UInt8](repeating: 7, count: limit + 1),
            contentType: "application/octet-stream")
        XCTAssertEqual(tooLarge.status, 413)
        XCTAssertEqual(tooLarge.error, "request entity too large")
        XCTAssertNil(tooLarge.code, "Parse Server's body parser answers without a code")
        XCTAssertEqual(try server.storedNames(), [])
        let largest = try server.curl("POST", "/files/big.bin", body: [UInt8](repeating: 7, count: limit), contentType: "application/octet-stream")
        XCTAssertEqual(largest.status, 201)
        let empty = try server.curl("POST", "/files/empty.txt", body: [], contentType: "text/plain")
        XCTAssertEqual(empty.status, 400)
        XCTAssertEqual(empty.code, 130)
        XCTAssertEqual(try server.storedNames().count, 1)
    }

    func testWhoMayUploadFollowsParseServersDefaults() throws {
        let publicUpload = try server.curl("POST", "/files/a.txt", body: Array("x".utf8), contentType: "text/plain", auth: .appOnly)
        XCTAssertEqual(publicUpload.status, 400)
        XCTAssertEqual(publicUpload.code, 130)
        XCTAssertEqual(publicUpload.error, "File upload by public is disabled.")

        let token = try server.signUp("reader")
        let userUpload = try server.curl("POST", "/files/a.txt", body: Array("x".utf8), contentType: "text/plain", auth: .session(token))
        XCTAssertEqual(userUpload.status, 201)

        // A user signed in through anonymous authData may not (enableForAnonymousUser: false).
        let anonymous = try server.curl(
            "POST", "/classes/_User", body: Array(#"{"username":"anon","password":"pw-anon","authData":{"anonymous":{"id":"a1"}}}"#.utf8),
            contentType: "application/json")
        XCTAssertEqual(anonymous.status, 201, String(decoding: anonymous.body, as: UTF8.self))
        let login = try server.curl(
            "POST", "/login", body: Array(#"{"username":"anon","password":"pw-anon"}"#.utf8), contentType: "application/json", auth: .appOnly)
        let anonymousToken = try XCTUnwrap(login.json["sessionToken"] as? String, String(decoding: login.body, as: UTF8.self))
        let anonymousUpload = try server.curl("POST", "/files/a.txt", body: Array("x".utf8), contentType: "text/plain", auth: .session(anonymousToken))
        XCTAssertEqual(anonymousUpload.code, 130)
        XCTAssertEqual(anonymousUpload.error, "File upload by anonymous user is disabled.")

        // HTML is refused without the master key (Parse's default fileExtensions), by name or by type.
        let html = try server.curl("POST", "/files/page.HTML", body: Array("<script>".utf8), contentType: "text/html", auth: .session(token))
        XCTAssertEqual(html.code, 130)
        XCTAssertEqual(html.error, "File upload of extension HTML is disabled.")
        XCTAssertEqual(try server.curl("POST", "/files/page", body: Array("<script>".utf8), contentType: "text/html", auth: .session(token)).code, 130)
        XCTAssertEqual(try server.curl("POST", "/files/page.html", body: Array("<p>".utf8), contentType: "text/html").status, 201, "the master key may")

        let wrongApp = try server.curl("POST", "/files/a.txt", body: Array("x".utf8), auth: .none, headers: ["X-Parse-Application-Id: other"])
        XCTAssertEqual(wrongApp.status, 403)
        let wrongAppDownload = try server.curl("GET", "/files/other/\(try XCTUnwrap(userUpload.json["name"] as? String))", auth: .none)
        XCTAssertEqual(wrongAppDownload.status, 403)
        XCTAssertEqual(wrongAppDownload.code, 119)
        XCTAssertEqual(try server.storedNames().count, 2, "the user's text file and the master's HTML page")
    }
}
