import Foundation
import ParseModel

/// `POST /batch`: `{"requests":[{"method","path","body"}],"transaction":bool}`.
extension ParseMirrorAPI {
    /// Runs the sub-requests one after another in one write transaction, with the outer
    /// request's credentials, and answers `[{"success":…}|{"error":{"code","error"}}]` in
    /// request order. Every path must carry the mount path and name a route other than
    /// `/batch`, else the whole batch is 107 before anything runs. Without `transaction` a
    /// failed sub-request is undone alone (a savepoint); with it any failure undoes them all
    /// and the answer is 500 `{"code":1,"message":"Internal server error."}`, as Parse Server's.
    func batch(_ request: APIRequest, caller: Caller, data outer: DataAccess) throws -> APIResponse {
        guard case .array(let items)? = request.body["requests"] else { throw APIError.parse(107, "requests must be an array") }
        let transactional = request.body["transaction"] == .bool(true)
        let requests = try items.map { item throws -> APIRequest in
            guard case .string(let target)? = item["path"] else { throw APIError.parse(107, "cannot route batch path undefined") }
            let path = String(target.prefix { $0 != "?" })
            guard let routed = routePath(path) else { throw APIError.parse(107, "cannot route batch path \(target)") }
            let method = item["method"]?.stringValue ?? ""
            guard let endpoint = Endpoint(method: method, path: routed) else { throw APIError.parse(107, "cannot route \(method) \(path)") }
            if case .batch = endpoint { throw APIError.parse(107, "nested batch requests are not allowed: \(path)") }
            var body = JSONObject()
            if case .object(let given)? = item["body"] { body = given }
            return APIRequest(method: method, path: routed, body: body, query: Self.queryPairs(target.drop { $0 != "?" }.dropFirst()),
                              credentials: request.credentials, publicURL: request.publicURL)
        }
        return try outer.write { connection in
            let data = DataAccess(store: store, batch: connection)
            var results: [JSONValue] = []
            var failures: [String] = []
            for (index, subrequest) in requests.enumerated() {
                if transactional {
                    do { results.append(.object(JSONObject(["success": try route(subrequest, caller: caller, data: data).body]))) } catch {
                        let failure = APIError(error)
                        throw APIError.internalFailure("transactional batch request \(index) failed: \(failure.cause ?? failure.message)")
                    }
                    continue
                }
                try connection.database.execute("SAVEPOINT batch_request")
                do {
                    let response = try route(subrequest, caller: caller, data: data)
                    try connection.database.execute("RELEASE batch_request")
                    results.append(.object(JSONObject(["success": response.body])))
                } catch {
                    try connection.database.execute("ROLLBACK TO batch_request")
                    try connection.database.execute("RELEASE batch_request")
                    let failure = APIError(error)
                    results.append(.object(JSONObject(["error": failure.body])))
                    if let cause = failure.cause { failures.append("batch request \(index): \(cause)") }
                }
            }
            var response = APIResponse(.array(results))
            response.internalFailures = failures
            return response
        }
    }

    /// `a=1&b=%7B%7D` → `[("a","1"),("b","{}")]`, `+` read as a space.
    private static func queryPairs(_ query: Substring) -> [(name: String, value: String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}
