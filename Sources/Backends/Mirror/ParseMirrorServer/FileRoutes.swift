import ParseModel
import ParseRules
import PorterHTTP
import PorterSQLite

/// The file routes, below the mount path, as Parse Server's `FilesRouter` has them.
enum FileEndpoint {
    /// `POST /files` without a name: 122.
    case unnamedUpload
    /// `POST /files/:name`: the raw body, stored under a unique name.
    case upload(name: String)
    /// `GET /files/:appId/:name`: the bytes, without credentials (the URL is the capability).
    case download(applicationId: String, name: String)
    /// `DELETE /files/:name`: master key only.
    case delete(name: String)
    /// `GET /files/:appId/metadata/:name`: `{}`, as Parse Server answers without a files
    /// adapter that keeps metadata (the mirror keeps none).
    case metadata

    /// `nil` when the request is not for a file route.
    init?(method: String, path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard parts.first == "files" else { return nil }
        switch (method, parts.count) {
        case ("POST", 1): self = .unnamedUpload
        case ("POST", 2): self = .upload(name: parts[1])
        case ("GET", 3): self = .download(applicationId: parts[1], name: parts[2])
        case ("GET", 4) where parts[2] == "metadata": self = .metadata
        case ("DELETE", 2): self = .delete(name: parts[1])
        default: return nil
        }
    }
}

extension ParseMirrorAPI {
    /// Answers a file route. Names are checked with Parse's rule before any path is made from
    /// them; the body size is bounded by the HTTP server's limit (413 beyond it, as Parse Server's
    /// `maxUploadSize`).
    func fileRoute(_ endpoint: FileEndpoint, _ http: HTTPRequest) throws -> HTTPResponse {
        switch endpoint {
        case .unnamedUpload:
            throw APIError.parse(ParseErrorCode.invalidFileName, "Filename not provided.")
        case .upload(let name):
            let caller = try fileCaller(http)
            return try upload(http, name: name, caller: caller).httpResponse
        case .download(let applicationId, let name):
            guard applicationId == configuration.applicationId else {
                var denied = APIResponse(error: APIError.parse(ParseErrorCode.operationForbidden, "Invalid application ID."))
                denied.status = 403
                return denied.httpResponse
            }
            return download(name: name)
        case .metadata:
            return APIResponse(JSONObject()).httpResponse
        case .delete(let name):
            guard try fileCaller(http).hasMasterKey else { throw APIError.masterKeyRequired }
            guard (try? files.delete(name: name)) == true else { throw APIError.parse(ParseErrorCode.fileDeleteError, "Could not delete file.") }
            var response = APIResponse(JSONObject()).httpResponse
            response.headers.set("Content-Type", "text/plain")
            response.body = []
            return response
        }
    }

    /// The caller of a file request, from its headers only (the body is the file).
    private func fileCaller(_ http: HTTPRequest) throws -> Caller {
        try Caller.authenticate(
            Credentials(headers: http.headers, body: nil), remoteAddress: http.remoteAddress,
            configuration: configuration, data: DataAccess(store: store, batch: nil))
    }

    /// `POST /files/:name`: 201 `{"url","name"}` with a `Location` header. The name gets
    /// Parse's 32-hex prefix, and an extension from the `Content-Type` when it has none; the
    /// type itself is not kept (downloads are typed by the name).
    private func upload(_ http: HTTPRequest, name: String, caller: Caller) throws -> APIResponse {
        try checkUploadAllowed(caller)
        if let problem = ParseNames.fileNameProblem(name) { throw APIError.parse(ParseErrorCode.invalidFileName, problem) }
        let sentType = http.headers["Content-Type"].flatMap { Self.isHeaderText($0) ? $0 : nil }
        let hasExtension = name.dropFirst().contains(".")
        if !caller.isMaster, let blocked = Self.blockedExtension(name: name, hasExtension: hasExtension, contentType: sentType) {
            throw APIError.parse(ParseErrorCode.fileSaveError, "File upload of extension \(blocked) is disabled.")
        }
        guard !http.body.isEmpty else { throw APIError.parse(ParseErrorCode.fileSaveError, "Invalid file upload.") }
        var fileName = name
        if !hasExtension, let type = sentType, let fileExtension = MediaTypes.fileExtension(forType: type) { fileName += "." + fileExtension }
        let stored = RandomTokens.hex32() + "_" + fileName
        do {
            try files.save(http.body, name: stored)
        } catch {
            throw APIError.parse(ParseErrorCode.fileSaveError, "Could not store file: \(stored).")
        }
        let url = fileURL(stored, publicURL: publicURL(http))
        return APIResponse(JSONObject(["url": .string(url), "name": .string(stored)]), status: 201, location: url)
    }

