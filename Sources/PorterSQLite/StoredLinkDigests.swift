import CSQLite
import PorterPipeline

/// A digest of each owner's stored links in one join table, read in one ordered scan, so that a
/// re-import can tell an owner whose links stay as they are without looking them up (a B-tree
/// seek per owner, since objectIds are in no order).
///
/// An owner's digest is the wrapping sum of a 64-bit hash of each related objectId, so the same
/// set gives the same digest in any order; what is kept, 8 bytes per owner, is the owner's own
/// hash (made differently, so that owner and related ids do not cancel out) mixed with it. The
/// hashes are Swift `Hasher`s, seeded per process: they compare only within the process that made them.
struct StoredLinkDigests {
    /// Each owner's hash mixed with its digest, sorted.
    private let keys: [UInt64]
    /// For each value of a key's top ``bucketBits`` bits, the index in ``keys`` of its first key
    /// (and one more element: the end).
    private let starts: [Int32]
    private static let bucketBits = 16
    /// Owners whose links must be looked up: two owners share their hash, or one of their stored
    /// values is not text, or their links changed since the scan.
    private var unknownOwners: Set<UInt64> = []

    /// Reads `select`'s rows (`owningId`, `relatedId`, ordered by `owningId`) to their end.
    init(scanning select: SQLiteStatement) throws(PorterError) {
        var keys: [UInt64] = []
        var owners: [UInt64] = []
        var unknownOwners: Set<UInt64> = []
        var owner: [UInt8]?   // the owner whose rows are being read; nil for a NULL owningId
        var ownerHash: UInt64 = 0
        var sum: UInt64 = 0
        var valid = true
        func finishOwner() {
            guard owner != nil else { return }
            owners.append(ownerHash)
            if valid { keys.append(Self.key(ownerHash, sum)) } else { unknownOwners.insert(ownerHash) }
        }
        defer { select.reset() }
        while try select.step() {
            let sameOwner = owner.flatMap { owner in select.withText(at: 0) { $0.elementsEqual(owner) } } ?? false
            if !sameOwner {
                finishOwner()
                owner = select.withText(at: 0) { Array($0) }
                ownerHash = select.withText(at: 0) { Self.ownerHash($0) } ?? 0
                (sum, valid) = (0, true)
            }
            if let related = select.withText(at: 1, { Self.relatedHash($0) }) { sum &+= related } else { valid = false }
        }
        finishOwner()
        // Owners sharing a hash cannot be told apart: both are looked up.
        owners.sort()
        for index in owners.indices.dropFirst() where owners[index] == owners[index - 1] { unknownOwners.insert(owners[index]) }
        owners = []
        keys.sort()
        var starts = [Int32](repeating: 0, count: (1 << Self.bucketBits) + 1)
        for key in keys { starts[Self.bucket(key) + 1] += 1 }
        for bucket in 1..<starts.count { starts[bucket] += starts[bucket - 1] }
        self.keys = keys
        self.starts = starts
        self.unknownOwners = unknownOwners
    }

    /// Whether the owner (by ``ownerHash(_:)``) stores exactly `relatedIds` (each listed once),
    /// as far as the scan and later ``forget(_:)`` calls know; `false` when unsure.
    func holds(_ relatedIds: [String], ofOwner ownerHash: UInt64) -> Bool {
        guard !unknownOwners.contains(ownerHash) else { return false }
        var sum: UInt64 = 0
        for var id in relatedIds { sum &+= id.withUTF8 { Self.relatedHash(UnsafeRawBufferPointer($0)) } }
        let key = Self.key(ownerHash, sum)
        let bucket = Self.bucket(key)
        return keys[Int(starts[bucket])..<Int(starts[bucket + 1])].contains(key)
    }

    /// Marks the owner's links as changed: they are looked up from now on.
    mutating func forget(_ ownerHash: UInt64) {
        unknownOwners.insert(ownerHash)
    }

    /// The hash an owner is known by.
    static func ownerHash(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { ownerHash(UnsafeRawBufferPointer($0)) }
    }

    private static func ownerHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(UInt8(1))
        hasher.combine(bytes: bytes)
        return UInt64(truncatingIfNeeded: hasher.finalize())
    }

    private static func relatedHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(bytes: bytes)
        return UInt64(truncatingIfNeeded: hasher.finalize())
    }

    private static func key(_ ownerHash: UInt64, _ sum: UInt64) -> UInt64 { ownerHash ^ sum }

    private static func bucket(_ key: UInt64) -> Int { Int(key >> UInt64(64 - bucketBits)) }
}
