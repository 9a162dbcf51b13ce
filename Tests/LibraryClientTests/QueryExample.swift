// README-EXAMPLE: query
import MirrorQuery
import ParseModel
import PorterSQLite

/// The objects of `className` in the mirror at `mirrorPath` that match a Parse `where`
/// (`{"publishingYear": {"$gte": 1950}}`), as Parse REST JSON, sorted by `order`.
func findObjects(_ className: String, where constraints: JSONObject, order: String,
                 inMirror mirrorPath: String) throws -> [JSONObject] {
    let schemas = try SQLiteMirror(path: mirrorPath).existingSchemas()
    let reader = try MirrorReader(database: SQLiteDatabase(path: mirrorPath, create: false))
    let query = try ParseQuery(className: className,
                               parameters: JSONObject(["where": .object(constraints), "order": .string(order)]))
    let schemasByName = Dictionary(uniqueKeysWithValues: schemas.map { ($0.className, $0) })
    return try reader.find(query, schemas: schemasByName, access: .master).results
}
// README-EXAMPLE-END