    /// 130 unless `fileUpload` lets this caller upload: the master key always may.
    private func checkUploadAllowed(_ caller: Caller) throws {
        guard !caller.isMaster else { return }
        let options = configuration.fileUpload
        guard let userId = caller.userId else {
            guard options.enableForPublic else { throw APIError.parse(ParseErrorCode.fileSaveError, "File upload by public is disabled.") }
            return
        }
        if try isAnonymous(userId: userId) {
            guard options.enableForAnonymousUser else { throw APIError.parse(ParseErrorCode.fileSaveError, "File upload by anonymous user is disabled.") }
        } else {
            guard options.enableForAuthenticatedUser else {
                throw APIError.parse(ParseErrorCode.fileSaveError, "File upload by authenticated user is disabled.")
            }
        }
    }

    /// Whether the user signed in through anonymous `authData` (Parse's `AnonymousUtils.isLinked`).
    private func isAnonymous(userId: String) throws -> Bool {
        try store.read { connection in
            guard !(try connection.database.rows("SELECT 1 FROM pragma_table_info('_User') WHERE name = 'authData'")).isEmpty,
                let text = try connection.database.rows("SELECT authData FROM _User WHERE objectId = ?1", [userId]).first?[0] ?? nil,
                case .object(let authData)? = try? JSONParser.parse(text)
            else { return false }
            if let anonymous = authData["anonymous"], anonymous != .null { return true }
            return false
        }
    }

    /// The extension Parse Server's default `fileExtensions` refuses for this upload (`html`,
    /// `htm`, any case), from the name or else from the content type's subtype; `nil` when allowed.
    private static func blockedExtension(name: String, hasExtension: Bool, contentType: String?) -> String? {
        var candidate: Substring?
        if hasExtension, let dot = name.lastIndex(of: ".") {
            candidate = name[name.index(after: dot)...]
        } else if let contentType, let slash = contentType.firstIndex(of: "/") {
            candidate = contentType[contentType.index(after: slash)...].split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
        }
        guard let text = candidate?.filter({ !$0.isWhitespace }), ["html", "htm"].contains(text.lowercased()) else { return nil }
        return text
    }

    /// Printable ASCII only: a stored content type is sent back as a header.
    private static func isHeaderText(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy { (0x20...0x7E).contains($0) }
    }

    /// `GET /files/:appId/:name`: the bytes, typed by the file name's extension as Parse Server's
    /// `FilesRouter.getHandler` types them (`mime.getType(filename)`), whatever type the uploader
    /// sent: `x.txt` uploaded as `text/html` is served as `text/plain`. An unknown extension is
    /// `application/octet-stream`. A type a browser runs scripts in (HTML, SVG, XML, which the
    /// master key may upload) also gets `Content-Security-Policy: sandbox`. 404 "File not found.".
    private func download(name: String) -> HTTPResponse {
        var response = APIResponse(JSONObject()).httpResponse
        guard let bytes = files.load(name: name) else {
            response.status = 404
            response.headers.set("Content-Type", "text/plain")
            response.body = Array("File not found.".utf8)
            return response
        }
        let type = MediaTypes.type(forFileName: name) ?? MediaTypes.fallback
        response.headers.set("Content-Type", type)
        response.headers.set("X-Content-Type-Options", "nosniff")
        if Self.scriptableTypes.contains(type) { response.headers.set("Content-Security-Policy", "sandbox") }
        response.body = bytes
        return response
    }

    /// Types whose documents run scripts when opened from the API's origin.
    private static let scriptableTypes: Set = ["text/html", "image/svg+xml", "application/xml"]

    /// Where a stored file is served: `<publicURL>/files/<appId>/<name>`, the name encoded as
    /// JavaScript's `encodeURIComponent` does (Parse's `getFileLocation`).
    func fileURL(_ name: String, publicURL: String) -> String {
        publicURL + "/files/" + Self.uriComponent(configuration.applicationId) + "/" + Self.uriComponent(name)
    }

    private static func uriComponent(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()".utf8)

    /// `body` with the `url` of every File value pointing at this server, for the files stored
    /// here and those stored without a URL (Parse stores only the name and computes the URL on
    /// read). A File with a URL elsewhere whose file is not here (a mirror pulled from another
    /// server) keeps it.
    func withFileURLs(_ body: JSONValue, publicURL: String) -> JSONValue {
        switch body {
        case .object(var object):
            if object["__type"] == .string("File"), case .string(let name)? = object["name"] {
                if object["url"] == nil || files.contains(name: name) { object["url"] = .string(fileURL(name, publicURL: publicURL)) }
                return .object(object)
            }
            return .object(JSONObject(object.members.map { JSONMember($0.key, withFileURLs($0.value, publicURL: publicURL)) }))
        case .array(let items):
            return .array(items.map { withFileURLs($0, publicURL: publicURL) })
        default:
            return body
        }
    }
}
