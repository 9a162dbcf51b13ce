import ParseModel

/// The objects of one class seen so far, by natural key and by source objectId: what
/// references resolve against and what finds duplicates. Keys are kept as 128-bit hashes,
/// so memory per object stays small whatever the key's length.
final class KeyIndex {
    let className: String
    private var byKey = KeyHashTable()
    /// objectIds given by the source, by key hash (only for classes whose records carry them).
    private var explicitIds: [KeyHash: String] = [:]
    /// Objects whose source gave their objectId: line + 1, negative when rejected.
    private var byObjectId: [String: Int32] = [:]

    init(className: String) { self.className = className }

    enum Registration: Equatable { case added, duplicateKey(firstLine: Int), duplicateObjectId(firstLine: Int) }

    /// Records an object; a key or objectId seen before is a duplicate and is not recorded.
    /// `keyHash` is the object's ``KeyHash`` (computed once, by the mapper), if it has a key.
    func register(objectId: String, keyHash hash: KeyHash?, explicitId: Bool, line: Int) -> Registration {
        if explicitId, let existing = byObjectId[objectId] { return .duplicateObjectId(firstLine: Int(abs(existing)) - 1) }
        if let hash {
            if let existing = byKey.insert(hash, line: line) { return .duplicateKey(firstLine: existing.line) }
            if explicitId { explicitIds[hash] = objectId }
        }
        if explicitId { byObjectId[objectId] = Int32(clamping: line + 1) }
        return .added
    }

    /// Marks an object rejected, so that references to it are rejected too.
    func reject(objectId: String, keyHash: KeyHash?) {
        if let keyHash { byKey.markRejected(keyHash) }
        if let stored = byObjectId[objectId], stored > 0 { byObjectId[objectId] = -stored }
    }

    enum Lookup: Equatable { case found(objectId: String, line: Int), rejected(line: Int), missing }

    func lookup(_ identity: ObjectReference.Identity) -> Lookup {
        switch identity {
        case .key(let key):
            let hash = KeyHash(className: className, key: key)
            guard let entry = byKey[hash] else { return .missing }
            if entry.rejected { return .rejected(line: entry.line) }
            return .found(objectId: explicitIds.isEmpty ? hash.objectId : explicitIds[hash] ?? hash.objectId, line: entry.line)
        case .objectId(let id):
            guard let stored = byObjectId[id] else { return .missing }
            if stored < 0 { return .rejected(line: Int(-stored) - 1) }
            return .found(objectId: id, line: Int(stored) - 1)
        }
    }
}
