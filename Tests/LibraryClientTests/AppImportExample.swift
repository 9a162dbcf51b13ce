// README-EXAMPLE: app-import
import Foundation
import ParsePorter

/// A shelf of the library, as the program has it: its properties are the fields.
struct Shelf: Codable, Sendable {
    let name: String
    let capacity: Int
    let lastInventory: Date
}

/// Opens the mirror at `mirrorPath` (made if missing), imports the dataset in `folder` into it,
/// then saves `shelves` as Shelf objects (a shelf of a name already stored is updated).
func openAndImport(folder: String, shelves: [Shelf], mirrorPath: String) async throws -> ParseApp {
    let app = try await ParseApp(target: .mirror(path: mirrorPath))
    let report = try await app.importDataset(folder)
    print("\(report.classes.map(\.inserted).reduce(0, +)) objects imported")
    _ = try await app.save(shelves, to: "Shelf", key: ["name"])
    return app
}
// README-EXAMPLE-END
