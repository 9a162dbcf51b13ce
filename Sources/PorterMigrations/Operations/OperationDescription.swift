import ParseModel
import PorterPipeline

extension OperationRunner {
    /// The line `migrate plan` prints for an operation, e.g. "create class Book (3 fields, 1 index)"
    /// or "rename Book.year → publishingYear (copy values, then delete year)". `schemas`, the
    /// target's classes when known, lets a type change name the field's current type.
    public static func describe(_ operation: MigrationOperation, migrationsFolder: String, schemas: [ClassSchema] = []) -> String {
        switch operation {
        case .createClass(let schema):
            let permissions = schema.classLevelPermissions == nil ? "" : ", permissions"
            let indexes = schema.ownIndexes.count
            return "create class \(schema.className) (\(Noun.counted(schema.fields.count, "field")), \(Noun.counted(indexes, "index"))\(permissions))"
        case .addField(let className, let field):
            return "add field \(className).\(field.name) (\(field.type)\(field.required ? ", required" : ""))"
        case .deleteField(let className, let name):
            return "delete field \(className).\(name) and its values"
        case .addIndex(let className, let name, let keys):
            return "add index \(className).\(name) on \(keys.serialized())"
        case .dropIndex(let className, let name):
            return "drop index \(className).\(name)"
        case .setPermissions(let className, _):
            return "set the class-level permissions of \(className)"
        case .renameField(let className, let from, let to):
            return "rename \(className).\(from) → \(to) (copy values, then delete \(from))"
        case .changeType(let className, let field, let type, let allowDataLoss):
            let current = schemas.first { $0.className == className }?.field(named: field).map { "\($0.type) " } ?? ""
            let loss = allowDataLoss ? ", unset values that do not convert" : ""
            return "change \(className).\(field) \(current)→ \(type) (new field, converted copy, swap\(loss))"
        case .importDataset(let path):
            return "import dataset \(datasetPath(path, migrationsFolder: migrationsFolder))"
        case .updateObjects(let className, let constraints, let values):
            let set = values.filter { $0.value != deleteOperation }.map(\.key), unset = values.filter { $0.value == deleteOperation }.map(\.key)
            let changes = [set.isEmpty ? nil : "set \(set.joined(separator: ", "))", unset.isEmpty ? nil : "unset \(unset.joined(separator: ", "))"]
            return "\(changes.compactMap { $0 }.joined(separator: ", ")) on \(selection(className, constraints))"
        case .deleteObjects(let className, let constraints):
            return "delete \(selection(className, constraints))"
        }
    }

    /// "Book where {"year":{"$lt":1900}}", or "every Book"; a long `where` is cut at 80 characters.
    private static func selection(_ className: String, _ constraints: JSONObject) -> String {
        guard !constraints.isEmpty else { return "every \(className)" }
        let text = JSONValue.object(constraints).serialized()
        return "\(className) where \(text.count > 80 ? text.prefix(79) + "…" : text)"
    }
}
