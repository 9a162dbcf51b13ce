import ParseModel
import PorterReaders

/// Reads a collection file of Parse Server's MongoDB layout (``MongoLayout``; what `mongoexport`
/// writes, one document per line or a JSON array, Extended JSON relaxed or canonical) as the
/// REST objects a Parse export holds, the way `mongoObjectToParseObject` (`MongoTransform.js`)
/// and `untransformObjectACL` (`DatabaseController.js`) read a document back.
///
/// A document Parse Server could not have written is a fault at its line, naming the key: a
/// `_p_` value that is not `Class$objectId` or points at another class than the schema's, a
/// `$date` that is not a date, a value not of its field's stored form.
struct MongoDocumentReader: RecordReader {
    private var base: any RecordReader
    private let decoder: MongoDocumentDecoder

    init(base: any RecordReader, className: String, fields: [String: FieldType]) {
        // Every member is decoded: the records are parsed whole, not scanned first.
        if var json = base as? JSONRecordReader {
            json.readsWholeRecords = true
            self.base = json
        } else {
            self.base = base
        }
        decoder = MongoDocumentDecoder(className: className, fields: fields)
    }

    var displayName: String { base.displayName }
    var bytesRead: Int64 { base.bytesRead }

    mutating func next() throws(ReaderError) -> SourceRecord? {
        guard let record = try base.next() else { return nil }
        guard case .json(let document) = record.content else { return record }
        do throws(MongoDocumentFault) {
            return SourceRecord(line: record.line, content: .json(try decoder.restObject(document)))
        } catch {
            throw ReaderError(file: displayName, line: record.line, column: error.key, value: error.value, reason: error.reason)
        }
    }
}

/// Why a MongoDB document is not in Parse Server's layout: the key, its value, what is wrong.
struct MongoDocumentFault: Error {
    let key: String
    let value: String
    let reason: String

    init(_ key: String, _ value: JSONValue, _ reason: String) {
        self.key = key
        self.value = String((value.stringValue ?? value.serialized()).prefix(120))
        self.reason = reason
    }
}

/// Turns one document of a class's collection into its REST object.
struct MongoDocumentDecoder {
    let className: String
    /// The class's fields by name, as `_SCHEMA` declares them.
    let fields: [String: FieldType]

    /// `_User` keys Parse Server keeps for itself (tokens, lockout and password-policy state,
    /// `mongoObjectToParseObject` hands them on only to be removed): handed on as they are, so
    /// that the import names and counts them as keys no field reads, instead of dropping them unsaid.
    static let serverOnlyKeys: Set = [
        "_session_token", "_email_verify_token", "_perishable_token", "_perishable_token_expires_at", "_password_changed_at",
        "_tombstone", "_email_verify_token_expires_at", "_account_lockout_expires_at", "_failed_login_count", "_password_history",
    ]

    func restObject(_ document: JSONObject) throws(MongoDocumentFault) -> JSONObject {
        var members: [JSONMember] = []
        var readers: [String]?, writers: [String]?
        var authData: [JSONMember] = []
        for member in document {
            let key = member.key, value = member.value
            switch key {
            case "_id":
                guard let id = value.stringValue ?? value["$oid"]?.stringValue else { throw MongoDocumentFault(key, value, "an objectId must be a string") }
                members.append(JSONMember("objectId", .string(id)))
            case "_created_at", "createdAt":
                members.append(JSONMember("createdAt", .string(try Self.date(value, key).iso)))
            case "_updated_at", "updatedAt":
                members.append(JSONMember("updatedAt", .string(try Self.date(value, key).iso)))
            case "_rperm": readers = try Self.permissionList(value, key)
            case "_wperm": writers = try Self.permissionList(value, key)
            case "_acl": continue  // the legacy copy of _rperm/_wperm, which Parse Server does not read either
            case "_hashed_password": members.append(member)
            case "authData" where className == "_User": continue  // Parse Server builds it from the _auth_data_ keys
            default:
                // Every server-only key starts with `_`: no set lookup for the others.
                if key.utf8.first == UInt8(ascii: "_"), Self.serverOnlyKeys.contains(key) {
                    members.append(member)
                } else if className == "_User", key.hasPrefix("_auth_data_") {
                    authData.append(JSONMember(String(key.dropFirst("_auth_data_".count)), try Self.nested(value, key)))
                } else if key.hasPrefix("_p_") {
                    if let pointer = try pointer(value, key) { members.append(JSONMember(String(key.dropFirst(3)), pointer)) }
                } else if key.hasPrefix("_") {
                    throw MongoDocumentFault(key, value, "not a key of Parse Server's layout (an internal key of another class, or no Parse data)")
                } else {
                    members.append(JSONMember(key, try field(key, value)))
                }
            }
        }
        if readers != nil || writers != nil {
            var acl: [String: JSONObject] = [:]
            for name in readers ?? [] { acl[name, default: JSONObject()]["read"] = .bool(true) }
            for name in writers ?? [] { acl[name, default: JSONObject()]["write"] = .bool(true) }
            members.append(JSONMember("ACL", .object(JSONObject(acl.keys.sorted().map { JSONMember($0, .object(acl[$0]!)) }))))
        }
        if !authData.isEmpty { members.append(JSONMember("authData", .object(JSONObject(authData)))) }
        return JSONObject(members)
    }

