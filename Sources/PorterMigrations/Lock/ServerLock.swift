import Foundation
import ParseModel
import PorterPipeline

/// The lock on a Parse Server, which has no transactions and no compare-and-set over REST. It
/// rests on the one atomic read-modify-write Parse offers: `{"__op":"Increment"}` is applied by
/// the database (`$inc`, `SET x = x + 1`) and the answer carries the new value.
///
/// One object of the `PorterMigrationLock` class (master key only) holds:
/// - `holders`: a runner increments it; whoever gets 1 holds the lock, anyone else decrements it
///   again and waits. Release decrements it.
/// - `owner`, `beat`: the holder writes its name, and increments `beat` at every heartbeat (a
///   background thread, every third of the time to live), then reads `owner` back: another
///   name there means the lock was taken over, and the runner stops.
/// - `takeovers`: a waiter that has seen the same `owner`, `beat` and `takeovers` for the whole
///   time to live, on its own clock (so clocks of different hosts need not agree), counts the
///   holder dead. It increments `takeovers`; only the waiter that gets exactly the value it saw
///   plus one may take over, and only if `beat` has still not moved. It inherits the dead
///   holder's count in `holders` and writes its own name to `owner`.
/// `heartbeatAt`/`expiresAt` are written for people and `migrate status`, not for the decision.
final class ServerLock: MigrationLock, @unchecked Sendable {
    private let api: ParseAPI
    private let location: String
    private let timing: LockTiming
    private var objectId: String?
    private var owner: String?
    private var heartbeats: Thread?
    private let stop = NSCondition()
    private var stopped = false
    private var lostTo: String?
    private static let className = BookkeepingClasses.lock
    private static let name = "migrations"

    init(api: ParseAPI, location: String, timing: LockTiming) {
        self.api = api
        self.location = location
        self.timing = timing
    }

    func acquire(owner: String, wait: Double) throws(PorterError) {
        let objectId = try lockObject()
        let deadline = Date().addingTimeInterval(wait)
        var observed: (state: LockState, since: Date)?
        while true {
            if try increment("holders", by: 1, objectId) == 1 {
                try takeOwnership(owner, objectId)
                return
            }
            _ = try increment("holders", by: -1, objectId)
            let state = try read(objectId)
            if observed?.state != state {
                observed = (state, Date())
            } else if let since = observed?.since, Date().timeIntervalSince(since) >= timing.timeToLive {
                if try increment("takeovers", by: 1, objectId) == state.takeovers + 1, try read(objectId).beat == state.beat {
                    try takeOwnership(owner, objectId)
                    return
                }
                observed = nil
            }
            if Date() >= deadline { throw LockMessages.stillHeld(location, state.holder, waited: wait) }
            Thread.sleep(forTimeInterval: timing.poll)
        }
    }

    func heartbeat() throws(PorterError) {
        stop.lock()
        let lost = lostTo
        stop.unlock()
        if lost != nil, let owner { throw LockMessages.lost(location, owner: owner) }
        try beat()
    }

    func release() {
        stopHeartbeats()
        guard let objectId, let owner else { return }
        self.owner = nil
        guard let state = try? read(objectId), state.owner == owner else { return }
        _ = try? api.send("PUT", path(objectId), body: .object(JSONObject([
            "owner": .string(""), "heartbeatAt": Self.delete, "expiresAt": Self.delete, "beat": Self.increment(1),
        ])))
        _ = try? increment("holders", by: -1, objectId)
    }

