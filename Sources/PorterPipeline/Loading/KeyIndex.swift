import ParseModel

/// The objects of one class seen so far, by natural key and by source objectId: what
/// references resolve against and what finds duplicates. Keys are kept as 128-bit hashes,
/// so memory per object stays small whatever the key's length.
///
/// Used by one thread at a time, and no access to its tables overlaps another: they are
/// `@exclusivity(unchecked)`, which spares the runtime's check on each lookup (see
/// `Benchmarks/RESULTS.md`, issue 37 part 1).
final class KeyIndex {
    let className: String
    private let hasher: KeyHasher
    @exclusivity(unchecked) private var byKey = KeyHashTable()
    /// objectIds given by the source, by key hash (only for classes whose records carry them).
    @exclusivity(unchecked) private var explicitIds: [KeyHash: String] = [:]
    /// Objects whose source gave their objectId: line + 1, negative when rejected.
    @exclusivity(unchecked) private var byObjectId: [String: Int32] = [:]
    /// The fields whose values `by:` references name, and the objects by those values.
    let uniqueFields: [String]
    @exclusivity(unchecked) private var byField: [String: [KeyHash: UniqueValue]] = [:]

    /// The object a value of a `by:` field names, and the line of a second object with the same
    /// value, which makes references by it ambiguous.
    private struct UniqueValue {
        let objectId: String
        let keyHash: KeyHash?
        let line: Int
        var otherLine: Int?
    }

    init(className: String, uniqueFields: [String] = []) {
        self.className = className
        self.hasher = KeyHasher(className: className)
        self.uniqueFields = uniqueFields
    }

    enum Registration: Equatable { case added, duplicateKey(firstLine: Int), duplicateObjectId(firstLine: Int) }

    /// Records an object; a key or objectId seen before is a duplicate and is not recorded.
    /// `keyHash` is the object's ``KeyHash`` (computed once, by the mapper), if it has a key;
    /// `objectId` is read only when the source gave it (`explicitId`).
    func register(objectId: @autoclosure () -> String, keyHash hash: KeyHash?, explicitId: Bool, line: Int) -> Registration {
        let givenId = explicitId ? objectId() : nil
        if let givenId, let existing = byObjectId[givenId] { return .duplicateObjectId(firstLine: Int(abs(existing)) - 1) }
        if let hash {
            if let existing = byKey.insert(hash, line: line) { return .duplicateKey(firstLine: existing.line) }
            if let givenId { explicitIds[hash] = givenId }
        }
        if let givenId { byObjectId[givenId] = Int32(clamping: line + 1) }
        return .added
    }

    /// Reads where `keyHash` is kept (see ``KeyHashTable/touch(_:)``).
    func touch(_ keyHash: KeyHash) -> Int32 { byKey.touch(keyHash) }

    /// Marks an object rejected, so that references to it are rejected too.
    func reject(objectId: String, keyHash: KeyHash?) {
        if let keyHash { byKey.markRejected(keyHash) }
        if let stored = byObjectId[objectId], stored > 0 { byObjectId[objectId] = -stored }
    }

    /// Records the value (canonical text) of a `by:` field of an object registered before; a
    /// value seen before keeps its first object and notes the second line.
    func register(field: String, value: String, objectId: String, keyHash: KeyHash?, line: Int) {
        let hash = hasher.hash(value)
        if byField[field]?[hash] != nil {
            if byField[field]![hash]!.otherLine == nil { byField[field]![hash]!.otherLine = line }
        } else {
            byField[field, default: [:]][hash] = UniqueValue(objectId: objectId, keyHash: keyHash, line: line)
        }
    }

    enum Lookup: Equatable {
        case found(FoundObject, line: Int), rejected(line: Int), missing
        /// A `by:` value that two objects have.
        case ambiguous(line: Int, otherLine: Int)
    }

    /// Whether the object `reference` names has been registered (rejected or not): ``lookup(_:)``
    /// without building its answer.
    func knows(_ reference: ObjectReference) -> Bool {
        switch reference.identity {
        case .key: byKey[reference.keyHash!] != nil
        case .objectId(let id): byObjectId[id] != nil
        case .field(let field, let value): byField[field]?[hasher.hash(value)] != nil
        }
    }

    /// The object `reference` names, by its identity (the reference's class is this one).
    func lookup(_ reference: ObjectReference) -> Lookup {
        switch reference.identity {
        case .key:
            let hash = reference.keyHash!
            guard let entry = byKey[hash] else { return .missing }
            if entry.rejected { return .rejected(line: entry.line) }
            return .found(FoundObject(givenId: explicitIds.isEmpty ? nil : explicitIds[hash], keyHash: hash), line: entry.line)
        case .objectId(let id):
            guard let stored = byObjectId[id] else { return .missing }
            if stored < 0 { return .rejected(line: Int(-stored) - 1) }
            return .found(FoundObject(givenId: id), line: Int(stored) - 1)
        case .field(let field, let value):
            guard let entry = byField[field]?[hasher.hash(value)] else { return .missing }
            if let otherLine = entry.otherLine { return .ambiguous(line: entry.line, otherLine: otherLine) }
            let rejected = entry.keyHash.map { byKey[$0]?.rejected == true } ?? ((byObjectId[entry.objectId] ?? 0) < 0)
            return rejected ? .rejected(line: entry.line) : .found(FoundObject(givenId: entry.objectId), line: entry.line)
        }
    }
}

/// An object a reference names, found in a ``KeyIndex``. Its objectId is made when asked for:
/// one derived from the key is a new string, and a validation, which writes nothing, never asks.
struct FoundObject: Equatable {
    /// The objectId the source gave, if any.
    private let givenId: String?
    /// The key's hash, from which the objectId derives when the source gave none.
    private let keyHash: KeyHash?

    init(givenId: String?, keyHash: KeyHash? = nil) {
        precondition(givenId != nil || keyHash != nil, "an object is found by its objectId or its key")
        self.givenId = givenId
        self.keyHash = keyHash
    }

    var objectId: String { givenId ?? keyHash!.objectId }

    static func == (a: FoundObject, b: FoundObject) -> Bool { a.objectId == b.objectId }
}

extension DatasetManifest {
    /// Per class, the fields that `by:` references (of fields and of join files) name it by.
    var fieldsNamedByReferences: [String: [String]] {
        var named: [String: [String]] = [:]
        func add(_ field: String?, of className: String) {
            guard let field, !(named[className] ?? []).contains(field) else { return }
            named[className, default: []].append(field)
        }
        for mapping in classes {
            for field in mapping.fields { if let target = field.type.targetClass { add(field.by, of: target) } }
        }
        for relation in relations {
            add(relation.ownerBy, of: relation.owner)
            add(relation.targetBy, of: relation.targetClass)
        }
        return named
    }
}
