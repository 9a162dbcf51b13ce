import ParseModel

/// One step of a migration file, in the order the file lists them. Each is written so that
/// running it again after a partial run completes it without doing anything twice.
public enum MigrationOperation: Equatable, Sendable {
    /// A class with its fields, class-level permissions and indexes (`/schemas` format).
    case createClass(ClassSchema)
    /// A new field of an existing class.
    case addField(className: String, field: SchemaField)
    /// Removes a field and its values from every object.
    case deleteField(className: String, name: String)
    /// `keys` as Parse spells an index: `{"title": 1}`.
    case addIndex(className: String, name: String, keys: JSONValue)
    case dropIndex(className: String, name: String)
    /// Replaces the class-level permissions (`/schemas` JSON).
    case setPermissions(className: String, classLevelPermissions: JSONValue)
    /// Copies every value of `from` into `to` (a new field of the same type), then deletes `from`.
    case renameField(className: String, from: String, to: String)
    /// Replaces a field by one of `type`, converting each value; values that cannot be converted
    /// stop the migration unless `allowDataLoss`, which drops them.
    case changeType(className: String, field: String, type: FieldType, allowDataLoss: Bool)
    /// Runs the import pipeline on a dataset folder (resolved against the migrations folder);
    /// a file writes it `import: {dataset: ../Fixtures/library}`.
    case importDataset(path: String)
    /// Sets fields (wire JSON values, or `{"__op":"Delete"}`) on every object matching `where`.
    case updateObjects(className: String, where: JSONObject, set: JSONObject)
    /// Deletes every object matching `where` (`{}` matches all).
    case deleteObjects(className: String, where: JSONObject)
}
