import ParseModel

/// A 64-bit digest of a field value, equal for values Parse stores alike: what decides whether an
/// object on the server needs an update without keeping its values in memory.
enum FieldDigest {
    /// 0 for null and for absent fields.
    static func of(_ value: ParseValue) -> UInt64 {
        if value == .null { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in normalized(value).wireJSON.serialized(sortedKeys: true).utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
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
