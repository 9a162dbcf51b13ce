import Foundation
import ParseModel
import PorterPipeline

extension OperationRunner {
    /// Runs the import pipeline on the dataset at `path` into the target's import sink: on a
    /// mirror inside the migration's transaction, on a Parse Server by natural key (objects
    /// that exist are updated only when they differ), so a second run writes nothing new.
    /// A dataset with faults is an error caused ``PorterError/Cause/invalidData``, naming the first ones.
    func importDataset(_ path: String) async throws(PorterError) -> OperationResult {
        let target = self.target
        // The import pass is synchronous, and a server's sink blocks on its requests: it runs
        // on a thread of its own, not on one of the tasks' threads.
        let report = try await Cancellation.onThread(named: "parse-porter migration import") { (cancellation) throws(PorterError) in
            let sink = target.importSink()
            let manifest = try ManifestLoader.load(path, targetClasses: Set(sink.existingSchemas().map(\.className)))
            return try Importer(manifest: manifest).run(into: sink, cancellation: cancellation)
        }
        guard report.succeeded else {
            let shown = report.errors.prefix(5).map(\.description).joined(separator: "; ")
            throw PorterError(.invalidData, "importing \(path): \(report.errorCount) faults: \(shown)")
        }
        let written = report.classes.map { $0.inserted + $0.updated }.reduce(0, +)
        let unchanged = report.classes.map(\.unchanged).reduce(0, +)
        let links = report.relations.map(\.added).reduce(0, +)
        return OperationResult(
            "imported \(path): \(written) objects written, \(unchanged) unchanged, \(links) links added",
            objectsWritten: written, objectsUnchanged: unchanged)
    }
}
