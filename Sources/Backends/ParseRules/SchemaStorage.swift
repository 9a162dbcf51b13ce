import ParseModel

/// Where ``SchemaRequests`` keeps class schemas and the tables behind them: the mirror's
/// connection, or a Parse Server's own PostgreSQL database. Requests check a change before they
/// call these; a method throws ``ParseError`` for what Parse Server would refuse and
/// `PorterError` when the storage itself fails.
package protocol SchemaStorage {
    /// Every class's schema, by class name.
    func schemas() throws -> [String: ClassSchema]
    /// One class's schema; `nil` when there is no such class.
    func schema(_ className: String) throws -> ClassSchema?
    /// Creates a new class: its table, its fields' columns and join tables, its indexes, its schema.
    func createClass(_ schema: ClassSchema) throws
    /// Adds fields to an existing class (columns or join tables) and saves its schema, which
    /// already lists them.
    func addFields(_ fields: [SchemaField], savingSchema schema: ClassSchema) throws
    /// Removes a field with its values, from the storage and from `schema`, and saves the schema.
    func dropField(_ name: String, from schema: inout ClassSchema) throws
    /// Saves a changed schema: field options, class-level permissions, indexes.
    func saveSchema(_ schema: ClassSchema) throws
    /// How many objects the class holds.
    func objectCount(_ className: String) throws -> Int
    /// Drops a class: its table, its join tables and its schema.
    func dropClass(_ schema: ClassSchema) throws
}
