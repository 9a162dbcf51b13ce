import ArgumentParser
import Foundation
import MirrorQuery
import ParseModel
import PorterPipeline
import PorterREST

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the classes of a mirror or a Parse Server into a folder, one file per class and per relation.",
        discussion: """
            Formats:
              parse   <Class>.json as {"results":[…]}, _Join:<field>:<Class>.json
                      per relation, and schema.json; import reads it back without a
                      manifest, objectIds kept (the default)
              json    one JSON array of typed objects per class, join files alike
              ndjson  one typed object per line
              csv     one CSV per class: dates ISO 8601 UTC, objects and arrays as
                      JSON cells, pointers as objectIds (or natural keys with
                      --manifest), one join CSV per relation
              mongo   Parse Server's MongoDB layout in Extended JSON, one file per
                      collection (_SCHEMA.json, <Class>.json, _Join:…), users'
                      password hashes included, and mongoimport.sh, which loads
                      the folder with mongoimport and creates Parse's indexes

            The backend is --target (a mirror file, a Parse Server URL, or a target of parse-porter.yml); --to is the folder written.

            Files are written into a hidden folder inside the output folder and moved into place when all are complete: a failed export leaves the folder as it was. A folder that is not empty is refused unless --force.

            With --to - the one class named by --classes goes to standard output, and nothing else does: its relation links are left out (said on stderr), and a failure part-way leaves the objects written so far in the stream.

            Examples (app.sqlite is a mirror, library/ the dataset it was imported from):
              parse-porter export --target app.sqlite --to /tmp/out
              parse-porter export --target app.sqlite --to /tmp/out --format csv \\
                  --manifest library/ --emit-manifest
              PARSE_APPLICATION_ID=myApp PARSE_MASTER_KEY=… parse-porter export \\
                  --target https://parse.example.com/parse --to /tmp/out --classes Book
              parse-porter export --target app.sqlite --classes Book --format ndjson \\
                  --to - | jq .title
            """
    )

    @Option(
        name: .customLong("target"),
        help:
            "The backend to export from: a SQLite mirror file, a Parse Server URL with its mount path, a Parse Server's PostgreSQL database (postgres://user@host:port/db), or a target named in parse-porter.yml (default: $PARSE_SERVER_URL)."
    )
    var givenTarget: String?

    @Option(name: .customLong("from"), help: ArgumentHelp("The old spelling of --target.", visibility: .hidden))
    var givenFrom: String?

    /// `--target`, or its old spelling `--from`.
    var givenSource: String? { givenTarget ?? givenFrom }

    /// The source given, or else `$PARSE_SERVER_URL` (``validate()`` made sure there is one).
    var from: String { TargetOptions.target(givenSource) ?? "" }

    @Option(name: .long, help: "The folder to write into, or - for standard output (one class, --format ndjson or csv; messages go to stderr).")
    var to: String

    @Option(name: .long, help: "parse, json, ndjson, csv or mongo.")
    var format: ExportFormat = .parse

    @Option(name: .long, help: "Export only these classes (comma-separated).")
    var classes: String?

    @Option(name: .long, help: "A Parse where object (JSON) the exported objects match; needs --classes naming one class.")
    var `where`: String?

    @Option(name: .long, help: "A dataset (folder or manifest) whose keys name pointed-at objects in CSV cells.")
    var manifest: String?

    @Flag(name: .long, help: "Also write dataset.yml, the manifest that imports the export again.")
    var emitManifest = false

    @Flag(name: .long, help: "Write into a folder that is not empty, replacing files of the same names.")
    var force = false

    @Flag(
        name: .long,
        help:
            "Write each user's bcrypt password hash into _User.json as bcryptPassword (the parse format, from a mirror or a database), so that an import elsewhere keeps the users' passwords. Whoever reads the export can try passwords against them."
    )
    var includePasswordHashes = false

    @OptionGroup var server: TargetOptions

    @Option(name: .long, help: "Requests in flight at once (Parse Server).")
    var concurrency = 4

    @Flag(name: .shortAndLong, help: "No progress output.")
    var quiet = false

    func validate() throws {
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        try TargetOptions.checkOneSpelling(givenTarget, givenFrom, spelt: "--from")
        if TargetOptions.target(givenSource) == nil { throw TargetOptions.missingTarget("--target") }
    }

    func run() async throws {
        let source = try server.source(from, concurrency: concurrency)
        var options = ExportOptions(
            format: format, classes: try classList(), constraints: try constraints(),
            naturalKeys: try naturalKeys(), emitManifest: emitManifest, force: force)
        options.includePasswordHashes = includePasswordHashes
        if to == "-" {
            try await exportToStandardOutput(Exporter(source: source, options: options))
            return
        }
        let progress: (@Sendable (ClassProgress) -> Void)? = ProgressDisplay.callback(quiet: quiet)
        let exporter = Exporter(source: source, options: options), folder = to
        let report = try await CtrlC.cancels { try await exporter.run(to: folder, progress: progress) }
        for written in report.classes {
            Terminal.output("\(written.className): \(written.objects) objects → \(written.file)")
            for relation in written.relations {
                Terminal.output("\(written.className).\(relation.field): \(relation.links) links → \(relation.file)")
            }
        }
        let objects = report.classes.map { $0.objects }.reduce(0, +)
        let others = report.otherFiles.isEmpty ? "" : " and " + report.otherFiles.joined(separator: ", ")
        Terminal.output(
            String(format: "exported %d objects of %d classes%@ into %@ in %.2f s", objects, report.classes.count, others, to, report.elapsedSeconds))
        if let script = report.loadScript {
            Terminal.output("load it into Parse Server's MongoDB database with: MONGODB_URI=mongodb://… sh \(script)")
        }
        for note in report.notes { Terminal.error("note: " + note) }
        if includePasswordHashes, let users = report.classes.first(where: { $0.className == "_User" }) {
            Terminal.error(
                "warning: \(users.file) holds the bcrypt password hashes of \(users.passwordHashes) of its \(users.objects) users (bcryptPassword): "
                    + "whoever reads it can try passwords against them offline; keep the export as safe as the database, and delete it once imported")
        }
    }

    /// `--to -`: the objects on stdout, everything else on stderr.
    private func exportToStandardOutput(_ exporter: sending Exporter) async throws {
        let progress: (@Sendable (ClassProgress) -> Void)? = ProgressDisplay.callback(quiet: quiet)
        let report = try await CtrlC.cancels { try await exporter.runToStandardOutput(progress: progress) }
        for note in report.notes { Terminal.error("note: " + note) }
        guard !quiet, let written = report.classes.first else { return }
        Terminal.error(String(format: "exported %d %@ objects to standard output in %.2f s", written.objects, written.className, report.elapsedSeconds))
    }

    private func classList() throws(PorterError) -> [String]? {
        guard let classes else { return nil }
        let names = classes.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw PorterError(.invalidRequest, "--classes names no class") }
        return names
    }

    private func constraints() throws(PorterError) -> JSONObject? {
        guard let `where` else { return nil }
        guard case .object(let object)? = try? JSONParser.parse(`where`) else {
            throw PorterError(.invalidRequest, "--where: not a JSON object: \(`where`)")
        }
        return object
    }

    private func naturalKeys() throws(PorterError) -> [String: [String]] {
        guard let manifest else { return [:] }
        guard format == .csv else { throw PorterError(.invalidRequest, "--manifest names objects by key in CSV cells: use it with --format csv") }
        let dataset = try ManifestLoader.load(manifest)
        return Dictionary(dataset.classes.map { ($0.className, $0.keyFields) }, uniquingKeysWith: { a, _ in a })
    }
}

extension ExportFormat: ExpressibleByArgument {}
