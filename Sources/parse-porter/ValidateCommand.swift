import ArgumentParser
import Foundation
import PorterPipeline

struct ValidateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check a dataset as an import would, without writing anything.",
        discussion: """
            Reads every source, checks types, required fields, keys and references, and with --target the backend's schemas. Exit 0 when valid, 1 when not.

            Examples (library/ is a dataset folder):
              parse-porter validate library/
              parse-porter validate library/ --format json
              parse-porter validate library/ --target app.sqlite --format junit \\
                  > report.xml
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, junit }

    @OptionGroup var source: DatasetArgument

    @Option(
        name: .customLong("target"),
        help:
            "Also check against this backend's schemas: a SQLite mirror file, a Parse Server URL with its mount path, a Parse Server's PostgreSQL database (postgres://user@host:port/db), or a target named in parse-porter.yml."
    )
    var givenTarget: String?

    @Option(name: .customLong("against"), help: ArgumentHelp("The old spelling of --target.", visibility: .hidden))
    var givenAgainst: String?

    /// `--target`, or its old spelling `--against`.
    var against: String? { givenTarget ?? givenAgainst }

    @OptionGroup var server: TargetOptions

    @Option(name: .long, help: "Output format: text, json or junit.")
    var format: Format = .text

    @Flag(name: .shortAndLong, help: "No progress output.")
    var quiet = false

    func validate() throws {
        try TargetOptions.checkOneSpelling(givenTarget, givenAgainst, spelt: "--against")
    }

    func run() async throws {
        let sink = try against.map { target throws(PorterError) in try server.sink(target) }
        let targetSchemas = try sink?.existingSchemas() ?? []
        // A text report shows the notes in its table, or below the faults.
        let manifest = try source.manifest(targetClasses: Set(targetSchemas.map(\.className)), printingNotes: format != .text)
        let refusedNames = sink.map { SchemaCompatibility.refusedNames(of: manifest, by: $0, existing: targetSchemas) } ?? []
        var options = ImportOptions()
        // A JSON report lists every fault; a terminal and JUnit show the first ones.
        if format == .json { options.shownErrorLimit = .max }
        let progress: (@Sendable (ImportProgress) -> Void)? = ProgressDisplay.callback(quiet: quiet || format != .text)
        let report = try await CtrlC.cancels {
            try await Importer(manifest: manifest, options: options).validate(against: targetSchemas, refusedNames: refusedNames, progress: progress)
        }
        switch format {
        case .text:
            if report.succeeded {
                Terminal.output(report.table)
                Terminal.output("valid: \(report.classes.map(\.read).reduce(0, +)) records in \(report.classes.count) classes")
            } else {
                DatasetArgument.printNotes(skipped: report.skippedClasses, notes: report.notes)
                FaultPrinter.print(report)
            }
        case .json: Terminal.output(report.json.serialized())
        case .junit: Terminal.output(report.junit)
        }
        if !report.succeeded { throw ExitCode(PorterError.Cause.invalidData.exitCode) }
    }
}
