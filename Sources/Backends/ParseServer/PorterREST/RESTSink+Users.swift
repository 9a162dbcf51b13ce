import ParseModel
import PorterCore

/// What a Parse Server over REST does not take as the source has it: timestamps (kept only by
/// a create with the maintenance key) and password hashes (never): Docs/ParseServer.md#users-sessions-and-the-maintenance-key.
extension RESTSink {
    /// Objects whose source timestamps the server did not keep.
    struct TimestampTally {
        /// Created with the server's own `createdAt`/`updatedAt`: it was sent no maintenance key,
        /// or ignored the one it was sent.
        var notKept = 0
        /// Objects (`Class/serverId`) updated after or instead of their create: every update sets
        /// a new `updatedAt`, maintenance key or not (links from join files and cyclic pointers
        /// are written as updates).
        var updated: Set<String> = []
    }

    /// With the maintenance key, a create carries the source's `createdAt` and `updatedAt` as
    /// Dates, which Parse Server (6.5+) then keeps; without it they would be ignored.
    func addTimestamps(of plan: ObjectPlan, to body: inout JSONObject) {
        guard client.address.maintenanceKey != nil, let createdAt = plan.createdAt else { return }
        body["createdAt"] = ParseValue.date(createdAt).wireJSON
        if let updatedAt = plan.updatedAt { body["updatedAt"] = ParseValue.date(updatedAt).wireJSON }
    }

    /// A new `_User` needs a password: with ``RESTSinkOptions/usersWithoutPasswords`` one gets a
    /// random password nobody knows, to be reset; otherwise the server refuses it (201), unless
    /// it has `authData` its provider accepts.
    func addRandomPassword(to body: inout JSONObject) {
        guard options.usersWithoutPasswords, body["password"] == nil else { return }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        body["password"] = .string(String((0..<32).map { _ in alphabet.randomElement(using: &generator)! }))
    }

    /// The summary's lines on timestamps the server set itself.
    public var notes: [String] {
        var notes: [String] = []
        if timestamps.notKept > 0 {
            notes.append(
                "timestamps not kept: \(timestamps.notKept) created objects got the server's createdAt/updatedAt instead of the source's "
                    + "(Parse Server keeps them only on a create with its maintenance key)")
        }
        if !timestamps.updated.isEmpty {
            notes.append(
                "\(timestamps.updated.count) objects got a new updatedAt from an update (changed fields, relation links from join files, "
                    + "cyclic pointers): Parse Server sets one on every update")
        }
        if !danglingAhead.isEmpty {
            let first = danglingAhead.prefix(10).map { "\($0.className) \($0.objectId).\($0.field) → \($0.target.className) \($0.target.objectId)" }
            notes.append(
                "\(danglingAhead.count) references were written before their object, which the server then refused, so they name "
                    + "nothing (a run after the refused objects are fixed sets them right; until then it refuses these objects): "
                    + first.joined(separator: ", ") + (danglingAhead.count > first.count ? ", …" : ""))
        }
        return notes
    }
}
