import Foundation

/// A table of 64-bit digests by a 64-bit hash of an objectId, in one flat array of slots sized
/// for the rows it is to hold (open addressing, linear probing): 16 bytes a slot, about 20 a
/// row, where a `Dictionary` of the same pairs takes 33 to 50 (its capacity a power of two) and
/// twice that while it grows. Each slot also carries a mark of two bits (its key's top bits),
/// for what its holder notes per row. Keys are hashes (uniform), so a slot is found by
/// scaling the key onto the table, not by hashing it again.
///
/// The slots are pages of their own (``Pages``), not `malloc`'s: glibc raises its mmap threshold
/// to the size of the largest block freed (up to 32 MB), and once a re-import had freed a class's
/// table through `malloc`, the batches of megabytes that followed were carved from its arenas
/// instead, which grew by some 100 MB at 1M books.
struct DigestSlots {
    /// A key's top two bits hold the mark; 0 is an empty slot.
    private static let markShift: UInt64 = 62
    private static let keyMask: UInt64 = (1 << markShift) - 1

    /// Each slot's key then its value, side by side (one cache line for both). Copied on the
    /// first change of a copy that shares them, as an array's elements are.
    private var slots: Pages
    /// Keys held.
    private(set) var count = 0

    /// Room for `expected` keys before the table grows (doubling, at four fifths full).
    init(expected: Int) {
        slots = Pages(words: 2 * max(16, expected + expected / 4 + 1))
    }

    private var capacity: Int { slots.count / 2 }

    /// The slot of `key`, or of the empty slot where it would go.
    private func probe(_ key: UInt64) -> Int {
        // A key has 62 bits: shifted to the top, it scales onto the whole table.
        var slot = Int(truncatingIfNeeded: (key << 2).multipliedFullWidth(by: UInt64(capacity)).high)
        while true {
            let held = slots[2 * slot] & Self.keyMask
            if held == key || held == 0 { return slot }
            slot += 1
            if slot == capacity { slot = 0 }
        }
    }

    /// `hash` as a key: 62 bits, never 0.
    private static func key(_ hash: UInt64) -> UInt64 {
        let key = hash & keyMask
        return key == 0 ? 1 : key
    }

    /// The slot holding `hash`, if any.
    func slot(of hash: UInt64) -> Int? {
        let slot = probe(Self.key(hash))
        return slots[2 * slot] == 0 ? nil : slot
    }

    /// The slot for `hash`, added (value 0, mark 0) when missing.
    mutating func insert(_ hash: UInt64) -> Int {
        makeUnique()
        let key = Self.key(hash)
        let slot = probe(key)
        if slots[2 * slot] != 0 { return slot }
        if (count + 1) * 5 > capacity * 4 {
            grow()
            return insert(hash)
        }
        slots[2 * slot] = key
        count += 1
        return slot
    }

    /// The value in `slot`.
    subscript(value slot: Int) -> UInt64 {
        get { slots[2 * slot + 1] }
        set {
            makeUnique()
            slots[2 * slot + 1] = newValue
        }
    }

    /// The mark (0 to 3) of `slot`.
    subscript(mark slot: Int) -> UInt64 {
        get { slots[2 * slot] >> Self.markShift }
        set {
            makeUnique()
            slots[2 * slot] = slots[2 * slot] & Self.keyMask | newValue << Self.markShift
        }
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&slots) { slots = slots.copy() }
    }

    private mutating func grow() {
        let old = slots
        slots = Pages(words: old.count * 2)
        for index in stride(from: 0, to: old.count, by: 2) where old[index] != 0 {
            let slot = probe(old[index] & Self.keyMask)
            slots[2 * slot] = old[index]
            slots[2 * slot + 1] = old[index + 1]
        }
    }
}

extension DigestSlots {
    /// Zeroed 64-bit words in anonymous pages of their own (`mmap`), given back (`munmap`) with the last copy.
    final class Pages {
        let count: Int
        private let words: UnsafeMutablePointer<UInt64>

        init(words count: Int) {
            self.count = count
            guard let pages = mmap(nil, count * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), pages != MAP_FAILED else {
                fatalError("out of memory for \(count * 8) bytes of digests")
            }
            words = pages.bindMemory(to: UInt64.self, capacity: count)
        }

        deinit { munmap(words, count * 8) }

        /// The same words in pages of their own.
        func copy() -> Pages {
            let copy = Pages(words: count)
            copy.words.update(from: words, count: count)
            return copy
        }

        subscript(index: Int) -> UInt64 {
            get { words[index] }
            set { words[index] = newValue }
        }
    }
}
