/// A 128-bit hash of an object's natural key within its class. Key sets store this instead
/// of the key text, so memory per object stays at a few bytes whatever the key's length.
public struct KeyHash: Hashable, Sendable {
    package let high: UInt64
    package let low: UInt64

    /// The bits are already well mixed: one word is enough for a hash table.
    public func hash(into hasher: inout Hasher) { hasher.combine(low) }

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Hashes `className` and the canonical key text (see ``NaturalKey``).
    package init(className: String, key: String) {
        self = KeyHasher(className: className).hash(key)
    }

    /// Two FNV-1a style streams over the bytes.
    @inline(__always)
    static func mix(_ bytes: some Sequence<UInt8>, into state: inout (a: UInt64, b: UInt64)) {
        for byte in bytes {
            state.a = (state.a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            state.b = (state.b ^ UInt64(byte)) &* 0x0000_0100_0000_0163 &+ 0x9e37_79b9
        }
    }

    /// MurmurHash3's 64-bit finaliser: spreads every input bit over the whole word (a bijection).
    @inlinable package static func finalize(_ x: UInt64) -> UInt64 {
        var h = x
        h ^= h >> 33
        h = h &* 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h = h &* 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }

    /// A 64-bit hash of `bytes` (an objectId, say), eight at a time through ``finalize(_:)``
    /// (a bijection: ids of one length up to eight bytes never collide). Swift's `Hasher`
    /// (SipHash, set up anew for each id) was about a third of the time of a scan of a
    /// mirror's join table.
    package static func bytes(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        var h = seed ^ UInt64(bytes.count) &* 0x9e37_79b9_7f4a_7c15
        var offset = 0
        while offset + 8 <= bytes.count {
            h = finalize(h ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        guard offset < bytes.count else { return h }
        var tail: UInt64 = 0
        for index in offset..<bytes.count { tail |= UInt64(bytes[index]) << UInt64(8 * (index - offset)) }
        return finalize(h ^ tail)
    }

    /// The Parse-style objectId for this key: 10 characters of `[A-Za-z0-9]`, the same on every run.
    package var objectId: String {
        String(unsafeUninitializedCapacity: 10) { bytes in
            var h = high, l = low
            for i in 0..<5 {
                bytes[i] = KeyHash.digit(h % 62); h /= 62
                bytes[i + 5] = KeyHash.digit(l % 62); l /= 62
            }
            return 10
        }
    }

    /// `A-Z`, `a-z`, `0-9` for 0...61, without branches: the digits of an objectId are as
    /// random as its hash, so a branch per digit would be mispredicted half the time.
    @inline(__always)
    static func digit(_ value: UInt64) -> UInt8 {
        UInt8(truncatingIfNeeded: value &+ 65 &+ (value >= 26 ? 6 : 0) &- (value >= 52 ? 75 : 0))
    }
}

/// Hashes the keys of one class: the class name is mixed in once, not per key (a
/// ``KeyHash`` is computed for every object and every reference of an import).
package struct KeyHasher: Sendable {
    /// The two streams' state after the class name and its NUL.
    private let a: UInt64, b: UInt64

    package init(className: String) {
        var state = (a: UInt64(0xcbf2_9ce4_8422_2325), b: UInt64(0x6c62_272e_07bb_0142))
        // Contiguous UTF-8 buffers: iterating a `String.UTF8View` costs several times as much per byte.
        var className = className
        className.withUTF8 { KeyHash.mix($0, into: &state) }
        KeyHash.mix(CollectionOfOne(0), into: &state)
        (a, b) = state
    }

    /// The ``KeyHash`` of the canonical key text `key` in this class.
    package func hash(_ key: String) -> KeyHash {
        var key = key
        return key.withUTF8(hash)
    }

    /// The ``KeyHash`` of the canonical key text whose UTF-8 is `bytes` (a cell read as bytes:
    /// no `String` made to hash it).
    package func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> KeyHash {
        var state = (a: a, b: b)
        KeyHash.mix(bytes, into: &state)
        let high = KeyHash.finalize(state.a)
        return KeyHash(high: high, low: KeyHash.finalize(state.b ^ high))
    }
}

/// The canonical text of a natural key: its parts' canonical texts joined by U+001F.
package enum NaturalKey {
    package static let separator: Character = "\u{1F}"

    /// Joins the canonical texts of the key's values; `nil` if any part is null.
    package static func text(of parts: [ParseValue]) -> String? {
        if parts.count == 1 { return canonicalText(parts[0]) }
        var texts: [String] = []
        texts.reserveCapacity(parts.count)
        for part in parts {
            guard let text = canonicalText(part) else { return nil }
            texts.append(text)
        }
        return texts.joined(separator: String(separator))
    }

    /// A value's text as a key part: strings as they are, numbers in their shortest form,
    /// dates in ISO form, pointers as their objectId, anything else as canonical JSON.
    package static func canonicalText(_ value: ParseValue) -> String? {
        switch value {
        case .null: nil
        case .string(let s): s
        case .integer(let i): String(i)
        case .double(let d): JSONValue.format(d)
        case .boolean(let b): b ? "true" : "false"
        case .date(let d): d.iso
        case .pointer(let p): p.objectId
        default: value.wireJSON.serialized(sortedKeys: true)
        }
    }
}
