import ParseModel
import ParseRules
import PorterCore

/// The `/schemas` routes' storage on a Parse Server's PostgreSQL database: ``PostgresSchemas``,
/// the DDL `PostgresStorageAdapter.js` runs, behind the checks the mirror's routes make.
struct PostgresSchemaStorage: SchemaStorage {
    let database: PostgresSchemas

    func schemas() throws -> [String: ClassSchema] {
        Dictionary(try database.all().map { ($0.className, $0) }, uniquingKeysWith: { a, _ in a })
    }

    func schema(_ className: String) throws -> ClassSchema? { try database.schema(className) }

    func createClass(_ schema: ClassSchema) throws { try database.createClass(schema, keyed: true) }

    func addFields(_ fields: [SchemaField], savingSchema schema: ClassSchema) throws {
        for field in fields { try database.addField(field, to: schema.className, keyed: true) }
        try database.save(schema)
    }

    func dropField(_ name: String, from schema: inout ClassSchema) throws {
        guard let index = schema.fields.firstIndex(where: { $0.name == name }) else { return }
        try database.dropField(schema.fields[index], of: schema.className)
        schema.fields.remove(at: index)
    }

    func saveSchema(_ schema: ClassSchema) throws { try database.save(schema) }

    func objectCount(_ className: String) throws -> Int { try database.objectCount(className) }

    func dropClass(_ schema: ClassSchema) throws { try database.dropClass(schema) }
}
