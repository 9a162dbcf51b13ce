import Foundation
import ParseModel
import PorterPipeline

extension OperationRunner {
    /// Runs the import pipeline on the dataset at `path` into the target's import sink: on a
    /// mirror inside the migration's transaction, on a Parse Server by natural key (objects
    /// that exist are updated only when they differ), so a second run writes nothing new.
    /// A dataset with faults is exit 1, naming the first ones.
    func importDataset(_ path: String) async throws(PorterError) -> OperationResult {
        let target = self.target
        // The import pass is synchronous, and a server's sink blocks on its requests: it runs
        // on a thread of its own, not on one of the tasks' threads.
        let report = try await Self.onOwnThread { () throws(PorterError) -> ImportReport in
            let sink = target.importSink()
            let manifest = try ManifestLoader.load(path, targetClasses: Set(sink.existingSchemas().map(\.className)))
            return try Importer(manifest: manifest).run(into: sink)
        }
        guard report.succeeded else {
            let shown = report.errors.prefix(5).map(\.description).joined(separator: "; ")
            throw PorterError(.invalidData, "importing \(path): \(report.errorCount) faults: \(shown)")
        }
        let written = report.classes.map { $0.inserted + $0.updated }.reduce(0, +)
        let unchanged = report.classes.map(\.unchanged).reduce(0, +)
        let links = report.relations.map(\.added).reduce(0, +)
        return OperationResult("imported \(path): \(written) objects written, \(unchanged) unchanged, \(links) links added",
                               objectsWritten: written, objectsUnchanged: unchanged)
    }

    /// Runs `work` on a new thread and waits for it without holding a thread of the caller's.
    private static func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws(PorterError) -> Value) async throws(PorterError) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, PorterError>, Never>) in
            Thread { continuation.resume(returning: Result(catching: work)) }.start()
        }
        return try result.get()
    }
}
