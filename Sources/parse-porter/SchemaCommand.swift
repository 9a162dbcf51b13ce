import ArgumentParser
import Foundation
import ParseModel
import PorterMigrations
import PorterPipeline
import PorterPostgres

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Pull a target's class schemas into a file, push a file onto a target, and compare the two.",
        discussion: """
            A schema file lists classes as GET /schemas does ({"results":[…]}), or as a plain list (Parse Dashboard's schema export, the definitions of Parse Server's defined schemas): fields, classLevelPermissions, indexes.

            The target is --target: a SQLite mirror file, a Parse Server URL (master key from $PARSE_MASTER_KEY or $PARSE_SERVER_MASTER_KEY), a Parse Server's PostgreSQL database (postgres://…, changed as Parse Server's PostgresStorageAdapter changes it) or a target of parse-porter.yml; without --target, $PARSE_SERVER_URL.

            Examples:
              parse-porter schema pull --target app.sqlite --out schema.json
              parse-porter schema diff --target https://parse.example.com/parse \\
                  schema.json
              parse-porter schema check --target staging schema.json --format junit \\
                  > schema-report.xml
              parse-porter schema push --target app.sqlite schema.json --dry-run
              parse-porter schema infer exported-app.zip > exported-app/schema.json
            """,
        subcommands: [Pull.self, Push.self, Diff.self, Check.self, Infer.self]
    )
}

/// The target of a schema command and how to reach it.
struct SchemaTargetOptions: ParsableArguments {
    @Option(
        name: .customLong("target"),
        help:
            "A SQLite mirror file, a Parse Server URL with its mount path, a Parse Server's PostgreSQL database (postgres://…), or a target named in parse-porter.yml (default: $PARSE_SERVER_URL)."
    )
    var givenTarget: String?

    @OptionGroup var server: TargetOptions

    /// The target given, or else `$PARSE_SERVER_URL` (``validate()`` made sure there is one).
    var target: String { TargetOptions.target(givenTarget) ?? "" }

    func validate() throws {
        if TargetOptions.target(givenTarget) == nil { throw TargetOptions.missingTarget("--target") }
    }

    /// The target's schemas; a mirror that does not exist is exit 3.
    func liveSchemas() async throws(PorterError) -> (location: String, schemas: [ClassSchema]) {
        let migrationTarget = try server.migrationTarget(target)
        return (migrationTarget.location, try await migrationTarget.api.schemas())
    }
}

/// The schema file argument of push, diff and check.
struct SchemaFileArgument: ParsableArguments {
    @Argument(help: "The schema file: {\"results\":[classes…]} as GET /schemas answers, or a list of classes.")
    var file: String

    /// Compares the file with the target and prints the differences in `format`, the text ending
    /// with a line that counts them or says there are none (diff and check print the same). The
    /// file is read first, so a bad file is exit 2 whatever the target. In junit a bad file or a
    /// target that cannot be read is a failed test case too, so CI has a report either way.
    @discardableResult
    func printDiff(against target: SchemaTargetOptions, as format: SchemaCommand.OutputFormat) async throws(PorterError) -> SchemaDiff {
        let document: SchemaDocument, location: String, live: [ClassSchema]
        do { document = try SchemaDocument.read(file) } catch { throw failed(file, error, as: format) }
        do { (location, live) = try await target.liveSchemas() } catch { throw failed("target", error, as: format) }
        let diff = SchemaDiff(declared: document.classes, live: live, liveIndexKeysInJSONBOrder: TargetOptions.isServerURL(location))
        switch format {
        case .text where diff.isEmpty:
            Terminal.output("\(location) matches \(file): \(Noun.counted(diff.classNames.count, "class")), no differences")
        case .text:
            Terminal.output(
                diff.text + "\n\(Noun.counted(diff.count, "difference")) in \(Noun.counted(diff.classes.count, "class")) between \(file) and \(location)")
        case .json:
            Terminal.output(diff.json.serialized())
        case .junit:
            Terminal.output(diff.junit.xml)
        }
        return diff
    }

