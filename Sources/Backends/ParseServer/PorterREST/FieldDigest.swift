import ParseModel

/// A 64-bit digest of a field value, equal for values Parse stores alike: what decides whether an
/// object on the server needs an update without keeping its values in memory.
enum FieldDigest {
    /// 0 for null and for absent fields. Digests are compared within one run only, so the
    /// standard library's per-process seeded hashing is good enough.
    static func of(_ value: ParseValue) -> UInt64 {
        if value == .null { return 0 }
        var hasher = Hasher()
        normalized(value).hash(into: &hasher)
        let hash = UInt64(bitPattern: Int64(hasher.finalize()))
        return hash == 0 ? 1 : hash
    }

    /// Parse keeps numbers as doubles and recomputes a file's url: `2.0` and `2` are the same
    /// number, and a file is its name.
    static func normalized(_ value: ParseValue) -> ParseValue {
        switch value {
        case .double(let d) where d == d.rounded() && abs(d) < 9_007_199_254_740_992: .integer(Int64(d))
        case .file(let file): .file(ParseFile(name: file.name))
        case .array(let items): .array(items.map(normalized))
        case .object(let members): .object(members.mapValues(normalized))
        default: value
        }
    }
}
