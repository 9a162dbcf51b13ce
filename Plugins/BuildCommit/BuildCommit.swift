import Foundation
import PackagePlugin

/// Before every build of `parse-porter`, `scripts/build-commit` writes `BuildCommit.swift`: the
/// git commit the package is built from, which `parse-porter --version` names.
@main
struct BuildCommit: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let package = context.package.directoryURL
        let generated = context.pluginWorkDirectoryURL.appending(path: "Generated")
        return [.prebuildCommand(
            displayName: "Naming the commit \(target.name) is built from",
            executable: URL(filePath: "/bin/sh"),
            arguments: [package.appending(path: "scripts/build-commit").path(), package.path(),
                        generated.appending(path: "BuildCommit.swift").path()],
            outputFilesDirectory: generated)]
    }
}
