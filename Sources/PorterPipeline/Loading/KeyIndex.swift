import ParseModel

/// The objects of one class seen so far, by natural key and by source objectId: what
/// references resolve against and what finds duplicates. Keys are kept as 128-bit hashes,
/// so memory per object stays small whatever the key's length.
struct KeyIndex {
    struct Entry {
        var line: Int32
        var rejected = false
        /// Set only when the objectId is not the one derived from the key (a source `objectId`).
        var explicitObjectId: String?
    }

    let className: String
    private var byKey: [KeyHash: Entry] = [:]
    /// Objects whose source gave their objectId.
    private var byObjectId: [String: Entry] = [:]

    init(className: String) { self.className = className }

    enum Registration: Equatable { case added, duplicateKey(firstLine: Int), duplicateObjectId(firstLine: Int) }

    /// Records a draft; a key or objectId seen before is a duplicate and is not recorded.
    mutating func register(objectId: String, key: String?, explicitId: Bool, line: Int) -> Registration {
        let entry = Entry(line: Int32(clamping: line), explicitObjectId: explicitId ? objectId : nil)
        let hash = key.map { KeyHash(className: className, key: $0) }
        if let hash, let existing = byKey[hash] { return .duplicateKey(firstLine: Int(existing.line)) }
        if explicitId, let existing = byObjectId[objectId] { return .duplicateObjectId(firstLine: Int(existing.line)) }
        if let hash { byKey[hash] = entry }
        if explicitId { byObjectId[objectId] = entry }
        return .added
    }

    /// Marks an object rejected, so that references to it are rejected too.
    mutating func reject(objectId: String, key: String?) {
        if let key { byKey[KeyHash(className: className, key: key)]?.rejected = true }
        byObjectId[objectId]?.rejected = true
    }

    enum Lookup: Equatable { case found(objectId: String, line: Int), rejected(line: Int), missing }

    func lookup(_ identity: ObjectReference.Identity) -> Lookup {
        switch identity {
        case .key(let key):
            let hash = KeyHash(className: className, key: key)
            guard let entry = byKey[hash] else { return .missing }
            if entry.rejected { return .rejected(line: Int(entry.line)) }
            return .found(objectId: entry.explicitObjectId ?? hash.objectId, line: Int(entry.line))
        case .objectId(let id):
            guard let entry = byObjectId[id] else { return .missing }
            if entry.rejected { return .rejected(line: Int(entry.line)) }
            return .found(objectId: id, line: Int(entry.line))
        }
    }
}
