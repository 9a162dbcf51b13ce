import Foundation
import MirrorQuery
import ParseModel
import ParseRules
import PorterHTTP

/// `POST /batch`: `{"requests":[{"method","path","body"}],"transaction":bool}`.
extension ParseMirrorAPI {
    /// Runs the sub-requests in request order with the outer request's credentials and answers
    /// `[{"success":…}|{"error":{"code","error"}}]`. More than ``RequestLimits/batchRequests``
    /// sub-requests, or a path without the mount path or naming no route (or `/batch`), is 107
    /// before anything runs.
    ///
    /// Passwords of user writes are hashed before the write lock is taken. Without `transaction`
    /// the lock is held only for writes: reads and log-ins (``ParseRoute/runsOutsideWriteLock``) run
    /// outside it, each as its own request; consecutive writes share one write transaction, and a
    /// failed write is undone alone (a savepoint). With it every sub-request runs in order in one
    /// write transaction, so a read sees the batch's earlier writes, and any failure undoes every
    /// write and is answered 500 `{"code":1,"message":"Internal server error."}`, as Parse Server's.
    ///
    /// A batch holds the write lock at most ``RequestLimits/batchLockTime`` while another request
    /// waits for it, and a transactional one at most ``RequestLimits/queryTimeLimit`` in any case
    /// (``LockHold``): past that a transactional batch is undone and answered 124 (its running
    /// query is cut short too), and one without `transaction` commits what it has written, lets
    /// the waiting writers go first, and goes on.
    func batch(_ request: APIRequest, caller: Caller, data outer: DataAccess) throws -> APIResponse {
        guard case .array(let items)? = request.body["requests"] else { throw APIError.parse(.invalidJSON, "requests must be an array") }
        let limit = configuration.limits.batchRequests
        guard items.count <= limit else {
            throw APIError.parse(
                .invalidJSON,
                "Batch request contains \(items.count) sub-requests, which exceeds the limit of \(limit).")
        }
        let transactional = request.body["transaction"] == .bool(true)
        let requests = try items.map { item throws -> (route: ParseRoute, request: APIRequest) in
            guard case .string(let target)? = item["path"] else { throw APIError.parse(.invalidJSON, "cannot route batch path undefined") }
            let path = String(target.prefix { $0 != "?" })
            guard let routed = routePath(path) else { throw APIError.parse(.invalidJSON, "cannot route batch path \(target)") }
            let method = item["method"]?.stringValue ?? ""
            guard let route = ParseRoute(method: method, path: routed) else { throw APIError.parse(.invalidJSON, "cannot route \(method) \(path)") }
            if case .batch = route { throw APIError.parse(.invalidJSON, "nested batch requests are not allowed: \(path)") }
            var body = JSONObject()
            if case .object(let given)? = item["body"] { body = given }
            var subrequest = APIRequest(
                method: method, path: routed, body: body, query: HTTPRequest.queryPairs(target.drop { $0 != "?" }.dropFirst()),
                credentials: request.credentials, publicURL: request.publicURL)
            subrequest.budget = request.budget
            subrequest.passwordHash = Self.passwordHash(for: subrequest, route, caller: caller)
            return (route, subrequest)
        }
        var results = [JSONValue?](repeating: nil, count: requests.count)
        // A batch run inside another's transaction (a MirrorSession's) takes no lock of its own.
        let limits = configuration.limits, takesLock = outer.batch == nil
        if transactional {
            let stopped = ParseError(
                .timeout,
                "The batch held the write lock longer than the server allows (\(limits.batchLockTime.formatted()) s "
                    + "while other requests wait, \(limits.queryTimeLimit.formatted()) s in all); nothing was written. Split it, or send it without transaction"
            )
            /// Runs sub-request `index`; any failure ends the whole batch, its cause kept for the log.
            func run(_ index: Int, _ data: DataAccess) throws {
                do { results[index] = .object(JSONObject(["success": try route(requests[index].request, caller: caller, data: data).body])) } catch {
                    let failure = APIError(error)
                    if failure.answer.code == stopped.code && failure.answer.message == stopped.message { throw stopped }
                    throw APIError.internalFailure("transactional batch request \(index) failed: \(failure.cause ?? failure.answer.message)")
                }
            }
            // In request order, reads included, so a read sees the batch's earlier writes.
            try outer.write { connection in
                let data = DataAccess(store: store, batch: connection)
                let hold = LockHold(store: store, limits: limits, transactional: true)
                let reader = try connection.reader()
                if takesLock { reader.cutoff = QueryCutoff(error: stopped) { hold.isOver } }
                defer { reader.cutoff = nil }
                for index in requests.indices {
                    if takesLock && hold.isOver { throw stopped }
                    try run(index, data)
                }
            }
            return APIResponse(.array(results.map { $0 ?? .null }))
        }
        var failures: [String] = []
        /// `{"success":body}`, or `{"error":{"code","error"}}` when the route throws (an internal
        /// failure's cause goes to the log, not to the client).
        func outcome(_ index: Int, _ data: DataAccess) -> JSONValue {
            do { return .object(JSONObject(["success": try route(requests[index].request, caller: caller, data: data).body])) } catch {
                let failure = APIError(error)
                if let cause = failure.cause { failures.append("batch request \(index): \(cause)") }
                return .object(JSONObject(["error": failure.body]))
            }
        }
        var index = 0
        while index < requests.count {
            if requests[index].route.runsOutsideWriteLock {
                results[index] = outcome(index, outer)
                index += 1
                continue
            }
            let end = requests[index...].firstIndex { $0.route.runsOutsideWriteLock } ?? requests.endIndex
            while index < end {
                // Until the run ends or the batch must give way: then what is written is committed,
                // and the writers waiting go before the rest of the run.
                try outer.write { connection in
                    let data = DataAccess(store: store, batch: connection)
                    let hold = LockHold(store: store, limits: limits, transactional: false)
                    repeat {
                        try connection.database.execute("SAVEPOINT batch_request")
                        results[index] = outcome(index, data)
                        if results[index]?["error"] != nil { try connection.database.execute("ROLLBACK TO batch_request") }
                        try connection.database.execute("RELEASE batch_request")
                        index += 1
                    } while index < end && !(takesLock && hold.isOver)
                }
            }
        }
        var response = APIResponse(.array(results.map { $0 ?? .null }))
        response.internalFailures = failures
        return response
    }

