import ParseModel

/// A set of ``KeyHash``es with a line number and a rejected flag each: open addressing with
/// linear probing. The hashes are already uniformly spread, so their low bits pick the slot
/// directly; 20 bytes per slot, where a `Dictionary` needs about twice that and a SipHash per
/// lookup.
struct KeyHashTable {
    private var highs: [UInt64]
    private var lows: [UInt64]
    /// Line + 1 (0 marks an empty slot), negative when rejected.
    private var entries: [Int32]
    private(set) var count = 0

    init(capacity: Int = 16) {
        let slots = max(16, (capacity * 10 / 7).nextPowerOfTwo)
        highs = Array(repeating: 0, count: slots)
        lows = Array(repeating: 0, count: slots)
        entries = Array(repeating: 0, count: slots)
    }

    struct Entry: Equatable {
        let line: Int
        let rejected: Bool
    }

    private func slot(of hash: KeyHash) -> (index: Int, found: Bool) {
        let mask = entries.count - 1
        var index = Int(truncatingIfNeeded: hash.low) & mask
        while entries[index] != 0 {
            if lows[index] == hash.low && highs[index] == hash.high { return (index, true) }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    subscript(hash: KeyHash) -> Entry? {
        let (index, found) = slot(of: hash)
        guard found else { return nil }
        let stored = entries[index]
        return Entry(line: Int(abs(stored)) - 1, rejected: stored < 0)
    }

    /// Adds `hash` unless present; returns the entry already there, if any.
    mutating func insert(_ hash: KeyHash, line: Int) -> Entry? {
        if (count + 1) * 10 > entries.count * 7 { grow() }
        let (index, found) = slot(of: hash)
        if found { return self[hash] }
        highs[index] = hash.high
        lows[index] = hash.low
        entries[index] = Int32(clamping: line + 1)
        count += 1
        return nil
    }

    mutating func markRejected(_ hash: KeyHash) {
        let (index, found) = slot(of: hash)
        if found, entries[index] > 0 { entries[index] = -entries[index] }
    }

    private mutating func grow() {
        var larger = KeyHashTable(capacity: entries.count)
        for index in entries.indices where entries[index] != 0 {
            let (slot, _) = larger.slot(of: KeyHash(high: highs[index], low: lows[index]))
            larger.highs[slot] = highs[index]
            larger.lows[slot] = lows[index]
            larger.entries[slot] = entries[index]
        }
        larger.count = count
        self = larger
    }
}

private extension Int {
    var nextPowerOfTwo: Int { self <= 1 ? 1 : 1 << (Int.bitWidth - (self - 1).leadingZeroBitCount) }
}
