import ParseModel

/// Values as Parse Server stores them in its columns (`PostgresStorageAdapter.js`
/// `createObject`), in PostgreSQL's text input form.
extension ParseValue {
    /// The column text: a pointer's objectId, a file's name, a GeoPoint as `(longitude,latitude)`,
    /// a polygon as its closed ring of `(longitude,latitude)` points (`convertPolygonToSQL`),
    /// objects, arrays and bytes as their REST JSON (`jsonb`); `nil` for null and relations.
    package var postgresText: String? {
        switch self {
        case .null, .relation: return nil
        case .boolean(let value): return value ? "t" : "f"
        case .integer(let value): return String(value)
        case .double(let value): return value.description
        case .string(let value): return value
        case .date(let date): return date.iso
        case .file(let file): return file.name
        case .pointer(let pointer): return pointer.objectId
        case .geoPoint(let point): return "(\(point.longitude),\(point.latitude))"
        case .polygon(let polygon):
            // Parse Server closes an open ring by repeating its first point.
            var ring = polygon.coordinates
            if let first = ring.first, first != ring.last { ring.append(first) }
            return "(" + ring.map { "(\($0.longitude),\($0.latitude))" }.joined(separator: ",") + ")"
        case .bytes, .array, .object, .acl: return wireJSON.serialized()
        }
    }
}

extension ParseACL {
    /// `_rperm` and `_wperm` (`DatabaseController.js` `transformObjectACL`): who may read and
    /// who may write, as PostgreSQL `text[]` literals. No ACL at all is NULL in both (public).
    package var permissionArrays: (read: String, write: String) {
        let names = permissionNames
        return (Self.textArray(names.read), Self.textArray(names.write))
    }

    /// The items of ``permissionArrays``: who may read, who may write, by name.
    package var permissionNames: (read: [String], write: [String]) {
        let names = entries.keys.sorted()
        return (names.filter { entries[$0]!.read }, names.filter { entries[$0]!.write })
    }

    /// A `text[]` literal: `{"*","role:Staff"}`, each element quoted, `"` and `\` escaped.
    static func textArray(_ items: [String]) -> String {
        "{"
            + items.map { item in
                var escaped = "\""
                for character in item {
                    if character == "\"" || character == "\\" { escaped.append("\\") }
                    escaped.append(character)
                }
                return escaped + "\""
            }.joined(separator: ",") + "}"
    }
}
