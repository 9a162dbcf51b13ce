import ArgumentParser
import Foundation
import PorterPipeline

@main
struct ParsePorter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse-porter",
        abstract:
            "Move data into and out of Parse backends: CSV/JSON datasets into a SQLite mirror or a Parse Server, pointers and relations resolved; whole apps pulled into a mirror.",
        discussion: """
            Commands that read or write a backend take it with --target: a SQLite mirror file, a Parse Server URL with its mount path, or the name of a target in the project file parse-porter.yml (looked up in the current folder, or given with --project). Keys come from the options, else the environment (PARSE_APPLICATION_ID, PARSE_MASTER_KEY and the others, or Parse Server's PARSE_SERVER_* names), else the variables the project file names for the target. Without --target, commands other than import use $PARSE_SERVER_URL.

            Exit codes: 0 ok, 1 data invalid or check failed, 2 usage or manifest error, 3 target unreachable, refused or failing.

            The examples in each command's help use placeholder paths (library/ is a dataset folder holding dataset.yml and its CSV files). In a ParsePorter checkout, the datasets under Fixtures/ can stand in for them: parse-porter import Fixtures/library.
            """,
        version: versionText,
        subcommands: [
            ImportCommand.self, ValidateCommand.self, PlanCommand.self, ExportCommand.self, PullCommand.self, ServeCommand.self,
            MigrateCommand.self, SchemaCommand.self, InitCommand.self,
        ]
    )

    /// What `--version` prints: the release and the commit the binary was built from
    /// (`builtFromCommit`, written at build time by scripts/build-commit).
    static var versionText: String {
        guard let commit = builtFromCommit else { return "\(PorterRelease.version) (commit unknown: not built from a git checkout)" }
        return "\(PorterRelease.version) (commit \(commit.prefix(12))\(builtWithUncommittedChanges ? ", with uncommitted changes" : ""))"
    }

    /// Runs the command; library errors and usage errors map to the documented exit codes.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as PorterError {
            Terminal.error(FaultPrinter.message(of: error))
            Foundation.exit(error.cause.exitCode)
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                Terminal.error(fullMessage(for: error))
                Foundation.exit(PorterError.Cause.invalidRequest.exitCode)
            }
            self.exit(withError: error)
        }
    }
}
