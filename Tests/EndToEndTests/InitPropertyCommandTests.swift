import Foundation
import PorterPipeline
import PorterTestSupport
import XCTest

/// A sample of the property test of `init` (PorterSQLiteTests' `InitPropertyTests`, in process)
/// through the built command: `init DIR > DIR/dataset.yml`, `validate`, `import`, and the
/// mirror checked against the dataset's ground truth. No command may crash.
final class InitPropertyCommandTests: XCTestCase {
    func testASampleThroughTheCommand() throws {
        let scratch = try temporaryFolder()
        for seed in UInt64(900)..<UInt64(908) {
            let dataset = RelationalDataset(seed: seed)
            let folder = scratch.appendingPathComponent("d\(seed)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try dataset.write(to: folder)
            let inferred = try CommandRunner.run(["init", folder.path])
            XCTAssertEqual(inferred.status, 0, "seed \(seed): \(inferred.stderr)")
            try inferred.stdout.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
            let validated = try CommandRunner.run(["validate", folder.path, "--quiet"])
            XCTAssertEqual(validated.status, 0, "seed \(seed): \(validated.stderr)\n\(inferred.stdout)")
            let mirror = folder.appendingPathComponent("mirror.sqlite")
            let imported = try CommandRunner.run(["import", folder.path, "--target", mirror.path, "--quiet"])
            XCTAssertEqual(imported.status, 0, "seed \(seed): \(imported.stderr)\n\(inferred.stdout)")
            guard imported.status == 0 else { continue }
            let differences = GroundTruthCheck.differences(dataset, manifest: try ManifestLoader.load(folder.path), mirror: mirror.path)
            XCTAssertEqual(differences, [], "seed \(seed):\n\(dataset.summary)\n\(inferred.stdout)")
        }
    }
}
