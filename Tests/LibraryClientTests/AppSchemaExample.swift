// README-EXAMPLE: app-schema
import ParsePorter

/// Checks `app` against the schema file `schemaFile`; when they differ, prints how and pushes
/// the file's classes (adding what is missing, never dropping a field).
func checkAndPushSchema(_ schemaFile: String, to app: ParseApp) async throws -> SchemaDiff {
    let declared = try SchemaDocument.read(schemaFile).classes
    let diff = try await app.schemaDiff(declared: declared)
    if !diff.isEmpty {
        print(diff.text)
        _ = try await app.pushSchema(declared: declared)
    }
    return diff
}
// README-EXAMPLE-END
