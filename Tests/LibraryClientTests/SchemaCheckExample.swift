// README-EXAMPLE: schema
import ParseMirrorServer
import PorterMigrations

/// How the classes of the mirror at `mirrorPath` differ from those the schema file at
/// `schemaFile` declares (a `GET /schemas` answer or a list of classes, JSON or YAML).
func checkSchema(_ schemaFile: String, againstMirror mirrorPath: String) async throws -> SchemaDiff {
    let declared = try SchemaDocument.read(schemaFile).classes
    let live = try await MirrorTarget(path: mirrorPath, create: false).api.schemas()
    let diff = SchemaDiff(declared: declared, live: live)
    if !diff.isEmpty { print(diff.text) }
    return diff
}
// README-EXAMPLE-END
