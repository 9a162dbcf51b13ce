import PorterCore

/// For a re-import into a join table the import did not create: a digest of each owner's stored
/// links, read in one scan, so that owners whose links stay as they are are not sent again (the
/// flush would copy, compare and insert every pair). The idea of the mirror's link digests: an
/// owner's digest is the wrapping sum of a 64-bit hash of each related objectId, the same for a
/// set in any order, so no sort is needed; owners are kept by a hash of their objectId. A wrong
/// match has a chance of about one in 2⁶⁴ per owner. Hashes are seeded per process.
struct StoredLinkSets {
    /// Each stored owner's digest, by the hash of its objectId; an owner leaves once seen.
    private var digests: [UInt64: UInt64] = [:]
    /// The owners seen in this import: whether their links were left out as stored.
    private var seen: [UInt64: Bool] = [:]
    private let ownerSeed = Hasher.random64(), relatedSeed = Hasher.random64()

    /// Reads every link of `table` through a cursor of the import's transaction.
    init(scanning table: String, on db: PostgresConnection, rowsPerFetch: Int = 50_000) throws(PorterError) {
        let cursor = quoted("porter:link-digests")
        try db.execute("DECLARE \(cursor) NO SCROLL CURSOR FOR SELECT \"owningId\", \"relatedId\" FROM \(quoted(table))")
        while true {
            let rows = try db.execute("FETCH \(rowsPerFetch) FROM \(cursor)")
            for row in rows {
                guard let owner = row[0], let related = row[1] else { continue }
                digests[hash(owner, ownerSeed), default: 0] &+= hash(related, relatedSeed)
            }
            if rows.count < rowsPerFetch { break }
        }
        try db.execute("CLOSE \(cursor)")
    }

    /// Whether the owner's links may be left out: its first appearance in the import, and the
    /// table holds exactly `related` for it. An owner seen again after it was left out is
    /// named by ``resent(_:)``: its stored links must then be staged with the new ones.
    mutating func holds(owner: String, related: Set<String>) -> Bool {
        let key = hash(owner, ownerSeed)
        if seen[key] != nil { return false }
        var sum: UInt64 = 0
        for id in related { sum &+= hash(id, relatedSeed) }
        let same = !related.isEmpty && digests.removeValue(forKey: key) == sum
        seen[key] = same
        return same
    }

    /// Whether the owner's links were left out earlier in this import.
    func wasLeftOut(_ owner: String) -> Bool { seen[hash(owner, ownerSeed)] == true }

    /// Marks the owner's stored links as staged again.
    mutating func restaged(_ owner: String) { seen[hash(owner, ownerSeed)] = false }

    private func hash(_ id: String, _ seed: UInt64) -> UInt64 { id.byteHash(seed: seed) }
}

extension Hasher {
    fileprivate static func random64() -> UInt64 { UInt64.random(in: .min ... .max) }
}

extension String {
    /// A 64-bit hash of the UTF-8 bytes (objectIds are compared as bytes, as PostgreSQL
    /// compares them; `String`'s own hash normalizes Unicode first, which costs more).
    func byteHash(seed: UInt64 = 0) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(seed)
        var text = self
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
