/// A 128-bit hash of an object's natural key within its class. Key sets store this instead
/// of the key text, so memory per object stays at a few bytes whatever the key's length.
public struct KeyHash: Hashable, Sendable {
    public let high: UInt64
    public let low: UInt64

    /// The bits are already well mixed: one word is enough for a hash table.
    public func hash(into hasher: inout Hasher) { hasher.combine(low) }

    /// Hashes `className` and the canonical key text (see ``NaturalKey``).
    public init(className: String, key: String) {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x6c62_272e_07bb_0142
        func mix(_ byte: UInt8) {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte)) &* 0x0000_0100_0000_0163 &+ 0x9e37_79b9
        }
        for byte in className.utf8 { mix(byte) }
        mix(0)
        for byte in key.utf8 { mix(byte) }
        high = KeyHash.finalize(a)
        low = KeyHash.finalize(b ^ high)
    }

    /// MurmurHash3's 64-bit finaliser: spreads every input bit over the whole word.
    static func finalize(_ x: UInt64) -> UInt64 {
        var h = x
        h ^= h >> 33
        h = h &* 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h = h &* 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }

    /// The Parse-style objectId for this key: 10 characters of `[A-Za-z0-9]`, the same on every run.
    public var objectId: String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var bytes = [UInt8](repeating: 0, count: 10)
        var h = high, l = low
        for i in 0..<5 {
            bytes[i] = alphabet[Int(h % 62)]; h /= 62
            bytes[i + 5] = alphabet[Int(l % 62)]; l /= 62
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The canonical text of a natural key: its parts' canonical texts joined by U+001F.
public enum NaturalKey {
    public static let separator: Character = "\u{1F}"

    /// Joins the canonical texts of the key's values; `nil` if any part is null.
    public static func text(of parts: [ParseValue]) -> String? {
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
    public static func canonicalText(_ value: ParseValue) -> String? {
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