    /// `error`, after printing it in junit as a report of one failed test case `name` (the
    /// schema file, or "target"), whose failure is the error's message.
    private func failed(_ name: String, _ error: PorterError, as format: SchemaCommand.OutputFormat) -> PorterError {
        guard format == .junit else { return error }
        let failure = JUnitReport.Failure(message: error.message.split(separator: "\n").first.map(String.init) ?? "", details: error.message)
        Terminal.output(
            JUnitReport(suiteName: "schema check", cases: [JUnitReport.TestCase(className: "parse-porter.schema", name: name, failure: failure)]).xml)
        return error
    }
}

extension SchemaCommand {
    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the target's class schemas as a schema file (stdout without --out).",
            discussion: "Classes by name, fields, permissions and indexes in a fixed order: the same schema always gives the same bytes."
        )

        @OptionGroup var target: SchemaTargetOptions

        @Option(name: .long, help: "The file to write (replaced when it exists).")
        var out: String?

        func run() async throws {
            let (location, schemas) = try await target.liveSchemas()
            if TargetOptions.isServerURL(location) { Self.noteIndexKeyOrder(schemas) }
            let text = SchemaDocument(classes: schemas).text
            guard let out else {
                Terminal.output(String(text.dropLast()))
                return
            }
            do {
                try text.write(toFile: out, atomically: true, encoding: .utf8)
            } catch {
                throw PorterError(.invalidRequest, "\(out): cannot write the schema file: \(error.localizedDescription)")
            }
            Terminal.error("pulled \(Noun.counted(schemas.count, "class")) from \(location) into \(out)")
        }

        /// A Parse Server on PostgreSQL lists an index's keys in `jsonb`'s order, not the index's:
        /// the compound indexes whose keys come in that order are named, since their order may be wrong.
        static func noteIndexKeyOrder(_ schemas: [ClassSchema]) {
            let named = schemas.flatMap { schema in
                schema.ownIndexes.compactMap { index -> String? in
                    guard case .object(let keys) = index.value, keys.members.count > 1,
                        keys.members.map(\.key) == IndexKeys.jsonbOrder(keys.members.map(\.key))
                    else { return nil }
                    return "\(schema.className).\(index.key)"
                }
            }
            guard !named.isEmpty else { return }
            Terminal.error(
                "note: \(named.joined(separator: ", ")): the keys are written as /schemas lists them; a Parse Server on PostgreSQL "
                    + "lists them in jsonb's order (shorter names first), not the index's, so that order may be wrong: pull from the database "
                    + "(--target postgres://…) for the real one")
        }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the target's schemas match a schema file, as Parse Server's defined schemas do.",
            discussion: """
                Creates missing classes, adds missing fields, updates required and defaultValue, sets class-level permissions, and adds, drops or recreates indexes (Parse's own are left alone). Fields only on the target are kept, classes only on the target are left alone.

                A field whose type changed is refused (exit 1, nothing changed) unless --recreate-modified-fields. On a mirror or a PostgreSQL database the push is one transaction; a mirror that does not exist is created.
                """
        )

        @OptionGroup var target: SchemaTargetOptions
        @OptionGroup var schema: SchemaFileArgument

        @Flag(name: .long, help: "Delete fields the target has and the file does not, with their values.")
        var deleteExtraFields = false

        @Flag(name: .long, help: "Delete and add again fields whose type or targetClass changed; their values are lost.")
        var recreateModifiedFields = false

        @Flag(name: .long, help: "Print what would change; send nothing.")
        var dryRun = false

        func run() async throws {
            let document = try SchemaDocument.read(schema.file)
            let options = SchemaPushOptions(deleteExtraFields: deleteExtraFields, recreateModifiedFields: recreateModifiedFields)
            let location = try target.server.location(target.target)
            let newMirror = !TargetOptions.isServerURL(location) && !PostgresURL.isURL(location) && !FileManager.default.fileExists(atPath: location)
            if dryRun && newMirror {
                try report(SchemaPush(diff: SchemaDiff(declared: document.classes, live: []), options: options), location: location)
                return
            }
            do {
                let migrationTarget = try target.server.migrationTarget(target.target, create: true)
                let diff = SchemaDiff(
                    declared: document.classes, live: try await migrationTarget.api.schemas(),
                    liveIndexKeysInJSONBOrder: TargetOptions.isServerURL(migrationTarget.location))
                let push: SchemaPush
                do { push = try SchemaPush(diff: diff, options: options) } catch {
                    throw PorterError(error.cause, error.message + "\nGive --recreate-modified-fields to do that.")
                }
                if !dryRun { try await push.apply(to: migrationTarget) }
                let extraFields = diff.classes.contains { $0.change == .changed && $0.fields.contains { $0.change == .removed } }
                report(push, location: migrationTarget.location, extraFields: extraFields)
            } catch {
                if newMirror { Self.remove(mirror: location) }
                throw error
            }
        }

        /// `extraFields`: the target has fields the file does not, which the push kept.
        private func report(_ push: SchemaPush, location: String, extraFields: Bool = false) {
            if !push.classes.isEmpty { Terminal.output(push.text) }
            if !deleteExtraFields && extraFields {
                Terminal.output("(--delete-extra-fields deletes the fields kept above, with their values)")
            }
            let classes = push.classes.filter { !$0.changes.isEmpty }.count
            let tally =
                "\(Noun.counted(push.changeCount, "change")) in \(Noun.counted(classes, "class")) "
                + "(\(Noun.counted(push.requestCount, "request")))"
            Terminal.output(dryRun ? "dry run: would push \(tally) to \(location); nothing was sent" : "pushed \(tally) to \(location)")
        }

        /// A mirror this push created and could not fill is removed again.
        private static func remove(mirror path: String) {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }

    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print how the target's schemas differ from a schema file (exit 0 whatever the differences).",
            discussion: "+ declared but not on the target, - on the target but not declared, ~ on both but different (live → declared)."
        )

        /// ``OutputFormat`` without junit: diff checks nothing, so it has no test cases to report.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json

            var output: OutputFormat { self == .text ? .text : .json }
        }

        @OptionGroup var target: SchemaTargetOptions
        @OptionGroup var schema: SchemaFileArgument

        @Option(name: .long, help: "Output format: text or json.")
        var format: Format = .text

        func run() async throws {
            try await schema.printDiff(against: target, as: format.output)
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check that the target's schemas match a schema file, for CI.",
            discussion: "Exit 0 when they match, 1 when they differ, 2 for a bad schema file or usage, 3 when the target is unreachable or missing."
        )

        @OptionGroup var target: SchemaTargetOptions
        @OptionGroup var schema: SchemaFileArgument

        @Option(name: .long, help: "Output format: text, json, or junit (one test case per class).")
        var format: OutputFormat = .text

        func run() async throws {
            let diff = try await schema.printDiff(against: target, as: format)
            if !diff.isEmpty { throw ExitCode(PorterError.Cause.invalidData.exitCode) }
        }
    }

    /// How check (and diff, but for junit) prints the differences.
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable { case text, json, junit }
}

extension SchemaCommand {
    struct Infer: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the classes a Parse export's objects give, as a schema file, for review.",
            discussion: """
                Reads every <Class>.json of the folder or .zip (a schema.json there is not read) and types each key by its values' wire encoding; Relations come from placeholders and join files.

                Values of one field that disagree on the type are faults naming both objects (exit 1); the field is printed with the type first seen. Saved as schema.json beside the files, the output is what import reads instead of inferring.
                """
        )

        @Argument(help: "A Parse export folder or .zip.")
        var export: String

        @OptionGroup var reading: ExportReadingOptions

        func run() throws {
            let (classes, notes, faults) = try ManifestLoader.inferSchema(export, export: reading.options())
            for note in notes { Terminal.error(note) }
            for fault in faults { Terminal.error(FaultPrinter.message(of: fault)) }
            Terminal.output(String(SchemaDocument(classes: classes).text.dropLast()))
            if !faults.isEmpty { throw ExitCode(PorterError.Cause.invalidData.exitCode) }
        }
    }
}
