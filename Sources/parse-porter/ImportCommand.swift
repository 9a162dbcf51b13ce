import ArgumentParser
import Foundation
import PorterPipeline

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Validate a dataset and load it into a target, pointers and relations resolved.",
        discussion: """
            Nothing is written unless the whole dataset is valid; a failed or interrupted import leaves the target as it was.
            Re-running an import changes only what changed in the sources.

            Examples:
              parse-porter import Fixtures/library
              parse-porter import Fixtures/recipes --to /tmp/recipes.sqlite
              parse-porter import Fixtures/library --max-errors 10 --rejects /tmp/rejects
            """
    )

    @OptionGroup var source: DatasetArgument

    @Option(name: .long, help: "The target: a SQLite mirror file (default: <dataset>/<name>.sqlite).")
    var to: String?

    @Flag(name: .long, help: "Write, report what would change, then roll everything back.")
    var dryRun = false

    @Option(name: .long, help: "Load the valid rows when at most N rows are rejected; rejected rows go to the rejects folder.")
    var maxErrors: Int?

    @Option(name: .long, help: "Where --max-errors writes <Class>.csv files of rejected rows (default: <dataset>/rejects).")
    var rejects: String?

    @Option(name: .long, help: "Objects per write.")
    var batchSize = 1000

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress output.")
    var quiet = false

    func validate() throws {
        if let maxErrors, maxErrors < 0 { throw ValidationError("--max-errors must be 0 or more") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() throws {
        let target = try to ?? source.defaultTarget()
        let sink = try source.sink(target)
        let manifest = try ManifestLoader.load(source.dataset, targetClasses: Set(sink.existingSchemas().map(\.className)))
        let rejectsDirectory = rejects ?? (manifest.directory as NSString).appendingPathComponent("rejects")
        let options = ImportOptions(maxErrors: maxErrors, batchSize: batchSize, rejectsDirectory: rejectsDirectory, dryRun: dryRun)
        let interruption = Interruption.catchInterrupts()
        defer { interruption.stop() }
        let report = try Importer(manifest: manifest, options: options).run(into: sink, progress: ProgressDisplay.callback(quiet: quiet || json))
        if json {
            Terminal.output(report.json.serialized())
        } else if report.succeeded {
            Terminal.output(report.table)
        }
        FaultPrinter.print(report)
        guard report.succeeded else {
            Terminal.error("nothing was written to \(target)")
            throw ExitCode(PorterError.Kind.invalidData.rawValue)
        }
        guard !json else { return }
        if report.committed {
            let rejected = report.rejectFiles.isEmpty ? "" : "; rejected rows in \(report.rejectFiles.joined(separator: ", "))"
            Terminal.output(String(format: "imported into %@ in %.2f s%@", target, report.elapsedSeconds, rejected))
        } else {
            Terminal.output("dry run: nothing was written to \(target)")
        }
    }
}
