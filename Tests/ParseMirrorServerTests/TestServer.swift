import Foundation
import ParseMirrorServer
import ParseModel
import PorterHTTP
import PorterSQLite
@_exported import PorterTestSupport
import XCTest

/// A ``ParseMirrorAPI`` over a fresh mirror in a temporary folder, called directly (no sockets), or
/// also served on 127.0.0.1 by the shared ``ServedMirror``: made with `overHTTP: true`, requests go
/// over HTTP; made with `serving:` limits (``LiveMirror``), they still call the API directly.
final class TestServer {
    static let appId = "testApp"
    static let masterKey = "test-master-key"

    private let folder: TemporaryFolder
    let path: String
    let api: ParseMirrorAPI
    /// The server when the API is also served; `nil` when requests can only call it directly.
    private let served: ServedMirror?
    /// Whether ``send(_:_:_:auth:query:headers:remoteAddress:)`` goes over HTTP.
    private let overHTTP: Bool

    init(overHTTP: Bool = false, serving limits: HTTPServer.Limits? = nil, _ configure: (inout ParseServerConfiguration) -> Void = { _ in }) throws {
        folder = try TemporaryFolder("mirror-server")
        path = folder.appending("mirror.sqlite").path
        var configuration = ParseServerConfiguration(applicationId: Self.appId, masterKey: Self.masterKey)
        configure(&configuration)
        self.overHTTP = overHTTP
        if overHTTP || limits != nil {
            let served = try ServedMirror(path: path, configuration: configuration, limits: limits ?? HTTPServer.Limits())
            self.served = served
            api = served.api
        } else {
            served = nil
            api = try ParseMirrorAPI(mirrorPath: path, configuration: configuration)
        }
    }

    deinit {
        served?.stop()
        api.close()
    }

    /// The temporary folder holding the mirror.
    var directory: URL { folder.url }
    /// The served port; 0 when the API is not served.
    var port: Int { served?.port ?? 0 }

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
    func send(
        _ method: String, _ path: String, _ body: String? = nil, auth: Auth = .master, query: [(String, String)] = [],
        headers extra: [(String, String)] = [], remoteAddress: String = "127.0.0.1"
    ) -> Reply {
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
        if overHTTP { return sendOverHTTP(method, "/parse" + path, body: body, headers: headers, query: query) }
        let request = HTTPRequest(
            method: method, path: "/parse" + path, query: query.map { (name: $0.0, value: $0.1) }, headers: headers,
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
func XCTAssertParseError(
    _ reply: TestServer.Reply, status: Int, code: ParseErrorCode?, message: String? = nil,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertEqual(reply.status, status, reply.json.serialized(), file: file, line: line)
    XCTAssertEqual(reply.code, code, reply.json.serialized(), file: file, line: line)
    if let message { XCTAssertEqual(reply.error, message, file: file, line: line) }
}