    func holder() throws(PorterError) -> LockHolder? {
        guard let objectId = try findLockObject() else { return nil }
        return try read(objectId).holder
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
    private func lockObject() throws(PorterError) -> String {
        if let objectId { return objectId }
        if let found = try findLockObject() {
            objectId = found
            return found
        }
        let number = JSONValue.object(JSONObject(["type": .string("Number")]))
        let string = JSONValue.object(JSONObject(["type": .string("String")]))
        let date = JSONValue.object(JSONObject(["type": .string("Date")]))
        try MasterOnly.createClass(Self.className, JSONObject([
            "fields": .object(JSONObject(["name": string, "owner": string, "holders": number, "beat": number, "takeovers": number,
                                          "heartbeatAt": date, "expiresAt": date])),
            "classLevelPermissions": MasterOnly.classLevelPermissions,
        ]), api: api)
        do {
            _ = try api.send("POST", "/classes/\(Self.className)", body: .object(JSONObject([
                "name": .string(Self.name), "owner": .string(""), "holders": .integer(0), "beat": .integer(0), "takeovers": .integer(0),
            ])))
        } catch {
            throw error.porterError("creating the migration lock in \(Self.className)")
        }
        guard let found = try findLockObject() else { throw PorterError(.target, "\(location): the migration lock object vanished after it was created") }
        objectId = found
        return found
    }

    private func findLockObject() throws(PorterError) -> String? {
        let answer: JSONValue
        do {
            answer = try api.send("GET", "/classes/\(Self.className)", query: [
                ("where", JSONValue.object(JSONObject(["name": .string(Self.name)])).serialized()), ("order", "createdAt,objectId"), ("limit", "1"),
            ], body: nil)
        } catch {
            throw error.porterError("reading the migration lock")
        }
        guard case .array(let results)? = answer["results"] else { return nil }
        return results.first?["objectId"]?.stringValue
    }

    private func read(_ objectId: String) throws(PorterError) -> LockState {
        let object: JSONValue
        do { object = try api.send("GET", path(objectId)) } catch { throw error.porterError("reading the migration lock") }
        func date(_ key: String) -> ParseDate? {
            guard let json = object[key], case .date(let value)? = try? ParseValue(wire: json, as: .date) else { return nil }
            return value
        }
        return LockState(owner: object["owner"]?.stringValue ?? "", beat: Self.integer(object["beat"]),
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
    private func increment(_ field: String, by amount: Int64, _ objectId: String) throws(PorterError) -> Int64 {
        let answer: JSONValue
        do { answer = try api.send("PUT", path(objectId), body: .object(JSONObject([field: Self.increment(amount)]))) } catch {
            throw error.porterError("updating the migration lock")
        }
        guard answer[field] != nil else { throw PorterError(.target, "\(location): the server did not answer the new value of \(Self.className).\(field)") }
        return Self.integer(answer[field])
    }

    // MARK: - Holding

    private func takeOwnership(_ owner: String, _ objectId: String) throws(PorterError) {
        self.owner = owner
        try beat(writingOwner: true)
        startHeartbeats()
    }

    /// Writes a heartbeat, then checks the lock is still this runner's.
    private func beat(writingOwner: Bool = false) throws(PorterError) {
        guard let objectId, let owner else { return }
        let now = ParseDate.now
        var body = JSONObject([
            "beat": Self.increment(1), "heartbeatAt": ParseValue.date(now).wireJSON,
            "expiresAt": ParseValue.date(timing.expiry(from: now)).wireJSON,
        ])
        if writingOwner { body["owner"] = .string(owner) }
        do { _ = try api.send("PUT", path(objectId), body: .object(body)) } catch { throw error.porterError("sending a heartbeat to the migration lock") }
        let state = try read(objectId)
        guard state.owner == owner else {
            stop.lock()
            lostTo = state.owner
            stop.unlock()
            throw LockMessages.lost(location, owner: owner)
        }
    }

    private func startHeartbeats() {
        stop.lock()
        stopped = false
        lostTo = nil
        stop.unlock()
        let thread = Thread { [weak self] in self?.sendHeartbeats() }
        heartbeats = thread
        thread.start()
    }

    private func sendHeartbeats() {
        while true {
            stop.lock()
            let deadline = Date().addingTimeInterval(timing.heartbeatInterval)
            while !stopped && Date() < deadline { _ = stop.wait(until: deadline) }
            let done = stopped || lostTo != nil
            stop.unlock()
            if done { return }
            // A failed heartbeat is retried at the next interval; a lost lock ends the thread.
            try? beat()
        }
    }

    private func stopHeartbeats() {
        stop.lock()
        stopped = true
        stop.broadcast()
        stop.unlock()
        heartbeats = nil
    }
}
