import Foundation
import XCTest

/// Datasets a server that assigns its own objectIds cannot take are refused before anything is
/// written; the same datasets import fully where the server keeps the loader's ids.
final class RESTPreflightTests: XCTestCase {
    /// Every dataset under `Fixtures/bad-rest/` fails as its `expected-error.txt` says against a
    /// served mirror without `allowCustomObjectId`, with no class created and no object sent; with
    /// it, the dataset imports and ends equal to a direct import.
    func testBadRESTDatasetsAreRefusedBeforeAnyWrite() throws {
        let directory = try temporaryFolder()
        let folder = CommandRunner.fixtures.appendingPathComponent("bad-rest")
        let datasets = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter(\.hasDirectoryPath)
        XCTAssertFalse(datasets.isEmpty)
        for dataset in datasets {
            let name = dataset.lastPathComponent
            let expected = try BadInputTests.Expectation(dataset.appendingPathComponent("expected-error.txt"))
            let copy = try CommandRunner.copyFixture("bad-rest/\(name)", to: directory)
            let refusing = try ServedMirror(path: directory.appendingPathComponent("\(name)-refusing.sqlite").path, allowCustomObjectId: false)
            let refused = try refusing.runImport(copy.path)
            XCTAssertEqual(refused.status, expected.exitCode, "\(name): \(refused.stderr)")
            for fragment in expected.fragments {
                XCTAssertTrue(refused.stderr.contains(fragment), "\(name): stderr lacks \"\(fragment)\":\n\(refused.stderr)")
            }
            // The only request that is not a read is the objectId probe, which the server refuses (105).
            XCTAssertEqual(refusing.injector.writes, 1, name)
            let served = try Mirror(refusing.file)
            XCTAssertEqual(try served.value("SELECT count(*) FROM _SCHEMA"), "0", "\(name): a class was created")
            XCTAssertEqual(try served.value("SELECT count(*) FROM sqlite_master WHERE name IN ('Department', 'Teacher')"), "0", name)
            XCTAssertFalse(FileManager.default.fileExists(atPath: copy.appendingPathComponent("rejects").path), name)

            let direct = directory.appendingPathComponent("\(name)-direct.sqlite")
            let imported = try CommandRunner.run(["import", copy.path, "--to", direct.path, "-q"])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            let keys = try RESTImportTests.naturalKeys(direct)
            let accepting = try ServedMirror(path: directory.appendingPathComponent("\(name)-accepting.sqlite").path, allowCustomObjectId: true)
            let accepted = try accepting.runImport(copy.path, ["-q"])
            XCTAssertEqual(accepted.status, 0, "\(name): \(accepted.stderr)")
            let content = try MirrorContent(accepting.file, keys: keys), expectedContent = try MirrorContent(direct, keys: keys)
            XCTAssertGreaterThan(content.objectCount, 0)
            XCTAssertEqual(content, expectedContent, "\(name): " + content.differences(from: expectedContent).joined(separator: "\n"))
        }
    }

    /// In a cycle with one required and one optional pointer, the optional one is patched in
    /// afterwards, whichever class the manifest lists first: no custom objectIds needed.
    func testCycleWithOneOptionalPointerImportsWithServerIds() throws {
        let directory = try temporaryFolder()
        for optional in ["head", "department"] {
            let copy = directory.appendingPathComponent("cycle-\(optional)")
            try FileManager.default.copyItem(at: CommandRunner.fixtures.appendingPathComponent("bad-rest/required-pointer-cycle"), to: copy)
            let manifest = copy.appendingPathComponent("dataset.yml")
            let text = try String(contentsOf: manifest, encoding: .utf8)
            let target = optional == "head" ? "Teacher" : "Department"
            XCTAssertTrue(text.contains("\(optional): Pointer<\(target)>!"))
            try text.replacingOccurrences(of: "\(optional): Pointer<\(target)>!", with: "\(optional): Pointer<\(target)>")
                .write(to: manifest, atomically: true, encoding: .utf8)
            let direct = directory.appendingPathComponent("cycle-\(optional)-direct.sqlite")
            XCTAssertEqual(try CommandRunner.run(["import", copy.path, "--to", direct.path, "-q"]).status, 0)
            let keys = try RESTImportTests.naturalKeys(direct)
            let server = try ServedMirror(path: directory.appendingPathComponent("cycle-\(optional)-served.sqlite").path, allowCustomObjectId: false)
            let result = try server.runImport(copy.path, ["--json"])
            XCTAssertEqual(result.status, 0, "\(optional) optional: \(result.stderr)")
            let patched = try ImportSummary.parse(result).requests.map(\.phase).filter { $0.hasPrefix("patch") }
            XCTAssertEqual(patched, ["patch \(optional == "head" ? "Department" : "Teacher").\(optional)"])
            let content = try MirrorContent(server.file, keys: keys), expected = try MirrorContent(direct, keys: keys)
            XCTAssertEqual(content, expected, "\(optional) optional: " + content.differences(from: expected).joined(separator: "\n"))
        }
    }
}
