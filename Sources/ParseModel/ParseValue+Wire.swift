/// The Parse REST API's JSON encoding of values (Docs/ParseServer.md#values-on-the-wire).
extension ParseValue {
    /// The value as Parse REST sends it: typed values as `{"__type":…}` objects.
    public var wireJSON: JSONValue {
        switch self {
        case .null: return .null
        case .boolean(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .date(let d): return .object(JSONObject(["__type": .string("Date"), "iso": .string(d.iso)]))
        case .bytes(let base64): return .object(JSONObject(["__type": .string("Bytes"), "base64": .string(base64)]))
        case .file(let f):
            var object = JSONObject(["__type": .string("File"), "name": .string(f.name)])
            if let url = f.url { object["url"] = .string(url) }
            return .object(object)
        case .geoPoint(let g):
            return .object(JSONObject(["__type": .string("GeoPoint"), "latitude": .double(g.latitude), "longitude": .double(g.longitude)]))
        case .polygon(let p):
            let pairs = p.coordinates.map { JSONValue.array([.double($0.latitude), .double($0.longitude)]) }
            return .object(JSONObject(["__type": .string("Polygon"), "coordinates": .array(pairs)]))
        case .array(let items): return .array(items.map(\.wireJSON))
        case .object(let members):
            return .object(JSONObject(members.keys.sorted().map { JSONMember($0, members[$0]!.wireJSON) }))
        case .pointer(let p):
            return .object(JSONObject(["__type": .string("Pointer"), "className": .string(p.className), "objectId": .string(p.objectId)]))
        case .relation(let r): return .object(JSONObject(["__type": .string("Relation"), "className": .string(r.className)]))
        case .acl(let acl):
            return .object(
                JSONObject(
                    acl.entries.keys.sorted().map { key in
                        let permission = acl.entries[key]!
                        var flags = JSONObject()
                        if permission.read { flags["read"] = .bool(true) }
                        if permission.write { flags["write"] = .bool(true) }
                        return JSONMember(key, .object(flags))
                    }))
        }
    }

    /// Decodes a Parse REST value. `{"__type":…}` objects become typed values; other objects
    /// become `.object`, or an ACL when `type` is `.acl`. An unknown or malformed `__type` is an error.
    public init(wire json: JSONValue, as type: FieldType? = nil) throws(ParseValueError) {
        try self.init(wire: json, as: type, checkingCoordinates: true)
    }

    /// Decodes a value as a server stored it: like ``init(wire:as:)``, but GeoPoints (and
    /// Polygon vertices) with coordinates out of range are kept (``GeoPoint/rangeProblem``), since
    /// Parse Server stores them and a copy must not drop them.
    package init(stored json: JSONValue, as type: FieldType? = nil) throws(ParseValueError) {
        try self.init(wire: json, as: type, checkingCoordinates: false)
    }

    private init(wire json: JSONValue, as type: FieldType?, checkingCoordinates: Bool) throws(ParseValueError) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .boolean(b)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .string(s)
        case .array(let items):
            var values: [ParseValue] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try ParseValue(wire: item, as: nil, checkingCoordinates: checkingCoordinates)) }
            self = .array(values)
        case .object(let object):
            if type == .acl {
                self = .acl(try ParseACL(wire: object))
            } else if case .string(let typeName)? = object["__type"] {
                self = try ParseValue.typed(typeName, object, checkingCoordinates: checkingCoordinates)
            } else {
                var members: [String: ParseValue] = [:]
                for member in object { members[member.key] = try ParseValue(wire: member.value, as: nil, checkingCoordinates: checkingCoordinates) }
                self = .object(members)
            }
        }
    }

    private static func typed(_ typeName: String, _ object: JSONObject, checkingCoordinates: Bool) throws(ParseValueError) -> ParseValue {
        func string(_ key: String) throws(ParseValueError) -> String {
            guard case .string(let s)? = object[key], !s.isEmpty else {
                throw ParseValueError("This is not a valid \(typeName): \"\(key)\" must be a non-empty string")
            }
            return s
        }
        switch typeName {
        case "Date":
            let iso = try string("iso")
            guard let date = ParseDate(iso: iso) else { throw ParseValueError("not a date: \"\(iso)\"") }
            return .date(date)
        case "Pointer", "Object":
            return .pointer(PointerRef(className: try string("className"), objectId: try string("objectId")))
        case "Relation":
            return .relation(RelationRef(className: try string("className")))
        case "File":
            var url: String?
            if case .string(let u)? = object["url"] { url = u }
            return .file(ParseFile(name: try string("name"), url: url))
        case "Bytes":
            let base64 = try string("base64")
            guard Base64.isValid(base64) else { throw ParseValueError("not valid base64") }
            return .bytes(base64: base64)
        case "GeoPoint":
            guard let lat = object["latitude"]?.doubleValue, let lng = object["longitude"]?.doubleValue else {
                throw ParseValueError("This is not a valid GeoPoint: latitude and longitude must be numbers")
            }
            return .geoPoint(checkingCoordinates ? try GeoPoint(latitude: lat, longitude: lng) : try GeoPoint(storedLatitude: lat, longitude: lng))
        case "Polygon":
            guard case .array(let pairs)? = object["coordinates"] else {
                throw ParseValueError("This is not a valid Polygon: coordinates must be an array")
            }
            return .polygon(try ParsePolygon(wireCoordinates: pairs, checkingCoordinates: checkingCoordinates))
        default:
            throw ParseValueError("This is not a valid \(typeName)")
        }
    }
}

