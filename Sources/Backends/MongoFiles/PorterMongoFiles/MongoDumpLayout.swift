import ParseModel
import PorterCore
import PorterReaders

/// A folder of Parse Server's MongoDB collections (Docs/Export.md, "MongoDB layout"): `_SCHEMA.json`
/// holds the class schemas as `MongoSchemaCollection.js` stores them, `<Class>.json` a class's
/// documents and `_Join:<field>:<Class>.json` a Relation's links, as `mongoexport` writes them
/// (or `export --format mongo`). The `_SCHEMA.json` file is what makes a folder one.
///
/// What an import of such a folder reads: the schemas as the `/schemas` list a Parse export's
/// `schema.json` holds (the pipeline builds the dataset's manifest from it, as for a Parse
/// export), and each class's collection through ``MongoDocumentReader``.
package enum MongoDumpLayout {
    /// Keys of a `_SCHEMA` document that are no field (`nonFieldSchemaKeys`).
    static let nonFieldKeys: Set = ["_id", "_metadata", "_client_permissions"]
    /// What `mongoSchemaToParseSchema` gives the operations a stored `class_permissions` leaves out (`emptyCLPS`).
    static let emptyPermissions = ["find", "count", "get", "create", "update", "delete", "addField", "protectedFields"]

    /// A class of `_SCHEMA.json`: its `/schemas` entry, and its fields' types for its documents' reader.
    package typealias Schema = (className: String, entry: JSONValue, types: [String: FieldType])

    /// Whether `files` are such a folder: they hold `_SCHEMA.json`.
    package static func isDump(_ files: SourceFiles) -> Bool { files.isFile(MongoLayout.schemaFile) }

    /// The fault of a folder of MongoDB documents (an `_id`, no `objectId`) without its
    /// `_SCHEMA.json`, which says what the `_p_` keys point at and which keys are Dates; `nil`
    /// when the first document of its first class file is no such document.
    package static func missingSchemaFault(_ files: SourceFiles) -> PorterError? {
        guard let name = files.fileNames.sorted().first(where: { $0.hasSuffix(".json") && !$0.hasPrefix("_Join") }),
            var reader = try? files.openReader(name, format: .json), let record = try? reader.next(),
            case .json(let document) = record.content, document["_id"] != nil, document["objectId"] == nil
        else { return nil }
        return PorterError(
            .invalidRequest,
            "\(name): a MongoDB document (_id, no objectId), but the folder has no \(MongoLayout.schemaFile): "
                + "export Parse Server's _SCHEMA collection beside the others (mongoexport --collection _SCHEMA --out \(MongoLayout.schemaFile))")
    }

    /// The documents of `file`, the collection of `className` in `files`, as its records: REST
    /// objects, read by ``MongoDocumentReader`` with the class's field `types`.
    package static func records(of className: String, types: [String: FieldType], file: String, in files: SourceFiles) -> MemorySource {
        MemorySource(name: file) { MongoDocumentReader(base: try files.openReader(file, format: .json), className: className, fields: types) }
    }

    /// Each `_SCHEMA` document of `files` as a `/schemas` entry, with its fields' types.
    package static func schemas(in files: SourceFiles) throws(PorterError) -> [Schema] {
        var reader: any RecordReader
        var entries: [Schema] = []
        do throws(ReaderError) {
            reader = try files.openReader(MongoLayout.schemaFile, format: .json)
            while let record = try reader.next() {
                guard case .json(let document) = record.content else { continue }
                do throws(MongoDocumentFault) {
                    entries.append(try Self.schemaEntry(document))
                } catch {
                    throw ReaderError(file: MongoLayout.schemaFile, line: record.line, column: error.key, value: error.value, reason: error.reason)
                }
            }
        } catch {
            throw PorterError(.invalidRequest, error.description)
        }
        return entries
    }

    /// The `/schemas` entry of a `_SCHEMA` document (`mongoSchemaToParseSchema`): the fields by
    /// their type strings (`mongoFieldToParseSchemaField`) with their `_metadata.fields_options`,
    /// `class_permissions` over no permission at all, and `indexes`.
    static func schemaEntry(_ document: JSONObject) throws(MongoDocumentFault) -> Schema {
        guard let className = document["_id"]?.stringValue else {
            throw MongoDocumentFault("_id", document["_id"] ?? .null, "a _SCHEMA document's _id is its class name")
        }
        let metadata = document["_metadata"]
        var fields: [JSONMember] = [], types: [String: FieldType] = [:]
        for member in document where !nonFieldKeys.contains(member.key) && !ParseNames.defaultFields.contains(member.key) {
            guard let text = member.value.stringValue, let type = fieldType(text) else {
                throw MongoDocumentFault(
                    member.key, member.value,
                    "not a field type of _SCHEMA (number, string, boolean, date, object, array, geopoint, file, bytes, polygon, *Class, relation<Class>)")
            }
            types[member.key] = type
            var spec = JSONObject(["type": .string(type.name)])
            if let target = type.targetClass { spec["targetClass"] = .string(target) }
            if case .object(let options)? = metadata?["fields_options"]?[member.key] {
                for option in options where option.key != "type" && option.key != "targetClass" { spec[option.key] = option.value }
            }
            fields.append(JSONMember(member.key, .object(spec)))
        }
        var entry = JSONObject(["className": .string(className), "fields": .object(JSONObject(fields))])
        if case .object(let stored)? = metadata?["class_permissions"] {
            var permissions = JSONObject(emptyPermissions.map { JSONMember($0, .object(JSONObject())) })
            for member in stored { permissions[member.key] = member.value }
            entry["classLevelPermissions"] = .object(permissions)
        }
        if let indexes = metadata?["indexes"] { entry["indexes"] = indexes }
        return (className, .object(entry), types)
    }

    /// A `_SCHEMA` type string as a field type: `*Class`, `relation<Class>`, or a type's name
    /// in lower case (`map` is an old name of `object`).
    static func fieldType(_ text: String) -> FieldType? {
        if text.hasPrefix("*"), text.count > 1 { return .pointer(targetClass: String(text.dropFirst())) }
        if text.hasPrefix("relation<"), text.hasSuffix(">"), text.count > "relation<>".count {
            return .relation(targetClass: String(text.dropFirst("relation<".count).dropLast()))
        }
        switch text {
        case "number": return .number
        case "string": return .string
        case "boolean": return .boolean
        case "date": return .date
        case "object", "map": return .object
        case "array": return .array
        case "geopoint": return .geoPoint
        case "file": return .file
        case "bytes": return .bytes
        case "polygon": return .polygon
        default: return nil
        }
    }
}
