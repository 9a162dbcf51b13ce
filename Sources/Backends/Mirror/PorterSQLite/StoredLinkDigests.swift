import CSQLite
import ParseModel
import PorterCore

/// A digest of each owner's stored links in one join table, read in one ordered scan, so that a
/// re-import can tell an owner whose links stay as they are without looking them up (a B-tree
/// seek per owner, since objectIds are in no order).
///
/// An owner's digest is the wrapping sum of a 64-bit hash of each related objectId, so the same
/// set gives the same digest in any order; what is kept, 8 bytes per owner, is the owner's own
/// hash (made differently, so that owner and related ids do not cancel out) mixed with it. An
/// owner's links pass for the given ones when the keys are equal: a wrong match has a chance
/// of about one in 2⁶⁴ per stored owner. The hashes are seeded per process (``seed``): they
/// compare only within the process that made them.
struct StoredLinkDigests {
    /// Each owner's hash mixed with its digest, grouped by bucket (their top bits).
    private let keys: [UInt64]
    /// For each bucket, the index in ``keys`` of its first key (and one more element: the end).
    private let starts: [Int32]
    /// How far to shift a key to get its bucket.
    private let shift: UInt64
    /// Owners whose links must be looked up: one of their stored values is not text, or their
    /// links changed since the scan.
    private var unknownOwners: Set<UInt64> = []

    /// Reads every link of the join table `table` of `db`, in one scan in owner order.
    init(scanning table: String, of db: SQLiteDatabase, expectedOwners: Int) throws(PorterError) {
        try self.init(scanning: try db.prepare("SELECT owningId, relatedId FROM \(quoted(table)) ORDER BY owningId"), expectedOwners: expectedOwners)
    }

    /// Reads `select`'s rows (`owningId`, `relatedId`, ordered by `owningId`) to their end;
    /// `expectedOwners` sizes the storage up front.
    init(scanning select: SQLiteStatement, expectedOwners: Int) throws(PorterError) {
        var keys: [UInt64] = []
        keys.reserveCapacity(expectedOwners)
        var unknownOwners: Set<UInt64> = []
        let seed = Self.seed
        // The owner whose rows are being read, by its hash (as owners are known everywhere here:
        // two that shared one would have their links summed together, and match neither's).
        var hasOwner = false  // false before the first row and for a NULL owningId
        var ownerHash: UInt64 = 0
        var sum: UInt64 = 0
        var valid = true
        func finishOwner() {
            guard hasOwner else { return }
            if valid { keys.append(Self.key(ownerHash, sum)) } else { unknownOwners.insert(ownerHash) }
        }
        defer { select.reset() }
        while try select.step() {
            guard let rowOwner = select.withText(at: 0, { KeyHash.bytes($0, seed: seed.owner) }) else {
                // A NULL owner: its rows are left out.
                finishOwner()
                hasOwner = false
                continue
            }
            if !hasOwner || rowOwner != ownerHash {
                finishOwner()
                (hasOwner, ownerHash, sum, valid) = (true, rowOwner, 0, true)
            }
            if let related = select.withText(at: 1, { KeyHash.bytes($0, seed: seed.related) }) { sum &+= related } else { valid = false }
        }
        finishOwner()
        // About four keys a bucket; the keys are hashes, so buckets fill evenly. They are counted,
        // then copied to their buckets: each copy is a write to memory no cache holds, and the
        // processor overlaps them, where grouping them in place (an American flag sort) waited
        // for each before the next (perf, 1M owners: its swaps were over a third of the scan's
        // samples).
        let bucketBits = max(1, Int.bitWidth - (keys.count / 4).leadingZeroBitCount)
        let shift = UInt64(64 - bucketBits)
        var starts = [Int32](repeating: 0, count: (1 << bucketBits) + 1)
        for key in keys { starts[Int(key >> shift) + 1] += 1 }
        for bucket in 1..<starts.count { starts[bucket] += starts[bucket - 1] }
        var next = starts
        let grouped = [UInt64](unsafeUninitializedCapacity: keys.count) { grouped, count in
            next.withUnsafeMutableBufferPointer { next in
                for key in keys {
                    let bucket = Int(key >> shift)
                    grouped.initializeElement(at: Int(next[bucket]), to: key)
                    next[bucket] += 1
                }
            }
            count = keys.count
        }
        self.shift = shift
        self.keys = grouped
        self.starts = starts
        self.unknownOwners = unknownOwners
    }

    /// For each of `owners` (by ``ownerHash(_:)``), whether it stores exactly its `relatedIds`
    /// (each listed once), as far as the scan and later ``forget(_:)`` calls know; `false` when
    /// unsure. The keys are made first and then looked for in one tight loop: each lookup is a
    /// read from memory no cache holds, and the processor overlaps those of several owners only
    /// when nothing else comes between them (1M owners: 0.7 s of the writer's time before, 0.25 s after).
    func holdAll(_ owners: some Collection<(relatedIds: [String], ownerHash: UInt64)>) -> [Bool] {
        // 0 for an owner the digests do not know (answered `false`: its links are read); an owner
        // whose key happens to be 0 (one chance in 2⁶⁴) is answered `false` too.
        let seed = Self.seed.related
        let wanted = owners.map { owner -> UInt64 in
            guard !unknownOwners.contains(owner.ownerHash) else { return 0 }
            var sum: UInt64 = 0
            for var id in owner.relatedIds { sum &+= id.withUTF8 { KeyHash.bytes(UnsafeRawBufferPointer($0), seed: seed) } }
            return Self.key(owner.ownerHash, sum)
        }
        return keys.withUnsafeBufferPointer { keys in
            starts.withUnsafeBufferPointer { starts in
                wanted.map { key in
                    let bucket = Int(key >> shift)
                    var index = Int(starts[bucket])
                    let end = Int(starts[bucket + 1])
                    while index < end && keys[index] != key { index += 1 }
                    return key != 0 && index < end
                }
            }
        }
    }

    /// Marks the owner's links as changed: they are looked up from now on.
    mutating func forget(_ ownerHash: UInt64) {
        unknownOwners.insert(ownerHash)
    }

    /// The hash an owner is known by.
    static func ownerHash(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { KeyHash.bytes(UnsafeRawBufferPointer($0), seed: seed.owner) }
    }

    /// This process's seeds, one per kind of id (owner and related ids do not cancel out):
    /// digests compare only within one process. Read once per loop, not per id (each read of a
    /// `static let` checks that it is initialised).
    private static let seed = (owner: UInt64.random(in: .min ... .max), related: UInt64.random(in: .min ... .max))

    private static func key(_ ownerHash: UInt64, _ sum: UInt64) -> UInt64 { ownerHash ^ sum }
}
