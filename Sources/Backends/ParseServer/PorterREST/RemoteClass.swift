import ParseModel

/// What the server holds of one class: its objects by natural key (pointer parts as the
/// server's objectIds), or by objectId when the class has no key, with a digest per field.
/// Objects the loader writes are bound to them by the loader's identity (the id it derived
/// from the natural key, or the source objectId). Field values themselves are not kept.
final class RemoteClass {
    struct Entry {
        var serverId: String
        /// One digest per ``RemoteClass/fieldNames`` entry.
        var digests: [UInt64]
        /// Created by this import: it had no relation links before.
        var createdNow: Bool
        /// How the object is named to people: its key's values (joined by `/`), for `--prune`'s report.
        var label: String? = nil
    }

    let className: String
    /// The natural key's fields; empty when objects are identified by objectId.
    let key: [String]
    /// The fields compared before an update: every non-relation field of the class, then `ACL`.
    let fieldNames: [String]
    let fieldPositions: [String: Int]
    private var entries: [Entry] = []
    private var byKey: [KeyHash: Int] = [:]
    private var byIdentity: [String: Int] = [:]

    init(className: String, key: [String], fieldNames: [String]) {
        self.className = className
        self.key = key
        self.fieldNames = fieldNames + ["ACL"]
        self.fieldPositions = Dictionary(uniqueKeysWithValues: self.fieldNames.enumerated().map { ($1, $0) })
    }

    var emptyDigests: [UInt64] { Array(repeating: 0, count: fieldNames.count) }

    /// The key of an object with these field values (pointers holding server objectIds); `nil`
    /// when a key part is missing. Without a natural key, the object's `serverId`.
    func serverKey(_ value: (String) -> ParseValue?, serverId: String?) -> KeyHash? {
        Self.serverKey(className: className, key: key, value, serverId: serverId)
    }

    static func serverKey(className: String, key: [String], _ value: (String) -> ParseValue?, serverId: String?) -> KeyHash? {
        guard !key.isEmpty else { return serverId.map { KeyHash(className: className, key: $0) } }
        var parts: [ParseValue] = []
        for name in key {
            guard let part = value(name) else { return nil }
            parts.append(part)
        }
        return NaturalKey.text(of: parts).map { KeyHash(className: className, key: $0) }
    }

    /// Records an object read from the server; of two with one key, the first stays.
    func recordExisting(key: KeyHash, _ entry: Entry) {
        guard byKey[key] == nil else { return }
        byKey[key] = entries.count
        entries.append(entry)
    }

    /// The server's object for a loader identity, binding it on first sight via its key.
    func entry(identity: String, key: KeyHash?) -> Entry? {
        if let index = byIdentity[identity] { return entries[index] }
        guard let key, let index = byKey[key] else { return nil }
        byIdentity[identity] = index
        return entries[index]
    }

    /// The server's object for a loader identity already seen.
    subscript(identity: String) -> Entry? { byIdentity[identity].map { entries[$0] } }

    /// Records an object this import created.
    func recordCreated(identity: String, key: KeyHash?, _ entry: Entry) {
        let index = entries.count
        entries.append(entry)
        byIdentity[identity] = index
        if let key { byKey[key] = index }
    }

    /// The objects read from the server that no identity in `identities` is bound to and whose
    /// key is not in `keys`: those `--prune` deletes.
    func entries(notHeld identities: Set<String>, keys: Set<KeyHash>) -> [Entry] {
        var held = Set(identities.compactMap { byIdentity[$0] })
        for key in keys { if let index = byKey[key] { held.insert(index) } }
        return entries.indices.filter { !held.contains($0) && !entries[$0].createdNow }.map { entries[$0] }
    }

    /// The objects read from the server (not those this import created).
    var existingEntries: [Entry] { entries.filter { !$0.createdNow } }

    func update(identity: String, digests: [(position: Int, digest: UInt64)]) {
        guard let index = byIdentity[identity] else { return }
        for (position, digest) in digests { entries[index].digests[position] = digest }
    }
}
