import ParseModel
import PorterCore

/// For a re-import into a join table the import did not create: a digest of each owner's stored
/// links, read in one binary `COPY … TO STDOUT`, so that owners whose links stay as they are are
/// not sent again (the flush would copy, compare and insert every pair). The idea of the
/// mirror's link digests: an owner's digest is the wrapping sum of a 64-bit hash of each related
/// objectId, the same for a set in any order, so no sort is needed; owners are kept by a hash of
/// their objectId. A wrong match has a chance of about one in 2⁶⁴ per owner. Hashes are seeded
/// per process.
struct StoredLinkSets {
    /// Each stored owner's digest by the hash of its objectId; its mark says what this import
    /// did with the owner's links: ``unseen``, ``leftOut`` or ``sent``.
    private var owners: DigestSlots
    private static let unseen: UInt64 = 0, leftOut: UInt64 = 1, sent: UInt64 = 2
    private let ownerSeed = UInt64.random(in: .min ... .max), relatedSeed = UInt64.random(in: .min ... .max)

    /// Reads every link of `table`, whose owners are objects of `ownerClass`.
    init(scanning table: String, ownerClass: String, on db: PostgresConnection) throws(PorterError) {
        // At most one owner per link, and per object of the owning class.
        let links = try db.estimatedRows(table), objects = try db.estimatedRows(ownerClass)
        var owners = DigestSlots(expected: objects > 0 ? min(links, objects) : links)
        let (ownerSeed, relatedSeed) = (self.ownerSeed, self.relatedSeed)
        try db.copyOut("COPY \(quoted(table)) (\"owningId\", \"relatedId\") TO STDOUT (FORMAT binary)") { row in
            guard let owner = row[0], let related = row[1] else { return }
            let slot = owners.insert(KeyHash.bytes(owner, seed: ownerSeed))
            owners[value: slot] &+= KeyHash.bytes(related, seed: relatedSeed)
        }
        self.owners = owners
    }

    /// How many stored owners the digests cover.
    var count: Int { owners.count }

    /// Whether the owner's links may be left out: its first appearance in the import, and the
    /// table holds exactly `related` for it. An owner seen again after it was left out is
    /// named by ``wasLeftOut(_:)``: its stored links must then be staged with the new ones.
    mutating func holds(owner: String, related: Set<String>) -> Bool {
        // An owner the table holds no links of has none to leave out.
        guard let slot = owners.slot(of: owner.byteHash(seed: ownerSeed)), owners[mark: slot] == Self.unseen else { return false }
        var sum: UInt64 = 0
        for id in related { sum &+= id.byteHash(seed: relatedSeed) }
        let same = !related.isEmpty && owners[value: slot] == sum
        owners[mark: slot] = same ? Self.leftOut : Self.sent
        return same
    }

    /// Whether the owner's links were left out earlier in this import.
    func wasLeftOut(_ owner: String) -> Bool {
        owners.slot(of: owner.byteHash(seed: ownerSeed)).map { owners[mark: $0] == Self.leftOut } ?? false
    }

    /// Marks the owner's stored links as staged again.
    mutating func restaged(_ owner: String) {
        if let slot = owners.slot(of: owner.byteHash(seed: ownerSeed)) { owners[mark: slot] = Self.sent }
    }
}

extension String {
    /// ``ParseModel/KeyHash/bytes(_:seed:)`` of the UTF-8 bytes (objectIds are compared as bytes, as PostgreSQL
    /// compares them; `String`'s own hash normalizes Unicode first).
    func byteHash(seed: UInt64 = 0) -> UInt64 {
        var text = self
        return text.withUTF8 { KeyHash.bytes(UnsafeRawBufferPointer($0), seed: seed) }
    }
}
