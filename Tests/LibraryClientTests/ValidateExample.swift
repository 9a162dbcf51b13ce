// README-EXAMPLE: validate
import PorterPipeline

/// Checks the dataset in `folder` without writing anything. Each fault names the file, line,
/// column, field and value, and says what is wrong.
func validateDataset(folder: String) async throws -> [Diagnostic] {
    let report = try await Importer(manifest: ManifestLoader.load(folder)).validate()
    for fault in report.errors {
        print("\(fault.location.file):\(fault.location.line): \(fault.location.field ?? "-"): \(fault.reason)")
    }
    return report.errors
}
// README-EXAMPLE-END
