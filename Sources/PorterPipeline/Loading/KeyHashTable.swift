import ParseModel

/// A set of ``KeyHash``es with a line number and a rejected flag each: open addressing with
/// linear probing. The hashes are already uniformly spread, so their low bits pick the slot
/// directly. A slot is 16 bytes, a key's 96 bits beside its entry, so a lookup reads one cache
/// line (a `Dictionary` needs about 40 bytes an entry and a SipHash per lookup). 96 bits keep
/// two different keys of one class apart: for 10^9 keys the chance of any two sharing them
/// is below 10^-10.
struct KeyHashTable {
    private struct Slot {
        var low: UInt64
        var high: UInt32
        /// Line + 1 (0 marks an empty slot), negative when rejected.
        var entry: Int32

        static let empty = Slot(low: 0, high: 0, entry: 0)

        func holds(_ hash: KeyHash) -> Bool { low == hash.low && high == UInt32(truncatingIfNeeded: hash.high) }
    }

    private var slots: [Slot]
    private(set) var count = 0

    init(capacity: Int = 16) {
        slots = Array(repeating: .empty, count: max(16, (capacity * 10 / 7).nextPowerOfTwo))
    }

    struct Entry: Equatable {
        let line: Int
        let rejected: Bool
    }

    private func slot(of hash: KeyHash) -> (index: Int, found: Bool) {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var index = Int(truncatingIfNeeded: hash.low) & mask
            while slots[index].entry != 0 {
                if slots[index].holds(hash) { return (index, true) }
                index = (index + 1) & mask
            }
            return (index, false)
        }
    }

    subscript(hash: KeyHash) -> Entry? {
        let (index, found) = slot(of: hash)
        guard found else { return nil }
        let stored = slots[index].entry
        return Entry(line: Int(abs(stored)) - 1, rejected: stored < 0)
    }

    /// The slot where a lookup of `hash` starts, read so that the lookup or insert that follows
    /// finds it in cache (the value means nothing). Reads of many hashes in one loop overlap
    /// their cache misses; lookups one by one, between other work, wait for each.
    func touch(_ hash: KeyHash) -> Int32 {
        slots.withUnsafeBufferPointer { $0[Int(truncatingIfNeeded: hash.low) & ($0.count - 1)].entry }
    }

    /// Adds `hash` unless present; returns the entry already there, if any.
    mutating func insert(_ hash: KeyHash, line: Int) -> Entry? {
        if (count + 1) * 10 > slots.count * 7 { grow() }
        let (index, found) = slot(of: hash)
        if found { return self[hash] }
        slots[index] = Slot(low: hash.low, high: UInt32(truncatingIfNeeded: hash.high), entry: Int32(clamping: line + 1))
        count += 1
        return nil
    }

    mutating func markRejected(_ hash: KeyHash) {
        let (index, found) = slot(of: hash)
        if found, slots[index].entry > 0 { slots[index].entry = -slots[index].entry }
    }

    private mutating func grow() {
        var larger = Array(repeating: Slot.empty, count: slots.count * 2)
        let mask = larger.count - 1
        for slot in slots where slot.entry != 0 {
            var index = Int(truncatingIfNeeded: slot.low) & mask
            while larger[index].entry != 0 { index = (index + 1) & mask }
            larger[index] = slot
        }
        slots = larger
    }
}

private extension Int {
    var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
