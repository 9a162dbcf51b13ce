import ParseModel

/// The checksum of a migration file: SHA-256 of its parsed document in canonical form, as
/// 64 lowercase hex digits.
///
/// The canonical form is compact JSON (no whitespace) with every object's keys sorted, a
/// duplicate key kept once (the last, as decoding reads it), and numbers with an integral
/// value written without a fraction (`0.0` is `0`). So re-indenting, reordering keys,
/// quoting style and comments leave the checksum as it was, any change of a value changes
/// it, and a YAML file and its JSON translation have the same checksum.
enum MigrationChecksum {
    static func of(_ document: JSONValue) -> String {
        SHA256.hex(canonical(document).serializedBytes(sortedKeys: true))
    }

    /// `document` with duplicate keys dropped (the last one wins); `serializedBytes(sortedKeys:)`
    /// does the rest.
    static func canonical(_ document: JSONValue) -> JSONValue {
        switch document {
        case .array(let items):
            return .array(items.map(canonical))
        case .object(let object):
            var unique = JSONObject()
            for member in object { unique[member.key] = canonical(member.value) }
            return .object(unique)
        default:
            return document
        }
    }
}
