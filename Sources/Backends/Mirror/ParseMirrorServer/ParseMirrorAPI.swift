import MirrorQuery
import ParseModel
import ParseRules
import PorterCore
import PorterHTTP
import PorterSQLite

/// Parse Server's REST API over a SQLite mirror: objects, queries, schemas, batch, users and
/// sessions, with Parse's status codes, error codes and JSON shapes (Docs/ParseServer.md).
///
/// Serve it with ``MirrorServer``, or call ``respond(to:)`` directly:
///
/// ```swift
/// let api = try ParseMirrorAPI(mirrorPath: "library.sqlite",
///                              configuration: ParseServerConfiguration(applicationId: "library", masterKey: key))
/// let response = api.respond(to: HTTPRequest(method: "GET", path: "/parse/classes/Book",
///                                            headers: HTTPHeaders([("X-Parse-Application-Id", "library")])))
/// ```
///
/// Routes, under the mount path: `/health` (any method), `GET /serverInfo`, `GET /config`,
/// `/schemas[/:className]`, `DELETE /purge/:className`, `/classes/:className[/:objectId]` (and the
/// aliases `/users`, `/roles`, `/sessions`, `/installations`), `GET /aggregate/:className`,
/// `POST /batch`, `/login`, `/verifyPassword`, `POST /logout`, `GET /users/me`, `GET /sessions/me`,
/// the file routes (`POST /files/:name`, `GET /files/:appId/:name`,
/// `GET /files/:appId/metadata/:name`, `DELETE /files/:name`), and `OPTIONS` (CORS preflight) on
/// any path. A POST whose body has `_method` is answered as that method.
/// Unknown routes get 404 `{"error":"Cannot GET /path"}` (Express answers them with an HTML page).
public final class ParseMirrorAPI: HTTPHandler {
    /// The app id, keys, mount path and limits requests are answered with.
    public let configuration: ParseServerConfiguration
    let store: MirrorStore
    /// Uploaded files, in the folder beside the mirror (`<mirror>.files`).
    let files: MirrorFiles
    let mountPath: String
    /// What the results of all requests being answered may hold together (``RequestLimits/resultMemory``).
    private let resultMemory: ResultMemory

    /// Opens the mirror at `mirrorPath`, creating an empty one when the file does not exist.
    ///
    /// - Throws: `PorterError` when `mirrorPath` is not a file path (`":memory:"`, `""`, a
    ///   `file:` URI) or the file is not a SQLite database.
    public init(mirrorPath: String, configuration: ParseServerConfiguration) throws {
        self.configuration = configuration
        self.mountPath = configuration.normalizedMountPath
        self.store = try MirrorStore(path: mirrorPath, queryTimeLimit: configuration.limits.queryTimeLimit)
        self.files = MirrorFiles(mirrorPath: mirrorPath)
        self.resultMemory = ResultMemory(bytes: configuration.limits.resultMemory)
    }

    /// Closes the mirror's connections, so no `-wal` or `-shm` file is left beside it. Call it
    /// once no request runs; requests after it are answered 500. ``MirrorServer/stop()`` calls it.
    public func close() {
        store.close()
    }

