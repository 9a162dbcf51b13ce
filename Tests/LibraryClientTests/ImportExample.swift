// README-EXAMPLE: import
import PorterPipeline
import PorterSQLite

/// Imports the dataset in `folder` (its `dataset.yml` and source files) into the SQLite
/// mirror at `mirrorPath`, made if missing. Nothing is written unless the whole dataset is valid.
func importDataset(folder: String, intoMirror mirrorPath: String) async throws -> ImportReport {
    let manifest = try ManifestLoader.load(folder)
    let report = try await Importer(manifest: manifest).run(into: SQLiteMirror(path: mirrorPath))
    for tally in report.classes {
        print("\(tally.className): \(tally.inserted) inserted, \(tally.updated) updated")
    }
    return report
}
// README-EXAMPLE-END
