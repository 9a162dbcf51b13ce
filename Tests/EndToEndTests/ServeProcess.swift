import Foundation
import ParseModel
import PorterTestSupport
import XCTest

/// `parse-porter serve` running as its own process on a free port, and curl requests to it:
/// the command and an independent client, as a Parse app would use them.
final class ServeProcess: @unchecked Sendable {
    static let appId = "servedApp"
    static let masterKey = "serve-master-key-91b2"

    let mirror: URL
    let url: String
    private let process: Process

    /// Serves `mirror` (created when missing), with `arguments` added to `serve`'s; stops when the
    /// test ends, and must then exit cleanly within 15 s of SIGTERM (else it is killed, and the
    /// test fails).
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
            let deadline = ContinuousClock.now + .seconds(15)
            while process.isRunning && ContinuousClock.now < deadline { usleep(20_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                XCTFail("serve was still running 15 s after SIGTERM")
            }
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, "serve did not exit cleanly")
        }
    }

    /// The port served on.
    var port: Int { Int(url.split(separator: ":").last?.prefix { $0.isNumber } ?? "") ?? 0 }

    /// The server's resident memory now and at its peak (`VmRSS`, `VmHWM`), in bytes.
    var residentBytes: (now: Int, peak: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// An answer read by ``send(_:_:_:auth:timeout:)``, with the seconds it took.
    struct Reply {
        let status: Int
        let json: JSONValue
        let headers: [(name: String, value: String)]
        let seconds: Double

        var code: Int? { if case .integer(let code)? = json["code"] { Int(code) } else { nil } }
        var results: [JSONValue] { if case .array(let items)? = json["results"] { items } else { [] } }
        func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }
    }

    /// One request on a new connection, sent and read by the raw client (no curl process, so
    /// many can run at once and their time is the server's); nil when no whole answer arrived
    /// within `timeout` seconds.
    func send(
        _ method: String, _ path: String, _ body: String? = nil, auth: Auth = .master, contentType: String = "application/json",
        timeout: Double = 60
    ) -> Reply? {
        send(method, path, bytes: Array((body ?? "").utf8), auth: auth, contentType: contentType, timeout: timeout)
    }

    func send(
        _ method: String, _ path: String, bytes: [UInt8], auth: Auth = .master, contentType: String = "application/json",
        timeout: Double = 60
    ) -> Reply? {
        let started = ContinuousClock.now
        guard let client = try? RawClient(port: port, timeout: timeout) else { return nil }
        client.sendRequest(method, "/parse" + path, host: "127.0.0.1:\(port)", headers: auth.headers + [("Content-Type", contentType)], body: bytes)
        guard let response = client.readResponse() else { return nil }
        let elapsed = ContinuousClock.now - started
        return Reply(
            status: response.status, json: (try? JSONParser.parse(bytes: response.body)) ?? .null, headers: response.headers,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
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

    enum Auth {
        case master, appOnly, session(String), none

        /// The key headers a request with this authentication sends.
        var headers: [(String, String)] {
            switch self {
            case .master: [("X-Parse-Application-Id", ServeProcess.appId), ("X-Parse-Master-Key", ServeProcess.masterKey)]
            case .appOnly: [("X-Parse-Application-Id", ServeProcess.appId)]
            case .session(let token): [("X-Parse-Application-Id", ServeProcess.appId), ("X-Parse-Session-Token", token)]
            case .none: []
            }
        }
    }

    /// One curl request to `target` (a path below the mount, sent as is, or a full URL), with a
    /// raw body; `--path-as-is` keeps `..` segments as a hostile client sends them.
    func curl(
        _ method: String, _ target: String, body: [UInt8]? = nil, contentType: String? = nil, auth: Auth = .master,
        headers: [String] = []
    ) throws -> Answer {
        let scratch = try TemporaryFolder("curl")
        defer { scratch.remove() }
        let bodyFile = scratch.appending("body"), headFile = scratch.appending("head")
        var arguments = ["-s", "--path-as-is", "-X", method, "-D", headFile.path, "-o", bodyFile.path + ".out", "-H", "Expect:"]
        for (name, value) in auth.headers { arguments += ["-H", "\(name): \(value)"] }
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
        let reply = try curl(
            "POST", "/users", body: Array(#"{"username":"\#(username)","password":"pw-\#(username)"}"#.utf8),
            contentType: "application/json", auth: .appOnly)
        return try XCTUnwrap(reply.json["sessionToken"] as? String, String(decoding: reply.body, as: UTF8.self))
    }
}
