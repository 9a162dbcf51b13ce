// README-EXAMPLE: app-export
import ParsePorter

/// Writes every class of `app` into `folder` as a Parse export, and returns all its shelves.
func exportLibrary(_ app: ParseApp, to folder: String) async throws -> [Shelf] {
    _ = try await app.export(to: folder, options: ExportOptions(format: .parse))
    return try await app.objects(of: "Shelf", as: Shelf.self)
}
// README-EXAMPLE-END
