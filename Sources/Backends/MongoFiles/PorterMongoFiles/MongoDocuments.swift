import ParseModel
import PorterCore

/// Parse Server's MongoDB layout, as its Mongo storage adapter writes it
/// (`src/Adapters/Storage/Mongo/MongoTransform.js`, `MongoSchemaCollection.js`,
/// `MongoStorageAdapter.js`), in MongoDB Extended JSON v2, relaxed mode: the documents an
/// export with `--format mongo` writes, one collection per file.
package enum MongoLayout {
    /// The collection of class schemas, and its file.
    package static let schemaCollection = "_SCHEMA"
    package static let schemaFile = "_SCHEMA.json"
    /// The shell script of `mongoimport` commands written beside the collections.
    package static let scriptFile = "mongoimport.sh"

    /// An object as `parseObjectToMongoObjectForCreate` stores it: `_id`, `_created_at` and
    /// `_updated_at` as dates, the ACL as `_rperm`/`_wperm` (`transformObjectACL`) and the legacy
    /// `_acl` (`addLegacyACL`), a pointer under `_p_<field>` as `Class$objectId`, each other value
    /// by `transformTopLevelAtom`; unset fields are left out. A user's hash is `_hashed_password`,
    /// and each provider of its `authData` a key `_auth_data_<provider>` (`transformAuthData`).
    package static func document(_ object: StoredObject, of className: String, fields: [SchemaField], passwordHash: String?) throws(PorterError) -> JSONValue {
        let context = "\(className) \(object.objectId)"
        var members: [JSONMember] = [JSONMember("_id", .string(object.objectId))]
        members.reserveCapacity(fields.count + 8)
        if let createdAt = object.createdAt { members.append(JSONMember("_created_at", date(createdAt))) }
        if let updatedAt = object.updatedAt { members.append(JSONMember("_updated_at", date(updatedAt))) }
        if let acl = object.acl { members += permissions(acl) }
        for (field, value) in zip(fields, object.values) where value != .null {
            if case .pointer(let pointer) = value {
                members.append(JSONMember("_p_" + field.name, .string("\(pointer.className)$\(pointer.objectId)")))
            } else if className == "_User", field.name == "authData", case .object(let providers) = value {
                for provider in providers.keys.sorted() where providers[provider] != .null {
                    members.append(JSONMember("_auth_data_" + provider, try interior(providers[provider]!, at: "\(context) authData")))
                }
            } else {
                members.append(JSONMember(field.name, try topLevel(value, at: "\(context) \(field.name)")))
            }
        }
        if let passwordHash { members.append(JSONMember("_hashed_password", .string(passwordHash))) }
        return .object(JSONObject(members))
    }

    /// `_rperm` and `_wperm` (who may read, who may write; `transformObjectACL`) and the legacy
    /// `_acl` map of `{"r":true,"w":true}` (`addLegacyACL`), entries in name order.
    static func permissions(_ acl: ParseACL) -> [JSONMember] {
        let names = acl.entries.keys.sorted()
        let readers = names.filter { acl.entries[$0]!.read }, writers = names.filter { acl.entries[$0]!.write }
        let legacy = names.compactMap { name -> JSONMember? in
            let permission = acl.entries[name]!
            guard permission.read || permission.write else { return nil }
            var flags = JSONObject()
            if permission.write { flags["w"] = .bool(true) }
            if permission.read { flags["r"] = .bool(true) }
            return JSONMember(name, .object(flags))
        }
        return [
            JSONMember("_rperm", .array(readers.map(JSONValue.string))), JSONMember("_wperm", .array(writers.map(JSONValue.string))),
            JSONMember("_acl", .object(JSONObject(legacy))),
        ]
    }

    /// A top-level value (`transformTopLevelAtom`): a Date as a BSON date, Bytes as BSON binary, a
    /// GeoPoint as `[longitude, latitude]`, a Polygon as a closed GeoJSON ring of `[lng, lat]`, a
    /// File as its name; an Object or Array holds its values as ``interior(_:at:)`` writes them.
    static func topLevel(_ value: ParseValue, at context: @autoclosure () -> String) throws(PorterError) -> JSONValue {
        switch value {
        case .date(let date): return self.date(date)
        case .bytes(let base64): return binary(base64)
        case .geoPoint(let point): return .array([.double(point.longitude), .double(point.latitude)])
        case .polygon(let polygon):
            var ring = polygon.coordinates.map { JSONValue.array([.double($0.longitude), .double($0.latitude)]) }
            if let first = ring.first, ring.last != first { ring.append(first) }
            return .object(JSONObject(["type": .string("Polygon"), "coordinates": .array([.array(ring)])]))
        case .file(let file): return .string(file.name)
        default: return try interior(value, at: context())
        }
    }

    /// A value inside an Object or Array (`transformInteriorValue`): Dates and Bytes become BSON
    /// values, pointers and every other typed value keep their REST form; a key holding `$` or
    /// `.` cannot be stored (Parse Server refuses it with `INVALID_NESTED_KEY`).
    static func interior(_ value: ParseValue, at context: @autoclosure () -> String) throws(PorterError) -> JSONValue {
        switch value {
        case .date(let date): return self.date(date)
        case .bytes(let base64): return binary(base64)
        case .array(let items):
            var converted: [JSONValue] = []
            for item in items { converted.append(try interior(item, at: context())) }
            return .array(converted)
        case .object(let members):
            var converted: [JSONMember] = []
            for key in members.keys.sorted() {
                if key.contains("$") || key.contains(".") {
                    throw PorterError(
                        .invalidData,
                        "\(context()): the key \(JSONValue.string(key).serialized()) holds $ or ., which MongoDB cannot store (Parse Server refuses it too)")
                }
                converted.append(JSONMember(key, try interior(members[key]!, at: context())))
            }
            return .object(JSONObject(converted))
        default: return value.wireJSON
        }
    }

    /// A BSON date in relaxed Extended JSON: ISO 8601 text for the years 1970 to 9999, else the
    /// milliseconds since 1970 as `$numberLong`.
    static func date(_ date: ParseDate) -> JSONValue {
        let ms = date.millisecondsSince1970
        let inner: JSONValue = (0..<253_402_300_800_000).contains(ms) ? .string(date.iso) : .object(JSONObject(["$numberLong": .string(String(ms))]))
        return .object(JSONObject(["$date": inner]))
    }

    /// BSON binary of the generic subtype 00 (`BytesCoder.JSONToDatabase`).
    static func binary(_ base64: String) -> JSONValue {
        .object(JSONObject(["$binary": .object(JSONObject(["base64": .string(base64), "subType": .string("00")]))]))
    }

    /// A class's `_SCHEMA` document (`mongoSchemaFromFieldsAndClassNameAndCLP`): `_id` the class,
    /// the default fields, each field's type string (`parseFieldTypeToMongoFieldType`), and
    /// `_metadata` with `fields_options`, `class_permissions` and `indexes` when there are any.
    /// No `ACL`, and no `_User` `password` (`convertSchemaToAdapterSchema`).
    package static func schemaDocument(_ schema: ClassSchema) -> JSONValue {
        var members = [
            JSONMember("_id", .string(schema.className)), JSONMember("objectId", .string("string")),
            JSONMember("updatedAt", .string("date")), JSONMember("createdAt", .string("date")),
        ]
        var options: [JSONMember] = []
        for field in schema.fields where !ParseNames.defaultFields.contains(field.name) && !(schema.className == "_User" && field.name == "password") {
            members.append(JSONMember(field.name, .string(typeString(field.type))))
            var fieldOptions = JSONObject()
            if field.required { fieldOptions["required"] = .bool(true) }
            if let value = field.defaultValue { fieldOptions["defaultValue"] = value.wireJSON }
            if !fieldOptions.isEmpty { options.append(JSONMember(field.name, .object(fieldOptions))) }
        }
        var metadata = JSONObject()
        if !options.isEmpty { metadata["fields_options"] = .object(JSONObject(options)) }
        if let permissions = schema.classLevelPermissions, permissions != .null { metadata["class_permissions"] = permissions }
        if case .object(let indexes)? = schema.indexes, !indexes.isEmpty { metadata["indexes"] = .object(indexes) }
        if !metadata.isEmpty { members.append(JSONMember("_metadata", .object(metadata))) }
        return .object(JSONObject(members))
    }

    /// A field type as `_SCHEMA` spells it (`parseFieldTypeToMongoFieldType`): `*Target` for a
    /// Pointer, `relation<Target>` for a Relation, else the lower-cased type name.
    static func typeString(_ type: FieldType) -> String {
        switch type {
        case .pointer(let target): "*" + target
        case .relation(let target): "relation<\(target)>"
        default: type.name.lowercased()
        }
    }

    /// The collection of a Relation's links (`DatabaseController.joinTableName`).
    package static func joinCollection(owner: String, field: String) -> String { "_Join:\(field):\(owner)" }

    /// A relation link as `DatabaseController.addRelation` stores it; MongoDB gives it an `_id`.
    package static func link(_ link: RelationLink) -> JSONValue {
        .object(JSONObject(["owningId": .string(link.owningId), "relatedId": .string(link.relatedId)]))
    }
}
