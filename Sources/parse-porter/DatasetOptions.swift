import ArgumentParser
import Foundation
import MirrorQuery
import ParseMirrorServer
import PorterMigrations
import PorterPipeline
import PorterPostgres
import PorterREST
import PorterSQLite

/// The dataset argument shared by import, validate and plan.
struct DatasetArgument: ParsableArguments {
    @Argument(
        help:
            "A dataset folder holding dataset.yml or dataset.json, a Parse export folder (<Class>.json, _Join:<field>:<Class>.json, and schema.json if there is one) or its .zip, Parse Server's MongoDB collections (a folder holding _SCHEMA.json), or the manifest file itself."
    )
    var dataset: String

    @Flag(name: .long, help: "Keys of JSON objects and CSV columns that no field reads are faults, in every class (as strict: true in a manifest).")
    var strict = false

    @Flag(name: .long, help: "A Parse export's _Installation objects are imported instead of skipped.")
    var includeInstallations = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A pointer, relation link or join row naming no object: keep it as Parse does, clear it (pointer unset, link left out), or reject its record (default: keep for a Parse export, reject for a dataset with a manifest). Kept and cleared ones are counted per field.",
            valueName: "keep|clear|reject"))
    var dangling: DanglingReferencePolicy?

    @OptionGroup var export: ExportReadingOptions

    /// The dataset's manifest; its notes and the classes it leaves out go to stderr unless
    /// `printingNotes` is false (import shows them in its summary).
    func manifest(targetClasses: Set<String> = [], printingNotes: Bool = true) throws(PorterError) -> DatasetManifest {
        var manifest = try ManifestLoader.load(dataset, targetClasses: targetClasses, export: export.options(includeInstallations: includeInstallations))
        if strict {
            for index in manifest.classes.indices { manifest.classes[index].strict = true }
        }
        if let dangling { manifest.danglingReferences = dangling }
        if printingNotes { Self.printNotes(skipped: manifest.skippedClasses, notes: manifest.notes) }
        return manifest
    }

    /// One line on stderr per class left out, with why, and per note.
    static func printNotes(skipped: [SkippedClass], notes: [String]) {
        for skipped in skipped { Terminal.error("skipped \(skipped.className): \(FaultPrinter.reason(of: skipped))") }
        for note in notes { Terminal.error("note: " + note) }
    }

    /// `<dataset folder>/<folder name>.sqlite`, the default mirror.
    func defaultTarget() throws(PorterError) -> String {
        try ManifestLoader.defaultMirror(for: dataset)
    }
}

/// How a Parse export's files are read where they cannot say themselves (import, validate, plan, schema infer).
struct ExportReadingOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "A Parse export: leave out the files whose names match this glob (a stray file that is not a class's objects); repeatable. Each file left out is named.",
            valueName: "glob"))
    var exclude: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A Parse export without schema.json: the class a Relation relates to, where its objects cannot say (every related object deleted); repeatable.",
            valueName: "Owner.field=Class"))
    var relation: [String] = []

    /// The library's options; a `--relation` that is not `Owner.field=Class` is a usage error.
    func options(includeInstallations: Bool = false) throws(PorterError) -> ParseExportOptions {
        var targets: [String: String] = [:]
        for given in relation {
            let parts = given.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].split(separator: ".").count == 2, !parts[1].isEmpty else {
                throw PorterError(.invalidRequest, "--relation \(given): give it as Owner.field=Class (--relation NotePage.linksTo=NotePage)")
            }
            targets[String(parts[0])] = String(parts[1])
        }
        return ParseExportOptions(includeInstallations: includeInstallations, excludedFiles: exclude, relationTargets: targets)
    }
}

extension DanglingReferencePolicy: ExpressibleByArgument {}

/// A Parse app's id and keys: from the options, or else from our variables (`PARSE_MASTER_KEY`,
/// the names Parse Dashboard and earlier releases use), or else from Parse Server's own
/// (`PARSE_SERVER_MASTER_KEY`). Empty values count as not given. A project target's come after
/// all of these (``TargetOptions/backend(_:)``).
struct ParseKeyOptions: ParsableArguments {
    @Option(name: .customLong("app-id"), help: "Parse application id (default: $PARSE_APPLICATION_ID, else $PARSE_SERVER_APPLICATION_ID).")
    var givenApplicationId: String?

    @Option(
        name: .customLong("master-key"),
        help: "Parse master key (default: $PARSE_MASTER_KEY, else $PARSE_SERVER_MASTER_KEY; prefer the variables: options show in ps).")
    var givenMasterKey: String?

    @Option(name: .customLong("rest-key"), help: "Parse REST API key (default: $PARSE_REST_API_KEY, else $PARSE_SERVER_REST_API_KEY).")
    var givenRESTAPIKey: String?

    @Option(
        name: .customLong("maintenance-key"),
        help:
            "Parse Server maintenance key (default: $PARSE_MAINTENANCE_KEY, else $PARSE_SERVER_MAINTENANCE_KEY): import keeps createdAt/updatedAt; serve accepts it."
    )
    var givenMaintenanceKey: String?

    var applicationId: String? { Self.value(givenApplicationId, "PARSE_APPLICATION_ID", "PARSE_SERVER_APPLICATION_ID") }
    var masterKey: String? { Self.value(givenMasterKey, "PARSE_MASTER_KEY", "PARSE_SERVER_MASTER_KEY") }
    var restAPIKey: String? { Self.value(givenRESTAPIKey, "PARSE_REST_API_KEY", "PARSE_SERVER_REST_API_KEY") }
    var maintenanceKey: String? { Self.value(givenMaintenanceKey, "PARSE_MAINTENANCE_KEY", "PARSE_SERVER_MAINTENANCE_KEY") }

