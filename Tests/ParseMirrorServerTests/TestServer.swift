import Foundation
import ParseMirrorServer
import ParseModel
import PorterHTTP
import PorterSQLite
import XCTest

/// A ``ParseMirrorAPI`` over a fresh mirror in a temporary folder, called directly (no sockets), or
/// served by a real ``HTTPServer`` on 127.0.0.1 when made with `overHTTP: true`.
final class TestServer {
    static let appId = "testApp"
    static let masterKey = "test-master-key"

    let directory: URL
    let path: String
    let api: ParseMirrorAPI
    /// The server when requests go over HTTP; `nil` when they call the API directly.
    private var http: HTTPServer?
    private(set) var port = 0

    init(overHTTP: Bool = false, _ configure: (inout ParseServerConfiguration) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mirror-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("mirror.sqlite").path
        var configuration = ParseServerConfiguration(applicationId: Self.appId, masterKey: Self.masterKey)
        configure(&configuration)
        api = try ParseMirrorAPI(mirrorPath: path, configuration: configuration)
        if overHTTP {
            let server = HTTPServer(port: 0, handler: api)
            port = try server.start()
            http = server
        }
    }

    deinit {
        http?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Who sends a request.
    enum Auth {
        case master, anonymous, session(String), none
    }

    struct Reply {
        let status: Int
        let json: JSONValue
        let headers: HTTPHeaders

        subscript(key: String) -> JSONValue? { json[key] }
        var code: ParseErrorCode? { ParseErrorCode(errorBody: json) }
        var error: String? { json["error"]?.text }
        var results: [JSONValue] { if case .array(let items)? = json["results"] { return items } else { return [] } }
    }

    /// Sends a request; `body` is JSON text, `path` is below `/parse`.
    @discardableResult
    func send(_ method: String, _ path: String, _ body: String? = nil, auth: Auth = .master, query: [(String, String)] = [],
              headers extra: [(String, String)] = [], remoteAddress: String = "127.0.0.1") -> Reply {
        var headers = HTTPHeaders()
        switch auth {
        case .master:
            headers.add("X-Parse-Application-Id", Self.appId)
            headers.add("X-Parse-Master-Key", Self.masterKey)
        case .anonymous:
            headers.add("X-Parse-Application-Id", Self.appId)
        case .session(let token):
            headers.add("X-Parse-Application-Id", Self.appId)
            headers.add("X-Parse-Session-Token", token)
        case .none:
            break
        }
        for (name, value) in extra { headers.add(name, value) }
        if http != nil { return sendOverHTTP(method, "/parse" + path, body: body, headers: headers, query: query) }
        let request = HTTPRequest(method: method, path: "/parse" + path, query: query.map { (name: $0.0, value: $0.1) }, headers: headers,
                                  body: Array((body ?? "").utf8), remoteAddress: remoteAddress)
        let response = api.respond(to: request)
        let json = (try? JSONParser.parse(bytes: response.body)) ?? .null
        return Reply(status: response.status, json: json, headers: response.headers)
    }

    /// Creates an object with the master key; its objectId.
    @discardableResult
    func create(_ className: String, _ body: String, auth: Auth = .master, file: StaticString = #filePath, line: UInt = #line) -> String {
        let reply = send("POST", "/classes/\(className)", body, auth: auth)
        XCTAssertEqual(reply.status, 201, "\(reply.json.serialized())", file: file, line: line)
        return reply["objectId"]?.text ?? ""
    }

    /// Signs a user up; its objectId and session token.
    func signUp(_ username: String, password: String = "secret", file: StaticString = #filePath, line: UInt = #line) -> (id: String, token: String) {
        let reply = send("POST", "/users", #"{"username":"\#(username)","password":"\#(password)"}"#, auth: .anonymous)
        XCTAssertEqual(reply.status, 201, "\(reply.json.serialized())", file: file, line: line)
        return (reply["objectId"]?.text ?? "", reply["sessionToken"]?.text ?? "")
    }

    /// Rows of a SQL query on the mirror file, as text.
    func rows(_ sql: String, _ arguments: [String] = []) throws -> [[String?]] {
        let database = try SQLiteDatabase(path: path, create: false)
        defer { database.close() }
        return try database.rows(sql, arguments)
    }

    func columns(of table: String) throws -> [String] {
        try rows("SELECT name FROM pragma_table_info(?1)", [table]).compactMap { $0[0] }
    }

    func tableExists(_ name: String) throws -> Bool {
        !(try rows("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", [name])).isEmpty
    }
}

extension JSONValue {
    var text: String? { if case .string(let s) = self { return s } else { return nil } }

    /// Item `index` of an array (a batch's answers), nil otherwise.
    subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// Parses JSON test literals.
    static func parse(_ text: String) -> JSONValue { (try? JSONParser.parse(text)) ?? .null }
}

/// Asserts a Parse error reply: HTTP status, code and (optionally) message.
func XCTAssertParseError(_ reply: TestServer.Reply, status: Int, code: ParseErrorCode?, message: String? = nil,
                         file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(reply.status, status, reply.json.serialized(), file: file, line: line)
    XCTAssertEqual(reply.code, code, reply.json.serialized(), file: file, line: line)
    if let message { XCTAssertEqual(reply.error, message, file: file, line: line) }
}
