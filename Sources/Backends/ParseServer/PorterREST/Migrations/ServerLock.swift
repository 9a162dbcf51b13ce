import Foundation
import ParseModel
import PorterCore
import Synchronization

/// The lock on a Parse Server, which has no transactions and no compare-and-set over REST. It
/// rests on the one atomic read-modify-write Parse offers: `{"__op":"Increment"}` is applied by
/// the database (`$inc`, `SET x = x + 1`) and the answer carries the new value.
///
/// One object of the `PorterMigrationLock` class (master key only) holds:
/// - `holders`: a runner increments it; whoever gets 1 holds the lock, anyone else decrements it
///   again and waits. Release decrements it.
/// - `owner`, `beat`: the holder writes its name, and increments `beat` at every heartbeat (a
///   background task, every third of the time to live), then reads `owner` back: another
///   name there means the lock was taken over, and the runner stops.
/// - `takeovers`: a waiter that has seen the same `owner`, `beat` and `takeovers` for the whole
///   time to live, on its own clock (so clocks of different hosts need not agree), counts the
///   holder dead. It increments `takeovers`; only the waiter that gets exactly the value it saw
///   plus one may take over, and only if `beat` has still not moved. It inherits the dead
///   holder's count in `holders` and writes its own name to `owner`.
/// `heartbeatAt`/`expiresAt` are written for people and `migrate status`, not for the decision.
final class ServerLock: MigrationLock {
    private let api: ParseAPI
    private let location: String
    private let timing: LockTiming
    private let state = Mutex(Holding())
    private static let className = BookkeepingClasses.lock
    private static let name = "migrations"

    /// What this runner knows of the lock: the lock object, its own name once it holds the
    /// lock, the task sending heartbeats, and who took the lock over when it was lost.
    private struct Holding {
        var objectId: String?
        var owner: String?
        var heartbeats: Task<Void, Never>?
        var lostTo: String?
    }

    private var objectId: String? { state.withLock { $0.objectId } }
    private var owner: String? { state.withLock { $0.owner } }

    init(api: ParseAPI, location: String, timing: LockTiming) {
        self.api = api
        self.location = location
        self.timing = timing
    }

    func acquire(owner: String, wait: Double) async throws(PorterError) {
        let objectId = try await lockObject()
        let deadline = Date().addingTimeInterval(wait)
        var observed: (state: LockState, since: Date)?
        while true {
            // An attempt runs to its end even when the caller is cancelled meanwhile: a count
            // raised and not lowered again would keep the lock from everyone until a takeover.
            let claimed = try await Self.uncancelled { [self] () async throws(PorterError) -> Bool in
                if try await increment("holders", by: 1, objectId) == 1 {
                    try await takeOwnership(owner, objectId)
                    return true
                }
                _ = try await increment("holders", by: -1, objectId)
                return false
            }
            if claimed { return }
            let state = try await read(objectId)
            if observed?.state != state {
                observed = (state, Date())
            } else if let since = observed?.since, Date().timeIntervalSince(since) >= timing.timeToLive {
                if try await increment("takeovers", by: 1, objectId) == state.takeovers + 1, try await read(objectId).beat == state.beat {
                    try await takeOwnership(owner, objectId)
                    return
                }
                observed = nil
            }
            if Date() >= deadline { throw LockMessages.stillHeld(location, state.holder, waited: wait) }
            try await timing.pause(location: location)
        }
    }

    /// Runs `work` in a task of its own, which a cancellation of the caller's does not reach.
    private static func uncancelled<T: Sendable>(_ work: @escaping @Sendable () async throws(PorterError) -> T) async throws(PorterError) -> T {
        let result = await Task { () async -> Result<T, PorterError> in
            do throws(PorterError) { return .success(try await work()) } catch { return .failure(error) }
        }.value
        return try result.get()
    }

    func heartbeat() async throws(PorterError) {
        let (lost, owner) = state.withLock { ($0.lostTo, $0.owner) }
        if lost != nil, let owner { throw LockMessages.lost(location, owner: owner) }
        try await beat()
    }

    func release() async {
        let (objectId, owner) = state.withLock { holding in
            holding.heartbeats?.cancel()
            holding.heartbeats = nil
            defer { holding.owner = nil }
            return (holding.objectId, holding.owner)
        }
        guard let objectId, let owner else { return }
        guard let state = try? await read(objectId), state.owner == owner else { return }
        _ = try? await api.send(
            "PUT", path(objectId),
            body: .object(
                JSONObject([
                    "owner": .string(""), "heartbeatAt": Self.delete, "expiresAt": Self.delete, "beat": Self.increment(1),
                ])))
        _ = try? await increment("holders", by: -1, objectId)
    }

    func holder() async throws(PorterError) -> LockHolder? {
        guard let objectId = try await findLockObject() else { return nil }
        return try await read(objectId).holder
    }

    // MARK: - The lock object

    private struct LockState: Equatable {
        var owner: String
        var beat: Int64
        var takeovers: Int64
        var heartbeatAt: ParseDate?
        var expiresAt: ParseDate?

        var holder: LockHolder? { owner.isEmpty ? nil : LockHolder(owner: owner, heartbeatAt: heartbeatAt, expiresAt: expiresAt) }
    }

