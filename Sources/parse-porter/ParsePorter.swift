import ArgumentParser
import Foundation
import PorterPipeline

@main
struct ParsePorter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse-porter",
        abstract: "Move data into and out of Parse backends: CSV/JSON datasets into a SQLite mirror or a Parse Server, pointers and relations resolved; whole apps pulled into a mirror.",
        discussion: """
            Exit codes: 0 ok, 1 data invalid or check failed, 2 usage or manifest error, 3 target unreachable, refused or failing.
            """,
        version: PorterRelease.version,
        subcommands: [ImportCommand.self, ValidateCommand.self, PlanCommand.self, ExportCommand.self, PullCommand.self, ServeCommand.self,
                      MigrateCommand.self, SchemaCommand.self, InitCommand.self]
    )

    /// Runs the command; library errors and usage errors map to the documented exit codes.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch let error as PorterError {
            Terminal.error(error.message)
            Foundation.exit(error.kind.rawValue)
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                Terminal.error(fullMessage(for: error))
                Foundation.exit(PorterError.Kind.usage.rawValue)
            }
            self.exit(withError: error)
        }
    }
}