extension ParseValue {
    /// Why a GeoPoint, or a vertex of a Polygon, of this value is no valid one (a coordinate out
    /// of range, which a server may store: ``init(stored:as:)``); `nil` when none is.
    package var coordinateProblem: String? {
        switch self {
        case .geoPoint(let point): point.rangeProblem
        case .polygon(let polygon): polygon.coordinates.lazy.compactMap(\.rangeProblem).first
        case .array(let items): items.lazy.compactMap(\.coordinateProblem).first
        case .object(let members): members.values.lazy.compactMap(\.coordinateProblem).first
        default: nil
        }
    }
}

extension ParsePolygon {
    /// Builds a polygon from `[[lat, lng], …]` pairs; without `checkingCoordinates`, vertices out
    /// of range are kept (see ``ParseValue/init(stored:as:)``).
    package init(wireCoordinates pairs: [JSONValue], checkingCoordinates: Bool = true) throws(ParseValueError) {
        var points: [GeoPoint] = []
        for pair in pairs {
            guard case .array(let ll) = pair, ll.count == 2, let lat = ll[0].doubleValue, let lng = ll[1].doubleValue else {
                throw ParseValueError("a Polygon vertex must be a [latitude, longitude] pair of numbers")
            }
            points.append(checkingCoordinates ? try GeoPoint(latitude: lat, longitude: lng) : try GeoPoint(storedLatitude: lat, longitude: lng))
        }
        try self.init(coordinates: points)
    }
}

extension ParseACL {
    /// Decodes `{"*":{"read":true},"<id>":{"read":true,"write":true}}`; flags must be booleans.
    package init(wire object: JSONObject) throws(ParseValueError) {
        var entries: [String: Permission] = [:]
        for member in object {
            guard case .object(let flags) = member.value, !member.key.isEmpty else {
                throw ParseValueError("invalid ACL: entry \"\(member.key)\" must be an object like {\"read\": true}")
            }
            var permission = Permission(read: false, write: false)
            for flag in flags {
                guard case .bool(let granted) = flag.value else {
                    throw ParseValueError("invalid ACL: \"\(member.key)\".\(flag.key) must be true or false")
                }
                switch flag.key {
                case "read": permission.read = granted
                case "write": permission.write = granted
                default: throw ParseValueError("invalid ACL: unknown permission \"\(flag.key)\" (read or write)")
                }
            }
            entries[member.key] = permission
        }
        self.init(entries)
    }
}

extension JSONValue {
    /// The number as a Double, for integer or double JSON numbers.
    public var doubleValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }
}

/// Base64 checks without decoding (Parse keeps Bytes as their base64 text).
package enum Base64 {
    /// Standard alphabet, padded to a multiple of 4; whitespace is not allowed.
    package static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return false }
        var padding = 0
        for (i, b) in bytes.enumerated() {
            if b == UInt8(ascii: "=") {
                guard i >= bytes.count - 2 else { return false }
                padding += 1
                continue
            }
            guard padding == 0 else { return false }
            let ok =
                (65...90).contains(b) || (97...122).contains(b) || (48...57).contains(b)
                || b == UInt8(ascii: "+") || b == UInt8(ascii: "/")
            guard ok else { return false }
        }
        return true
    }
}