    /// Answers one request; every error becomes Parse's error shape.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        respondExplaining(to: request).response
    }

    /// Answers one request as ``respond(to:)`` does, and tells what caused its internal errors
    /// (a 500 answers only "Internal server error.", never the mirror's path or SQL), for the
    /// server's own log; empty when there was none.
    package func respondExplaining(to request: HTTPRequest) -> (response: HTTPResponse, internalFailures: [String]) {
        do { return try answer(request) } catch {
            let response = APIResponse(error: APIError(error))
            return (response.httpResponse, response.internalFailures)
        }
    }

    /// The response, and the causes of its internal errors for the log.
    private func answer(_ http: HTTPRequest) throws -> (HTTPResponse, [String]) {
        guard let path = routePath(http.path) else { throw APIError.noRoute(http.method, http.path) }
        if http.method == "OPTIONS" { return (APIResponse(JSONObject()).httpResponse, []) }
        // Any method, as Parse Server mounts it (ParseSwift's health check sends POST).
        if path == "/health" { return (APIResponse(JSONObject(["status": .string("ok")])).httpResponse, []) }
        if let endpoint = FileEndpoint(method: http.method, path: path) { return (try fileRoute(endpoint, http), []) }
        var request = try APIRequest(http, path: path, publicURL: publicURL(http))
        let budget = ResultBudget(bytes: configuration.limits.resultBytes, shared: resultMemory)
        request.budget = budget
        let data = DataAccess(store: store, batch: nil)
        // As Parse Server's middleware: a log-in ignores the session token, and `/sessions/me`
        // (without a query string) looks its token up itself.
        var credentials = request.credentials
        switch ParseRoute(method: request.method, path: request.path) {
        case .logIn?: credentials.sessionToken = nil
        case .currentSession? where http.query.isEmpty: credentials.sessionToken = nil
        default: break
        }
        let caller = try Caller.authenticate(credentials, remoteAddress: http.remoteAddress, configuration: configuration, data: data)
        let response = try route(request, caller: caller, data: data)
        // The memory the answer borrowed is given back once it has been sent.
        var answer = response.httpResponse
        answer.keptUntilSent = budget
        return (answer, response.internalFailures)
    }

    /// The path below the mount path (`/classes/Book`), or `nil` when it is not under it.
    func routePath(_ path: String) -> String? {
        guard !mountPath.isEmpty else { return path }
        if path == mountPath { return "/" }
        guard path.hasPrefix(mountPath + "/") else { return nil }
        return String(path.dropFirst(mountPath.count))
    }

    /// `http://host:port/parse`, from the request's Host header, for `Location` headers.
    func publicURL(_ http: HTTPRequest) -> String {
        http.headers["Host"].map { "http://\($0)\(mountPath)" } ?? mountPath
    }

    /// Dispatches one request (or batch sub-request) to its route.
    func route(_ request: APIRequest, caller: Caller, data: DataAccess) throws -> APIResponse {
        guard let route = ParseRoute(method: request.method, path: request.path) else { throw APIError.noRoute(request.method, request.path) }
        switch route {
        case .serverInfo: return try serverInfo(caller)
        case .config: return APIResponse(JSONObject(["params": .object(JSONObject())]))
        case .purge(let className): return try purge(className, caller: caller, data: data)
        case .schemas(let className): return try schemaRoute(request, className: className, caller: caller, data: data)
        case .batch: return try batch(request, caller: caller, data: data)
        case .logIn: return try logIn(request, caller: caller, data: data)
        case .verifyPassword: return try withFileURLs(verifyPassword(request, caller: caller, data: data), request)
        case .logOut: return try logOut(request, data: data)
        case .currentUser: return try withFileURLs(currentUser(request, data: data), request)
        case .currentSession: return try currentSession(request, data: data)
        case .query(let className): return try withFileURLs(find(request, className: className, caller: caller, data: data), request)
        case .aggregate(let className): return try aggregate(request, className: className, caller: caller, data: data)
        case .create(let className): return try create(request, className: className, caller: caller, data: data)
        case .get(let className, let objectId):
            return try withFileURLs(get(request, className: className, objectId: objectId, caller: caller, data: data), request)
        case .update(let className, let objectId):
            return try update(request, className: className, objectId: objectId, caller: caller, data: data)
        case .delete(let className, let objectId): return try delete(className: className, objectId: objectId, caller: caller, data: data)
        }
    }

    /// A read's answer with working `url`s in its File values.
    private func withFileURLs(_ response: APIResponse, _ request: APIRequest) -> APIResponse {
        var expanded = response
        expanded.body = withFileURLs(response.body, publicURL: request.publicURL)
        return expanded
    }

    private func serverInfo(_ caller: Caller) throws -> APIResponse {
        guard caller.hasMasterKey else { throw APIError.masterKeyRequired }
        let on = JSONValue.bool(true), off = JSONValue.bool(false)
        let features = JSONObject([
            "globalConfig": .object(JSONObject(["create": off, "read": off, "update": off, "delete": off])),
            "hooks": .object(JSONObject(["create": off, "read": off, "update": off, "delete": off])),
            "cloudCode": .object(JSONObject(["jobs": off])),
            "logs": .object(JSONObject(["level": off, "size": off, "order": off, "until": off, "from": off])),
            "push": .object(JSONObject(["immediatePush": off, "scheduledPush": off, "storedPushData": off, "pushAudiences": off, "localization": off])),
            "schemas": .object(
                JSONObject([
                    "addField": on, "removeField": on, "addClass": on, "removeClass": on,
                    "clearAllDataFromClass": on, "exportClass": off, "editClassLevelPermissions": on,
                    "editPointerPermissions": off,
                ])),
        ])
        // Parse Server's shape, naming this server instead of claiming a Parse Server version.
        return APIResponse(
            JSONObject([
                "features": .object(features), "serverName": .string(PorterRelease.name),
                "serverVersion": .string(PorterRelease.version),
            ]))
    }
}

/// Where a route reads and writes: a transaction of its own on the store, or the running
/// batch's transaction.
struct DataAccess {
    let store: MirrorStore
    /// The batch's connection, already in a write transaction.
    let batch: MirrorConnection?

    func read<T>(_ body: (MirrorConnection) throws -> T) throws -> T {
        if let batch { return try body(batch) }
        return try store.read(body)
    }

    func write<T>(_ body: (MirrorConnection) throws -> T) throws -> T {
        if let batch { return try body(batch) }
        return try store.write(body)
    }
}

extension ParseRoute {
    /// Whether the route only reads (or, for log-in, checks a password before its short write):
    /// a batch runs it outside the write lock.
    var runsOutsideWriteLock: Bool {
        switch self {
        case .serverInfo, .config, .logIn, .verifyPassword, .currentUser, .currentSession, .query, .get, .aggregate: true
        case .schemas, .purge, .batch, .logOut, .create, .update, .delete: false
        }
    }
}
