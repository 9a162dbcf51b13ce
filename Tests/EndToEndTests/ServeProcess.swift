import Foundation
import XCTest

/// `parse-porter serve` running as its own process on a free port, and curl requests to it:
/// the command and an independent client, as a Parse app would use them.
final class ServeProcess {
    static let appId = "servedApp"
    static let masterKey = "serve-master-key-91b2"

    let mirror: URL
    let url: String
    private let process: Process

    /// Serves `mirror` (created when missing), with `arguments` added to `serve`'s; stops when the
    /// test ends, and must then exit cleanly.
    init(mirror: URL, test: XCTestCase, arguments: [String] = []) throws {
        self.mirror = mirror
        process = Process()
        process.executableURL = CommandRunner.binary
        process.arguments = ["serve", mirror.path, "--port", "0", "--app-id", Self.appId, "--quiet"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["PARSE_MASTER_KEY": Self.masterKey]) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        url = try XCTUnwrap(text.firstMatch(of: /http:\/\/127\.0\.0\.1:\d+\/parse/).map { String($0.0) }, text)
        let process = self.process
        test.addTeardownBlock {
            process.terminate()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "serve did not exit cleanly")
        }
    }

    /// The environment a `parse-porter import --to <url>` needs.
    static var environment: [String: String] { ["PARSE_APPLICATION_ID": appId, "PARSE_MASTER_KEY": masterKey] }

    /// The folder the server keeps files in.
    var filesFolder: URL { URL(fileURLWithPath: mirror.path + ".files") }

    /// Names of the files stored (hidden bookkeeping left out).
    func storedNames() throws -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: filesFolder.path)) ?? []
        return entries.filter { !$0.hasPrefix(".") }.sorted()
    }

    struct Answer {
        let status: Int
        let headers: String
        let body: [UInt8]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var code: Int? { json["code"] as? Int }
        var error: String? { json["error"] as? String }

        func header(_ name: String) -> String? {
            headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
        }
    }

    enum Auth { case master, appOnly, session(String), none }

    /// One curl request to `target` (a path below the mount, sent as is, or a full URL), with a
    /// raw body; `--path-as-is` keeps `..` segments as a hostile client sends them.
    func curl(_ method: String, _ target: String, body: [UInt8]? = nil, contentType: String? = nil, auth: Auth = .master,
              headers: [String] = []) throws -> Answer {
        let scratch = try TemporaryFolder("curl")
        defer { scratch.remove() }
        let bodyFile = scratch.appending("body"), headFile = scratch.appending("head")
        var arguments = ["-s", "--path-as-is", "-X", method, "-D", headFile.path, "-o", bodyFile.path + ".out", "-H", "Expect:"]
        switch auth {
        case .master: arguments += ["-H", "X-Parse-Application-Id: \(Self.appId)", "-H", "X-Parse-Master-Key: \(Self.masterKey)"]
        case .appOnly: arguments += ["-H", "X-Parse-Application-Id: \(Self.appId)"]
        case .session(let token): arguments += ["-H", "X-Parse-Application-Id: \(Self.appId)", "-H", "X-Parse-Session-Token: \(token)"]
        case .none: break
        }
        // No Content-Type unless given (curl would send a form type with a body).
        arguments += ["-H", contentType.map { "Content-Type: \($0)" } ?? "Content-Type:"]
        for header in headers { arguments += ["-H", header] }
        if let body {
            try Data(body).write(to: bodyFile)
            arguments += ["--data-binary", "@" + bodyFile.path]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments + [target.hasPrefix("http") ? target : url + target]
        try process.run()
        process.waitUntilExit()
        let head = String(decoding: (try? Data(contentsOf: headFile)) ?? Data(), as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: bodyFile.path + ".out"))) ?? Data())
        return Answer(status: status, headers: head, body: bytes)
    }

    /// A user signed up over REST; its session token.
    func signUp(_ username: String) throws -> String {
        let reply = try curl("POST", "/users", body: Array(#"{"username":"\#(username)","password":"pw-\#(username)"}"#.utf8),
                             contentType: "application/json", auth: .appOnly)
        return try XCTUnwrap(reply.json["sessionToken"] as? String, String(decoding: reply.body, as: UTF8.self))
    }
}