    /// The first of `given` and the variables, in that order, that is set and not empty.
    private static func value(_ given: String?, _ variables: String...) -> String? {
        let environment = ProcessInfo.processInfo.environment
        return ([given] + variables.map { environment[$0] }).lazy.compactMap { $0 }.first { !$0.isEmpty }
    }
}

/// How to reach a target: a SQLite mirror path, or a Parse Server URL with its keys.
struct TargetOptions: ParsableArguments {
    @OptionGroup var keys: ParseKeyOptions

    @Option(name: .long, help: "Seconds a request to a Parse Server may take.")
    var timeout: Double = 30

    @Flag(name: .long, help: "Allow sending the master key over plain http to a host other than this machine.")
    var allowInsecureHTTP = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The project file whose targets --target names (default: parse-porter.yml in the current folder). A target's application id and the keys in the variables it names are used when no option or PARSE_* variable gives them.",
            valueName: "file"))
    var project: String?

    static func isServerURL(_ target: String) -> Bool {
        target.hasPrefix("http://") || target.hasPrefix("https://")
    }

    /// `$PARSE_SERVER_URL` (Parse Server's name for its own URL), when set and not empty.
    static var serverURLVariable: String? {
        ProcessInfo.processInfo.environment["PARSE_SERVER_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `given`, or else `$PARSE_SERVER_URL`; `nil` when neither is there.
    static func target(_ given: String?) -> String? {
        given ?? serverURLVariable
    }

    /// The usage error of a command given no target (`option`) and no `$PARSE_SERVER_URL`.
    static func missingTarget(_ option: String, _ what: String = "a SQLite mirror file, a Parse Server URL or a target of parse-porter.yml") -> ValidationError
    {
        ValidationError("\(option): give \(what), or set PARSE_SERVER_URL to the Parse Server's URL")
    }

    /// The sink `target` names. `batchSize` and `concurrency` shape `/batch` requests to a server.
    /// `usersWithoutPasswords`: see ``RESTSinkOptions/usersWithoutPasswords``.
    func sink(_ target: String, batchSize: Int = 50, concurrency: Int = 4, dryRun: Bool = false, usersWithoutPasswords: Bool = false) throws(PorterError)
        -> ObjectSink
    {
        let backend = try backend(target)
        if backend.isPostgres { return PostgresTarget(url: backend.location) }
        guard backend.isServer else { return SQLiteMirror(path: backend.location) }
        return RESTSink(
            client: try client(backend, concurrency: concurrency),
            options: RESTSinkOptions(batchSize: batchSize, concurrency: concurrency, dryRun: dryRun, usersWithoutPasswords: usersWithoutPasswords))
    }

    /// The source `target` names, for export.
    func source(_ target: String, concurrency: Int = 4) throws(PorterError) -> ObjectSource {
        let backend = try backend(target)
        if backend.isPostgres { return PostgresSource(url: backend.location) }
        guard backend.isServer else { return try MirrorObjectSource(path: backend.location) }
        return RESTObjectSource(client: try client(backend, concurrency: concurrency), concurrency: concurrency)
    }

    /// A client of the Parse Server `target` names (its URL or a project target), with the keys and timeout given.
    func client(_ target: String, concurrency: Int = 4) throws(PorterError) -> ParseRESTClient {
        try client(backend(target), concurrency: concurrency)
    }

    private func client(_ backend: Backend, concurrency: Int) throws(PorterError) -> ParseRESTClient {
        let address: ParseServerAddress
        do {
            address = try ParseServerAddress(
                url: backend.location, applicationId: backend.applicationId, masterKey: backend.masterKey,
                restAPIKey: backend.restAPIKey, maintenanceKey: backend.maintenanceKey, allowInsecureHTTP: allowInsecureHTTP)
        } catch {
            let hint = Self.addressHint(url: backend.location, applicationId: backend.applicationId, keys: [backend.masterKey, backend.restAPIKey])
            throw PorterError(error.cause, error.message + (hint.map { "\n" + $0 } ?? ""))
        }
        return ParseRESTClient(address: address, timeout: timeout, maximumConnections: concurrency)
    }

    /// The options and variables that give what a Parse Server address lacked.
    private static func addressHint(url: String, applicationId: String?, keys: [String?]) -> String? {
        if applicationId?.isEmpty != false { return "Give --app-id or set PARSE_SERVER_APPLICATION_ID." }
        if keys.allSatisfy({ $0?.isEmpty != false }) {
            return "Give --master-key (or --rest-key) or set PARSE_SERVER_MASTER_KEY (or PARSE_SERVER_REST_API_KEY)."
        }
        return url.lowercased().hasPrefix("http://") ? "Use an https:// URL, or give --allow-insecure-http if the network is trusted." : nil
    }

    func validate() throws {
        if timeout <= 0 { throw ValidationError("--timeout must be more than 0") }
    }
}

extension TargetOptions {
    /// The target of migrations and schema commands: a mirror path (made empty when `create` and
    /// missing), a Parse Server URL, spoken to with the master key, or a Parse Server's
    /// PostgreSQL database (`postgres://`).
    func migrationTarget(_ target: String, create: Bool = false) throws(PorterError) -> MigrationTarget {
        let backend = try backend(target)
        if backend.isPostgres { return try PostgresDatabaseTarget(url: backend.location) }
        guard backend.isServer else { return try MirrorTarget(path: backend.location, create: create) }
        return ServerTarget(client: try client(backend, concurrency: 4))
    }
}
