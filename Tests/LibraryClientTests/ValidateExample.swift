// README-EXAMPLE: validate
import PorterPipeline

/// Checks the dataset in `folder` without writing anything. Each fault has a kind and names the
/// file, line, column, class, field and value apart; every fault reaches `faultHandler`, the
/// report keeps the first 50 (`ImportOptions.shownErrorLimit`) and counts them all by kind.
func validateDataset(folder: String) async throws -> [Diagnostic] {
    var options = ImportOptions()
    options.faultHandler = { fault in
        let place = fault.location
        print("\(fault.kind): \(place.file):\(place.line) \(place.className ?? "-").\(place.fieldName ?? "-") = \(place.value ?? "")")
    }
    let report = try await Importer(manifest: ManifestLoader.load(folder), options: options).validate()
    for (kind, count) in report.faultCounts { print("\(count) × \(kind)") }
    return report.errors
}
// README-EXAMPLE-END
