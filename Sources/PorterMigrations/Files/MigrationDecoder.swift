import ParseModel
import PorterPipeline

/// Turns a migration file's document (YAML or JSON, same structure) into its operations,
/// naming the key path of each fault: `Migrations/V3__x.yml: operations[2].addField.type:
/// unknown type "Strin" (expected String, Number, …)`. Every fault is an invalid request
/// (``PorterError/Cause/invalidRequest``). Only what the file says is checked here; whether classes, fields and indexes
/// exist is checked when the migration runs.
///
/// The file format:
///
/// ```yaml
/// description: optional free text
/// operations:                    # at least one; each item a mapping with exactly one key
///   - createClass:
///       className: Book
///       fields:                  # optional; /schemas field specs without the default
///                                # fields (objectId, createdAt, updatedAt, ACL)
///         title: {type: String, required: true}
///         author: {type: Pointer, targetClass: Author}
///         pages: {type: Number, defaultValue: 0}
///       classLevelPermissions: {find: {"*": true}, get: {"*": true}}   # optional, as /schemas
///       indexes: {title_1: {title: 1}}    # optional; values 1, -1, "text", "2d", "2dsphere" or "hashed"
///   - addField: {className: Book, name: isbn, type: String, required: false, defaultValue: null}
///   - deleteField: {className: Book, name: isbn}
///   - addIndex: {className: Book, name: title_1, keys: {title: 1}}
///   - dropIndex: {className: Book, name: title_1}
///   - setPermissions: {className: Book, classLevelPermissions: {find: {"*": true}}}
///   - renameField: {className: Book, from: year, to: publishingYear}
///   - changeType: {className: Book, field: pages, type: String, allowDataLoss: false}
///   - import: {dataset: ../Fixtures/library}   # relative to the migrations folder, kept as written
///   - updateObjects: {className: Book, where: {pages: {"$exists": false}}, set: {pages: 0}}
///   - deleteObjects: {className: Book, where: {title: "Draft"}}
/// ```
///
/// - Field specs (`createClass.fields.<name>`, `addField`, `changeType`): `type` is one of
///   String, Number, Boolean, Date, Object, Array, GeoPoint, File, Bytes, Polygon, Pointer,
///   Relation (ACL is every class's own field, not declared); Pointer and Relation need
///   `targetClass`, no other type takes one. `required` is a boolean; `defaultValue` is Parse
///   wire JSON of the field's type (`{"__type": "Date", "iso": …}` for a Date), `null` meaning
///   none. A Relation takes neither.
/// - Class and field names follow Parse's rules; the default fields cannot be declared,
///   deleted, renamed, retyped or set.
/// - `classLevelPermissions` maps the operations find, count, get, create, update, delete,
///   addField to `{entity: true}` (or `pointerFields: [names]`), readUserFields and
///   writeUserFields to lists of names, protectedFields to `{entity: [names]}`.
/// - `changeType.allowDataLoss` is a boolean, false when absent.
/// - `where` is a Parse query (`{}` matches every object) and is required, so that an update
///   or delete of a whole class is written out. `set` is a non-empty mapping of field names to
///   wire JSON values; `{"__op": "Delete"}` unsets a field.
struct MigrationDecoder {
    /// The file's path, which starts every message.
    let path: String

    static let topKeys = ["description", "operations"]
    static let operationNames = [
        "createClass", "addField", "deleteField", "addIndex", "dropIndex", "setPermissions", "renameField", "changeType",
        "import", "updateObjects", "deleteObjects",
    ]

    func decode(_ document: JSONValue) throws(PorterError) -> [MigrationOperation] {
        guard case .object = document else {
            throw fail("", "must be a mapping with an operations list, not \(document.kindName)")
        }
        let top = try mapping(document, at: "", allowed: Self.topKeys)
        _ = try string(top, "description", at: "")
        guard let list = top["operations"], list != .null else { throw fail("operations", "is required: a list of operations") }
        guard case .array(let items) = list else { throw fail("operations", "must be a list, not \(list.kindName)") }
        guard !items.isEmpty else { throw fail("operations", "must list at least one operation") }
        var operations: [MigrationOperation] = []
        for (index, item) in items.enumerated() {
            operations.append(try operation(item, at: "operations[\(index)]"))
        }
        return operations
    }