    private func path(_ objectId: String) -> String { "/classes/\(Self.className)/\(objectId)" }
    private static let delete = JSONValue.object(JSONObject(["__op": .string("Delete")]))
    private static func increment(_ amount: Int64) -> JSONValue {
        .object(JSONObject(["__op": .string("Increment"), "amount": .integer(amount)]))
    }

    /// The lock object, created with its class when missing. Two runners creating it at once make
    /// two objects; both then use the oldest.
    private func lockObject() async throws(PorterError) -> String {
        if let objectId { return objectId }
        if let found = try await findLockObject() {
            state.withLock { $0.objectId = found }
            return found
        }
        let number = JSONValue.object(JSONObject(["type": .string("Number")]))
        let string = JSONValue.object(JSONObject(["type": .string("String")]))
        let date = JSONValue.object(JSONObject(["type": .string("Date")]))
        try await MasterOnly.createClass(
            Self.className,
            JSONObject([
                "fields": .object(
                    JSONObject([
                        "name": string, "owner": string, "holders": number, "beat": number, "takeovers": number,
                        "heartbeatAt": date, "expiresAt": date,
                    ])),
                "classLevelPermissions": MasterOnly.classLevelPermissions,
            ]), api: api)
        do {
            _ = try await api.send(
                "POST", "/classes/\(Self.className)",
                body: .object(
                    JSONObject([
                        "name": .string(Self.name), "owner": .string(""), "holders": .integer(0), "beat": .integer(0), "takeovers": .integer(0),
                    ])))
        } catch {
            throw error.porterError("creating the migration lock in \(Self.className)")
        }
        guard let found = try await findLockObject() else { throw PorterError(.target, "\(location): the migration lock object vanished after it was created") }
        state.withLock { $0.objectId = found }
        return found
    }

    private func findLockObject() async throws(PorterError) -> String? {
        let answer: JSONValue
        do {
            answer = try await api.send(
                "GET", "/classes/\(Self.className)",
                query: [
                    ("where", JSONValue.object(JSONObject(["name": .string(Self.name)])).serialized()), ("order", "createdAt,objectId"), ("limit", "1"),
                ], body: nil)
        } catch {
            throw error.porterError("reading the migration lock")
        }
        guard case .array(let results)? = answer["results"] else { return nil }
        return results.first?["objectId"]?.stringValue
    }

    private func read(_ objectId: String) async throws(PorterError) -> LockState {
        let object: JSONValue
        do { object = try await api.send("GET", path(objectId)) } catch { throw error.porterError("reading the migration lock") }
        func date(_ key: String) -> ParseDate? {
            guard let json = object[key], case .date(let value)? = try? ParseValue(wire: json, as: .date) else { return nil }
            return value
        }
        return LockState(
            owner: object["owner"]?.stringValue ?? "", beat: Self.integer(object["beat"]),
            takeovers: Self.integer(object["takeovers"]), heartbeatAt: date("heartbeatAt"), expiresAt: date("expiresAt"))
    }

    private static func integer(_ json: JSONValue?) -> Int64 {
        switch json {
        case .integer(let value)?: value
        case .double(let value)?: Int64(value)
        default: 0
        }
    }

    /// Increments `field` and returns its new value, as the server computed it.
    private func increment(_ field: String, by amount: Int64, _ objectId: String) async throws(PorterError) -> Int64 {
        let answer: JSONValue
        do { answer = try await api.send("PUT", path(objectId), body: .object(JSONObject([field: Self.increment(amount)]))) } catch {
            throw error.porterError("updating the migration lock")
        }
        guard answer[field] != nil else { throw PorterError(.target, "\(location): the server did not answer the new value of \(Self.className).\(field)") }
        return Self.integer(answer[field])
    }

    // MARK: - Holding

    private func takeOwnership(_ owner: String, _ objectId: String) async throws(PorterError) {
        state.withLock { $0.owner = owner }
        try await beat(writingOwner: true)
        startHeartbeats()
    }

    /// Writes a heartbeat, then checks the lock is still this runner's.
    private func beat(writingOwner: Bool = false) async throws(PorterError) {
        guard let objectId, let owner else { return }
        let now = ParseDate.now
        var body = JSONObject([
            "beat": Self.increment(1), "heartbeatAt": ParseValue.date(now).wireJSON,
            "expiresAt": ParseValue.date(timing.expiry(from: now)).wireJSON,
        ])
        if writingOwner { body["owner"] = .string(owner) }
        do { _ = try await api.send("PUT", path(objectId), body: .object(body)) } catch { throw error.porterError("sending a heartbeat to the migration lock") }
        let current = try await read(objectId)
        guard current.owner == owner else {
            state.withLock { $0.lostTo = current.owner }
            throw LockMessages.lost(location, owner: owner)
        }
    }

    private func startHeartbeats() {
        let interval = timing.heartbeatInterval
        let heartbeats = Task { [weak self] in
            while true {
                do { try await Task.sleep(for: .seconds(interval)) } catch { return }
                guard let self, self.state.withLock({ $0.lostTo == nil }) else { return }
                // A failed heartbeat is retried at the next interval; a lost lock ends the task.
                try? await self.beat()
            }
        }
        state.withLock { holding in
            holding.heartbeats?.cancel()
            holding.heartbeats = heartbeats
            holding.lostTo = nil
        }
    }
}
