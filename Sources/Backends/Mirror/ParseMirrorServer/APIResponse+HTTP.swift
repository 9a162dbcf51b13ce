import ParseRules
import PorterHTTP

extension APIResponse {
    /// The HTTP response: JSON, never cached (ParseSwift on Linux caches by path, Docs/ParseSwift.md#caching), open to
    /// browser apps on any origin as Parse Server's `allowCrossDomain` makes it.
    var httpResponse: HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json; charset=utf-8")
        headers.add("Cache-Control", "no-store")
        headers.add("Access-Control-Allow-Origin", "*")
        headers.add("Access-Control-Allow-Methods", "GET,PUT,POST,DELETE,OPTIONS")
        headers.add("Access-Control-Allow-Headers", Self.allowedHeaders)
        if let location { headers.add("Location", location) }
        return HTTPResponse(status: status, headers: headers, body: Array(body.serialized().utf8))
    }

    private static let allowedHeaders = [
        "X-Parse-Master-Key", "X-Parse-REST-API-Key", "X-Parse-Javascript-Key", "X-Parse-Client-Key", "X-Parse-Application-Id",
        "X-Parse-Client-Version", "X-Parse-Session-Token", "X-Requested-With", "X-Parse-Revocable-Session", "X-Parse-Request-Id",
        "X-Parse-Installation-Id", "X-Parse-Maintenance-Key", "Content-Type", "Pragma", "Cache-Control",
    ].joined(separator: ", ")
}
