// README-EXAMPLE: export
import MirrorQuery
import PorterPipeline

/// Writes the `className` objects of the mirror at `mirrorPath` into `folder` (which must be
/// missing or empty) as one JSON array of Parse wire objects: `<className>.json`.
func exportClass(_ className: String, fromMirror mirrorPath: String, to folder: String) async throws -> ExportReport {
    let source = try MirrorObjectSource(path: mirrorPath)
    let options = ExportOptions(format: .json, classes: [className])
    return try await Exporter(source: source, options: options).run(to: folder)
}
// README-EXAMPLE-END
