import ArgumentParser
import Foundation
import PorterPipeline
import PorterPostgres
import PorterREST

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Validate a dataset and load it into a target, pointers and relations resolved.",
        discussion: """
            Nothing is written unless the whole dataset is valid; a failed or interrupted import leaves the target as it was. Re-running an import changes only what changed in the sources, and never deletes anything: objects and links removed from the sources stay in the target unless --prune is given.

            A Parse Server target is written only after the whole dataset validated. Objects are matched by natural key: missing ones are created, changed ones updated, so a second run sends no writes and an interrupted run is finished by running it again. An object the server refuses is reported, skipped and written to <rejects>/<Class>.csv with the Parse error (exit 1).

            A Parse export is imported as Parse kept it: pointers and join rows naming deleted objects are kept and counted per field (--dangling clear or reject decides otherwise; a dataset with a manifest rejects them). A file of the export's folder that is not the export's is named, with the --exclude that leaves it out.

            A postgres:// URL loads Parse Server's own PostgreSQL database directly, in its PostgresStorageAdapter layout, by COPY in one transaction; users keep their password hashes. Cloud Code triggers do not run, and a running Parse Server must be restarted (or its schema cache expire) to see new classes; --dry-run says so and writes nothing.

            Examples (library/ is a dataset folder, parse-app/ a Parse export folder):
              parse-porter import library/
              parse-porter import library/ --target /tmp/library.sqlite
              parse-porter import parse-app/    # schema.json, <Class>.json, _Join files
              parse-porter import mongo-dump/   # _SCHEMA.json: Parse's MongoDB layout
              parse-porter import library/ --max-errors 10 --rejects /tmp/rejects
              parse-porter import library/ --prune --dry-run    # what a sync deletes
              parse-porter import customers.csv --class Customer --key email \\
                  --target app.sqlite
              curl -s https://example.com/orders.ndjson | parse-porter import - \\
                  --class Order --format ndjson --key number --target app.sqlite
              PARSE_APPLICATION_ID=myApp PARSE_MASTER_KEY=… parse-porter import \\
                  library/ --target https://parse.example.com/parse
              parse-porter import library/ --target staging    # from parse-porter.yml
              parse-porter import library/ --target postgres://parse@db:5432/parse
            """
    )

    @OptionGroup var source: DatasetArgument

    @OptionGroup var file: SingleFileOptions

    @Option(
        name: .customLong("target"),
        help:
            "The target: a SQLite mirror file (default: <dataset>/<name>.sqlite; for one FILE, <file name>.sqlite beside it; required for -), a Parse Server URL with its mount path, a Parse Server's PostgreSQL database (postgres://user@host:port/db), or a target named in parse-porter.yml."
    )
    var givenTarget: String?

    @Option(name: .customLong("to"), help: ArgumentHelp("The old spelling of --target.", visibility: .hidden))
    var givenTo: String?

    /// `--target`, or its old spelling `--to`.
    var to: String? { givenTarget ?? givenTo }

    @OptionGroup var server: TargetOptions

    @Flag(
        name: .long,
        help:
            "Mirror: write, report what would change, roll back. Parse Server: read what is there, report what would change and the requests it would send; nothing is written."
    )
    var dryRun = false

    @Flag(
        name: .long,
        help:
            "Sync: once the import succeeded, delete from the target the objects of each imported class whose keys the sources no longer hold, and the relation links the join files no longer list. With --dry-run: show them. Without it nothing is ever deleted."
    )
    var prune = false

    @Option(name: .long, help: "Load the valid rows when at most N rows are rejected; rejected rows go to the rejects folder.")
    var maxErrors: Int?

    @Option(
        name: .long,
        help: "Where rejected rows go, as <Class>.csv files: those --max-errors leaves out, and objects a Parse Server refuses (default: <dataset>/rejects).")
    var rejects: String?

    @Option(
        name: .long, help: "Objects per write (mirror, default 1000; PostgreSQL, default 10000) or operations per /batch request (Parse Server, default 50).")
    var batchSize: Int?

    @Option(name: .long, help: "/batch requests in flight at once (Parse Server).")
    var concurrency = 4

    @Flag(
        name: .long,
        help:
            "Parse Server: write _User objects whose source has a password hash without it (a random password they must reset); without this flag such an import writes nothing."
    )
    var usersWithoutPasswords = false

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress output.")
    var quiet = false

    func validate() throws {
        if let maxErrors, maxErrors < 0 { throw ValidationError("--max-errors must be 0 or more") }
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        try TargetOptions.checkOneSpelling(givenTarget, givenTo, spelt: "--to")
        try file.check(source.dataset, target: to)
        if file.isSingleFile(source.dataset) && !(source.export.exclude.isEmpty && source.export.relation.isEmpty) {
            throw ValidationError("--exclude and --relation read a Parse export's files; \(source.dataset) is one data file")
        }
    }

    func run() async throws {
        let singleFile = file.isSingleFile(source.dataset)
        let given = try to ?? (singleFile ? file.defaultTarget(source.dataset) : source.defaultTarget())
        let backend = try server.backend(given)
        let toServer = backend.isServer
        if prune && toServer && backend.masterKey == nil {
            throw PorterError(.invalidRequest, "--prune deletes objects on a Parse Server with the master key: set PARSE_MASTER_KEY (or --master-key)")
        }
        // What messages show: a URL without user info, which may hold keys.
        let target = backend.shown
        let sink = try server.sink(
            given, batchSize: batchSize ?? 50, concurrency: concurrency, dryRun: dryRun,
            usersWithoutPasswords: usersWithoutPasswords)
        let spool = try await file.spool(source.dataset)
        defer { spool?.remove() }
        var manifest =
            singleFile
            ? try file.manifest(source.dataset, spool: spool)
            : try source.manifest(targetClasses: Set(sink.existingSchemas().map(\.className)), printingNotes: false)
        if let dangling = source.dangling { manifest.danglingReferences = dangling }
        // With no manifest to review, what was guessed is said before anything is read again.
        if !manifest.inferredGuesses.isEmpty {
            Terminal.error(
                "no manifest: \(source.dataset == "-" ? "stdin" : source.dataset) imported with these guesses (save the output of `parse-porter init` to change them):"
            )
            for guess in manifest.inferredGuesses { Terminal.error("  guess: " + guess.text) }
        }
        // Rejected rows of stdin go to ./rejects, not into the spool's folder.
        let rejectsDirectory =
            rejects ?? ((spool == nil ? manifest.directory : FileManager.default.currentDirectoryPath) as NSString).appendingPathComponent("rejects")
        // To a server, each sink call carries enough objects to keep every connection busy.
        let objectsPerCall =
            toServer
            ? max(1000, (batchSize ?? 50) * concurrency * 5)
            : batchSize ?? (backend.isPostgres ? PostgresTarget.objectsPerWrite : 1000)
        var options = ImportOptions(maxErrors: maxErrors, batchSize: objectsPerCall, rejectsDirectory: rejectsDirectory, dryRun: dryRun)
        options.usersWithoutPasswords = usersWithoutPasswords
        options.prune = prune
        options.notice = { Terminal.error("note: " + $0) }
        // A JSON report lists every fault; a terminal shows the first ones (FaultPrinter).
        if json { options.shownErrorLimit = .max }
        let importer = Importer(manifest: manifest, options: options)
        let progress: (@Sendable (ImportProgress) -> Void)? = ProgressDisplay.callback(quiet: quiet || json)
        let storesPasswordHashes = sink.storesPasswordHashes
        let report = try await CtrlC.cancels { try await importer.run(into: sink, progress: progress) }
        // The plan as the server is written: known once the import has asked it about objectIds.
        if dryRun && toServer && !json, let plan = report.plan { Terminal.output(plan.text + "\n") }
        if json {
            Terminal.output(report.json.serialized())
        } else if report.succeeded {
            Terminal.output(report.table)
        }
        if !json && !report.succeeded {
            DatasetArgument.printNotes(skipped: report.skippedClasses, notes: report.notes)
        }
        FaultPrinter.print(report, maxErrors: maxErrors)
        guard report.succeeded else {
            if report.committed {
                let listed = report.rejectFiles.isEmpty ? "" : "; refused objects are in \(report.rejectFiles.joined(separator: ", "))"
                Terminal.error("\(report.classes.map(\.rejected).reduce(0, +)) objects were refused by \(target); everything else was written\(listed)")
            } else {
                if report.usersWithPasswordHashes + report.usersWithoutPassword > 0 && !storesPasswordHashes && !usersWithoutPasswords {
                    Terminal.error("--users-without-passwords writes those users with random passwords instead")
                }
                Terminal.error("nothing was written to \(target)")
            }
            throw ExitCode(PorterError.Cause.invalidData.exitCode)
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