    /// The bcrypt hash of a user create's or update's `password`, made before the batch takes
    /// the write lock; nil for other sub-requests and bodies without a usable password, whose
    /// sub-request then fails alone with its Parse error (201, 142) when it runs.
    /// An update is hashed only for a caller who may change a user at all (the master key or a
    /// signed-in user): anyone else's is refused with 206 without hashing, so it costs no bcrypt.
    private static func passwordHash(for request: APIRequest, _ route: ParseRoute, caller: Caller) -> String? {
        switch route {
        case .create("_User"): break
        case .update("_User", _) where caller.isMaster || caller.userId != nil: break
        default: return nil
        }
        guard case .string(let password)? = request.body["password"], !password.isEmpty else { return nil }
        return try? Passwords.hash(password)
    }

    /// How long a batch has held the write lock, from when it took it, and whether it must give
    /// way: held ``RequestLimits/batchLockTime`` while another request waits, or (a transactional
    /// batch) ``RequestLimits/queryTimeLimit`` in any case.
    private struct LockHold {
        let store: MirrorStore
        let limits: RequestLimits
        let transactional: Bool
        let since = ContinuousClock.now

        var isOver: Bool {
            let held = ContinuousClock.now - since
            if transactional && held > .milliseconds(Int64(limits.queryTimeLimit * 1000)) { return true }
            return held > .milliseconds(Int64(limits.batchLockTime * 1000)) && store.writeLockIsWaitedFor
        }
    }
}