    func operation(_ item: JSONValue, at itemPath: String) throws(PorterError) -> MigrationOperation {
        let expected = "(expected one of \(Self.operationNames.joined(separator: ", ")))"
        guard case .object(let object) = item else {
            throw fail(itemPath, "must be a mapping with one key, the operation \(expected), not \(item.kindName)")
        }
        guard object.members.count == 1, let member = object.members.first else {
            throw fail(
                itemPath,
                object.isEmpty
                    ? "must hold one operation \(expected), not an empty mapping"
                    : "must hold exactly one operation, not \(object.members.count) (\(object.keys.joined(separator: ", ")))")
        }
        let keyPath = "\(itemPath).\(member.key)"
        let value = member.value
        switch member.key {
        case "createClass":
            let args = try mapping(value, at: keyPath, allowed: ["className", "fields", "classLevelPermissions", "indexes"])
            return .createClass(try classSchema(args, at: keyPath))
        case "addField":
            let args = try mapping(value, at: keyPath, allowed: ["className", "name"] + Self.fieldSpecKeys)
            return .addField(className: try className(args, at: keyPath), field: try field(try fieldName(args, "name", at: keyPath), args, at: keyPath))
        case "deleteField":
            let args = try mapping(value, at: keyPath, allowed: ["className", "name"])
            return .deleteField(className: try className(args, at: keyPath), name: try fieldName(args, "name", at: keyPath))
        case "addIndex":
            let args = try mapping(value, at: keyPath, allowed: ["className", "name", "keys"])
            return .addIndex(
                className: try className(args, at: keyPath), name: try requiredString(args, "name", at: keyPath),
                keys: try IndexKeys.check(try required(args, "keys", at: keyPath), at: "\(keyPath).keys", fail: fail))
        case "dropIndex":
            let args = try mapping(value, at: keyPath, allowed: ["className", "name"])
            return .dropIndex(className: try className(args, at: keyPath), name: try requiredString(args, "name", at: keyPath))
        case "setPermissions":
            let args = try mapping(value, at: keyPath, allowed: ["className", "classLevelPermissions"])
            return .setPermissions(
                className: try className(args, at: keyPath),
                classLevelPermissions: try permissions(
                    try required(args, "classLevelPermissions", at: keyPath),
                    at: "\(keyPath).classLevelPermissions"))
        case "renameField":
            let args = try mapping(value, at: keyPath, allowed: ["className", "from", "to"])
            let className = try className(args, at: keyPath)
            let from = try fieldName(args, "from", at: keyPath)
            let to = try fieldName(args, "to", at: keyPath)
            guard from != to else { throw fail("\(keyPath).to", "is the field's current name") }
            return .renameField(className: className, from: from, to: to)
        case "changeType":
            let args = try mapping(value, at: keyPath, allowed: ["className", "field", "type", "targetClass", "allowDataLoss"])
            return .changeType(
                className: try className(args, at: keyPath), field: try fieldName(args, "field", at: keyPath),
                type: try fieldType(args, at: keyPath), allowDataLoss: try bool(args, "allowDataLoss", at: keyPath) ?? false)
        case "import":
            let args = try mapping(value, at: keyPath, allowed: ["dataset"])
            return .importDataset(path: try requiredString(args, "dataset", at: keyPath))
        case "updateObjects":
            let args = try mapping(value, at: keyPath, allowed: ["className", "where", "set"])
            return .updateObjects(
                className: try className(args, at: keyPath), where: try query(args, at: keyPath),
                set: try changes(try required(args, "set", at: keyPath), at: "\(keyPath).set"))
        case "deleteObjects":
            let args = try mapping(value, at: keyPath, allowed: ["className", "where"])
            return .deleteObjects(className: try className(args, at: keyPath), where: try query(args, at: keyPath))
        default:
            throw fail(keyPath, "unknown operation \"\(member.key)\" \(expected)")
        }
    }
}
