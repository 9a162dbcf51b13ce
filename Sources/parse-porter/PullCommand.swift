import ArgumentParser
import Foundation
import PorterPipeline
import PorterPostgres
import PorterREST
import PorterSQLite

struct PullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Copy a whole Parse app into a SQLite mirror; later pulls bring only what changed.",
        discussion: """
            Every class /schemas lists (its schema with class-level permissions and indexes), every object with its objectId, createdAt, updatedAt and ACL, and every relation's links. Needs the master key. One transaction: a pull that fails leaves the mirror as it was.

            From Parse Server's own PostgreSQL database (a postgres:// URL) the pull reads the tables directly, and brings the users' password hashes too, which no Parse Server gives over REST: serve on the mirror then logs the users in with their passwords. The URL's password is never printed.

            The mirror keeps a watermark per class (table _PorterPull). The next pull reads only the objects updated since, and the links of those objects. Deleted objects are not noticed that way: --full also compares objectIds and deletes from the mirror what the server no longer has, with its relation links.

            The server is --target (its URL, a target of parse-porter.yml, or its database's URL); --to is the mirror written.

            Examples:
              PARSE_APPLICATION_ID=myApp PARSE_MASTER_KEY=… parse-porter pull \\
                  --target https://parse.example.com/parse --to app.sqlite
              PARSE_SERVER_URL=https://parse.example.com/parse \\
                  PARSE_SERVER_APPLICATION_ID=myApp PARSE_SERVER_MASTER_KEY=… \\
                  parse-porter pull --to app.sqlite
              parse-porter pull --target postgres://parse@db:5432/parse --to app.sqlite
              parse-porter pull --target staging --to app.sqlite --classes Book,Genre --full
            """
    )

    @Option(
        name: .customLong("target"),
        help:
            "The Parse Server to pull from: its URL with the mount path, e.g. http://127.0.0.1:1337/parse, a target named in parse-porter.yml, or its PostgreSQL database's postgres:// URL (default: $PARSE_SERVER_URL)."
    )
    var givenTarget: String?

    @Argument(help: ArgumentHelp("The old spelling of --target URL.", valueName: "url", visibility: .hidden))
    var givenArgument: String?

    /// `--target`, or the URL given as the argument (the old spelling).
    var givenURL: String? { givenTarget ?? givenArgument }

    /// The URL given, or else `$PARSE_SERVER_URL` (``validate()`` made sure there is one).
    var url: String { TargetOptions.target(givenURL) ?? "" }

    @Option(name: .long, help: "The SQLite mirror to pull into; created when it does not exist.")
    var to: String

    @Option(name: .long, help: "Only these classes, comma-separated.")
    var classes: String?

    @Flag(
        name: .long, help: "Also delete from the mirror the objects the server no longer has (compares every objectId). Without it, deletions are not detected."
    )
    var full = false

    @Option(name: .long, help: "/batch requests of relation reads in flight at once.")
    var concurrency = 4

    @OptionGroup var server: TargetOptions

    @Flag(name: .long, help: "Print the summary as JSON.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress output.")
    var quiet = false

    func validate() throws {
        if concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        try TargetOptions.checkOneSpelling(givenTarget, givenArgument, spelt: "the URL argument")
        if TargetOptions.target(givenURL) == nil {
            throw TargetOptions.missingTarget(
                "--target", "the Parse Server to pull from (its URL, a target of parse-porter.yml, or its database's postgres:// URL)")
        }
        let location: String
        do { location = try server.location(url) } catch { throw ValidationError(error.message) }
        if !TargetOptions.isServerURL(location) && !PostgresURL.isURL(location) {
            throw ValidationError(
                "\(ParseServerAddress.redacted(url)): pull reads from a Parse Server: give its http(s):// URL with the mount path, or its database's postgres:// URL"
            )
        }
        if TargetOptions.isServerURL(to) || PostgresURL.isURL(to) {
            throw ValidationError(
                "--to \(PostgresURL.isURL(to) ? PostgresURL.redacted(to) : ParseServerAddress.redacted(to)): pull writes into a SQLite mirror file, not a server or database"
            )
        }
        if let classes, classNames(classes).isEmpty { throw ValidationError("--classes: no class named") }
    }

    private func classNames(_ list: String) -> [String] {
        list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func run() async throws {
        let location = try server.location(url)
        // A database is read directly; a Parse Server through REST, whose requests are counted.
        let client = PostgresURL.isURL(location) ? nil : try server.client(url, concurrency: concurrency)
        let address = client?.address.description ?? PostgresURL.redacted(location)
        let source: ObjectSource = client.map { RESTObjectSource(client: $0, concurrency: concurrency) } ?? PostgresSource(url: location)
        let options = PullOptions(source: address, classes: classes.map(classNames), full: full)
        let puller = Puller(source: source, mirror: SQLiteMirror(path: to), options: options)
        let progress: (@Sendable (ClassProgress) -> Void)? = ProgressDisplay.callback(quiet: quiet || json)
        var report = try await CtrlC.cancels { try await puller.run(progress: progress) }
        report.requests = client?.requestTallies ?? []
        guard !json else {
            Terminal.output(report.json.serialized())
            return
        }
        Terminal.output(report.table)
        for note in report.notes { Terminal.error("note: " + note) }
        guard client != nil else {
            Terminal.output(String(format: "pulled %@ into %@ in %.2f s", address, to, report.elapsedSeconds))
            return
        }
        let requests = report.requests.map(\.requests).reduce(0, +)
        Terminal.output(String(format: "pulled %@ into %@ in %.2f s (%d requests)", address, to, report.elapsedSeconds, requests))
    }
}
