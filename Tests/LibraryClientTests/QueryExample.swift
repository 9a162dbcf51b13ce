// README-EXAMPLE: query
import MirrorQuery
import ParseModel
import PorterSQLite

/// The objects of `className` in the mirror at `mirrorPath` that match a Parse `where`
/// (`{"publishingYear": {"$gte": 1950}}`), as Parse REST JSON, sorted by `order`, with the
/// objects of the pointer field `include` (if given) in place of their pointers.
func findObjects(
    _ className: String, where constraints: JSONObject, order: String, including include: String? = nil,
    inMirror mirrorPath: String
) throws -> [JSONObject] {
    let schemas = try SQLiteMirror(path: mirrorPath).existingSchemas()
    let reader = try MirrorReader(database: SQLiteDatabase(path: mirrorPath, create: false))
    var parameters = JSONObject(["where": .object(constraints), "order": .string(order)])
    if let include { parameters["include"] = .string(include) }
    let query = try ParseQuery(className: className, parameters: parameters)
    let schemasByName = Dictionary(uniqueKeysWithValues: schemas.map { ($0.className, $0) })
    return try reader.find(query, schemas: schemasByName, access: .master).results
}
// README-EXAMPLE-END