    /// `_p_<field>: "Class$objectId"` (`transformPointerString`): the class must be the field's
    /// target; `null` is no pointer.
    private func pointer(_ value: JSONValue, _ key: String) throws(MongoDocumentFault) -> JSONValue? {
        if value == .null { return nil }
        let name = String(key.dropFirst(3))
        guard case .pointer(let target)? = fields[name] else {
            throw MongoDocumentFault(key, value, "\(className) has no Pointer field \(name) in _SCHEMA.json")
        }
        guard let text = value.stringValue, let (pointed, objectId) = Self.pointerParts(text) else {
            throw MongoDocumentFault(key, value, "a pointer is stored as \"\(target)$<objectId>\"")
        }
        guard pointed == target else {
            throw MongoDocumentFault(key, value, "points at \(pointed), but \(className).\(name) points at \(target)")
        }
        guard !objectId.utf8.contains(UInt8(ascii: "$")) else {
            throw MongoDocumentFault(
                key, value, "holds more than one $: Parse Server reads the objectId only up to the second, so which object it names is not clear")
        }
        return .object(
            JSONObject([JSONMember("__type", .string("Pointer")), JSONMember("className", .string(target)), JSONMember("objectId", .string(objectId))]))
    }

    /// `text` split at its first `$` into a class name and an objectId, as Parse Server splits it
    /// (`split('$')`, by code unit: a `$` is one byte of UTF-8 and in no other character's bytes);
    /// `nil` without a `$` or with nothing after it.
    private static func pointerParts(_ text: String) -> (className: String, objectId: String)? {
        let utf8 = text.utf8
        guard let dollar = utf8.firstIndex(of: UInt8(ascii: "$")), utf8.index(after: dollar) < utf8.endIndex else { return nil }
        return (String(text[..<dollar]), String(text[utf8.index(after: dollar)...]))
    }

    /// A field's value from its stored form (the `*Coder.databaseToJSON` of its type).
    private func field(_ key: String, _ value: JSONValue) throws(MongoDocumentFault) -> JSONValue {
        guard value != .null else { return .null }
        switch fields[key] {
        case .date?:
            return .object(JSONObject(["__type": .string("Date"), "iso": .string(try Self.date(value, key).iso)]))
        case .bytes?:
            if let base64 = value.stringValue { return Self.bytes(base64) }
            return try Self.nested(value, key)
        case .file?:
            guard let name = value.stringValue else { throw MongoDocumentFault(key, value, "a File is stored as its name") }
            return .object(JSONObject(["__type": .string("File"), "name": .string(name)]))
        case .geoPoint?:
            guard case .array(let pair) = value, pair.count == 2, let longitude = pair[0].doubleValue, let latitude = pair[1].doubleValue else {
                throw MongoDocumentFault(key, value, "a GeoPoint is stored as [longitude, latitude]")
            }
            return .object(JSONObject(["__type": .string("GeoPoint"), "latitude": .double(latitude), "longitude": .double(longitude)]))
        case .polygon?:
            guard value["type"] == .string("Polygon"), case .array(let rings)? = value["coordinates"], case .array(let ring)? = rings.first else {
                throw MongoDocumentFault(key, value, "a Polygon is stored as GeoJSON {\"type\":\"Polygon\",\"coordinates\":[[[lng, lat], …]]}")
            }
            var pairs: [JSONValue] = []
            for point in ring {
                guard case .array(let pair) = point, pair.count == 2, let longitude = pair[0].doubleValue, let latitude = pair[1].doubleValue else {
                    throw MongoDocumentFault(key, value, "a Polygon vertex is stored as [longitude, latitude]")
                }
                pairs.append(.array([.double(latitude), .double(longitude)]))
            }
            return .object(JSONObject(["__type": .string("Polygon"), "coordinates": .array(pairs)]))
        default:
            return try Self.nested(value, key)
        }
    }

