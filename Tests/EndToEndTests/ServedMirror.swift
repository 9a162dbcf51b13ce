/// The test-support target's types (``ServedMirror``, ``FaultInjector``, ``TemporaryFolder``, …)
/// for every file of this target.
@_exported import PorterTestSupport

extension ServedMirror {
    /// `parse-porter import DATASET --to <this server> ARGUMENTS…`, with the app id and master key.
    func runImport(_ dataset: String, _ arguments: [String] = [], environment: [String: String] = ServedMirror.environment) throws -> CommandRunner.Result {
        try CommandRunner.run(["import", dataset, "--to", url] + arguments, environment: environment)
    }
}
