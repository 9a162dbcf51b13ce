import ParseModel

/// Computes ``MigrationFile/checksum``: SHA-256 of the document's canonical JSON.
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