    /// A value inside a field (`nestedMongoObjectToNestedParseObject`): BSON dates, binaries and
    /// numbers in their REST form, everything else as it is.
    static func nested(_ value: JSONValue, _ key: String) throws(MongoDocumentFault) -> JSONValue {
        switch value {
        case .array(let items):
            var converted: [JSONValue] = []
            for item in items { converted.append(try nested(item, key)) }
            return .array(converted)
        case .object(let object):
            if let first = object.members.first?.key, first.hasPrefix("$") { return try extended(object, key) }
            // A REST Date kept whole inside an Object has a BSON date as its `iso`.
            if object["__type"] == .string("Date"), let iso = object["iso"], case .object = iso {
                return .object(JSONObject(["__type": .string("Date"), "iso": .string(try date(iso, key).iso)]))
            }
            var members: [JSONMember] = []
            for member in object { members.append(JSONMember(member.key, try nested(member.value, key))) }
            return .object(JSONObject(members))
        default:
            return value
        }
    }

    /// An Extended JSON value (`$date`, `$binary`, `$numberLong`, `$numberInt`, `$numberDouble`,
    /// `$numberDecimal`, `$oid`) in its REST form.
    private static func extended(_ object: JSONObject, _ key: String) throws(MongoDocumentFault) -> JSONValue {
        let value = JSONValue.object(object)
        guard object.members.count <= 2, let type = object.members.first?.key else { throw MongoDocumentFault(key, value, "not Extended JSON") }
        switch (type, object[type]!) {
        case ("$date", _):
            return .object(JSONObject(["__type": .string("Date"), "iso": .string(try date(value, key).iso)]))
        case ("$binary", let binary):
            guard let base64 = binary["base64"]?.stringValue ?? binary.stringValue, Base64.isValid(base64) else {
                throw MongoDocumentFault(key, value, "$binary holds no base64 text")
            }
            return bytes(base64)
        case ("$numberLong", .string(let text)), ("$numberInt", .string(let text)):
            guard let number = Int64(text) else { throw MongoDocumentFault(key, value, "\(type) is not an integer") }
            return .integer(number)
        case ("$numberDouble", .string(let text)), ("$numberDecimal", .string(let text)):
            guard let number = Double(text), number.isFinite else {
                throw MongoDocumentFault(key, value, "\(type) is not a finite number, which Parse cannot hold")
            }
            return .double(number)
        case ("$oid", .string(let text)):
            return .string(text)
        default:
            throw MongoDocumentFault(key, value, "\(type) is not an Extended JSON type of Parse data")
        }
    }

    /// A BSON date: `{"$date": "<ISO 8601>"}` (relaxed), `{"$date": {"$numberLong": "<ms>"}}`
    /// (canonical), or `{"$date": <ms>}` (legacy).
    static func date(_ value: JSONValue, _ key: String) throws(MongoDocumentFault) -> ParseDate {
        switch value["$date"] {
        case .string(let text)?:
            if let date = ParseDate(iso: text) { return date }
        case .integer(let ms)?:
            return ParseDate(millisecondsSince1970: ms)
        case .object(let long)?:
            if case .string(let text)? = long["$numberLong"], let ms = Int64(text) { return ParseDate(millisecondsSince1970: ms) }
        default:
            break
        }
        throw MongoDocumentFault(key, value, "not a date: a date is stored as {\"$date\": \"<ISO 8601>\"} or {\"$date\": {\"$numberLong\": \"<ms>\"}}")
    }

    private static func bytes(_ base64: String) -> JSONValue {
        .object(JSONObject(["__type": .string("Bytes"), "base64": .string(base64)]))
    }

    /// `_rperm`/`_wperm`: a list of user ids, `role:` names and `*`.
    private static func permissionList(_ value: JSONValue, _ key: String) throws(MongoDocumentFault) -> [String] {
        guard case .array(let items) = value else { throw MongoDocumentFault(key, value, "must be a list of user ids, role:<name> and *") }
        var names: [String] = []
        for item in items {
            guard let name = item.stringValue else { throw MongoDocumentFault(key, value, "must be a list of user ids, role:<name> and *") }
            names.append(name)
        }
        return names
    }
}
