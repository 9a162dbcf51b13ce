import Foundation
import XCTest

/// Inputs that pass the zip-bomb checks but cost the importer unbounded work: a long JSON
/// string, thousands of classes, YAML aliases, an object wider than a class may be. Each runs the
/// built command with a deadline and asserts time (far above the normal case, far below what
/// the unbounded work takes), memory, the answer and what arrived.
final class HostileImportTests: XCTestCase {
    /// An 8 MB string took minutes (each refill of the reader's buffer scanned the value again
    /// from its start: 1/2/4 MB took 1.8/5.6/22 s); it is read in linear time.
    func testALongJSONStringImportsInLinearTime() throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("notes.json"), mirror = folder.appendingPathComponent("notes.sqlite")
        let length = 8 << 20
        try Data(#"[{"name":"a","text":""#.utf8 + [UInt8](repeating: UInt8(ascii: "x"), count: length) + #""}]"#.utf8).write(to: file)
        let run = try CommandRunner.run(["import", file.path, "--class", "Note", "--target", mirror.path, "--quiet"], deadline: 120)
        let result = try XCTUnwrap(run.result, "still running after 120 s")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThan(run.seconds, 40, "about 3 s on an idle machine")
        XCTAssertLessThan(run.peakBytes, 400 << 20, "a few copies of the string, not more")
        XCTAssertEqual(try Mirror(mirror).rows("SELECT name, length(text) FROM Note"), [["a", "\(length)"]])
    }

    /// A Parse export of 1000 classes took minutes (a linear search per class inside a linear
    /// search per class, and an ALTER TABLE per field, each re-reading the whole schema); it
    /// imports in seconds. One class more is refused before anything is read.
    func testAThousandClassesImportQuicklyAndOneMoreIsRefused() throws {
        let folder = try temporaryFolder()
        let export = folder.appendingPathComponent("export")
        try FileManager.default.createDirectory(at: export, withIntermediateDirectories: true)
        for index in 0..<1000 {
            try Data(#"{"results":[{"objectId":"o\#(index)","name":"n\#(index)","rank":\#(index)}]}"#.utf8)
                .write(to: export.appendingPathComponent("C\(index).json"))
        }
        let mirror = folder.appendingPathComponent("export.sqlite")
        let run = try CommandRunner.run(["import", export.path, "--target", mirror.path, "--quiet"], deadline: 180)
        let result = try XCTUnwrap(run.result, "still running after 180 s")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThan(run.seconds, 60, "about 2 s on an idle machine")
        let content = try Mirror(mirror)
        XCTAssertEqual(try content.rows("SELECT count(*) FROM _SCHEMA WHERE className LIKE 'C%'"), [["1000"]])
        XCTAssertEqual(try content.rows(#"SELECT objectId, name, rank FROM "C999""#), [["o999", "n999", "999"]])

        try Data(#"{"results":[{"objectId":"x","name":"n"}]}"#.utf8).write(to: export.appendingPathComponent("C1000.json"))
        let refused = folder.appendingPathComponent("refused.sqlite")
        let tooMany = try XCTUnwrap(try CommandRunner.run(["import", export.path, "--target", refused.path, "--quiet"], deadline: 60).result)
        XCTAssertEqual(tooMany.status, 2, tooMany.stderr)
        XCTAssertTrue(tooMany.stderr.contains("export: 1001 classes; a dataset may have at most 1000"), tooMany.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: refused.path), "nothing was written")
    }

    /// The same export as a zip: each file read opened the archive anew, reading its whole
    /// directory (a 1.4 MB zip of 10,001 classes ran for over 25 minutes).
    func testAZipOfAThousandClassesImportsQuickly() throws {
        let folder = try temporaryFolder()
        let zip = folder.appendingPathComponent("export.zip")
        try ZipBuilder.write((0..<1000).map { ("export/C\($0).json", Data(#"{"results":[{"objectId":"o\#($0)","name":"n\#($0)"}]}"#.utf8)) }, to: zip)
        let mirror = folder.appendingPathComponent("export.sqlite")
        let run = try CommandRunner.run(["import", zip.path, "--target", mirror.path, "--quiet"], deadline: 180)
        let result = try XCTUnwrap(run.result, "still running after 180 s")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertLessThan(run.seconds, 60, "about 3 s on an idle machine")
        XCTAssertEqual(try Mirror(mirror).rows(#"SELECT objectId, name FROM "C500""#), [["o500", "n500"]])
    }

    /// A "billion laughs" `dataset.yml` or `parse-porter.yml` of a few hundred bytes expanded to
    /// gigabytes; it is refused (exit 2) before any tree is built.
    func testYAMLAliasBombsAreRefusedAtOnce() throws {
        let bomb = CommandRunner.fixtures.appendingPathComponent("bad/yaml-alias-bomb/dataset.yml")
        let folder = try temporaryFolder()
        let dataset = folder.appendingPathComponent("dataset")
        try FileManager.default.copyItem(at: bomb.deletingLastPathComponent(), to: dataset)
        let validate = try CommandRunner.run(["validate", dataset.path, "--quiet"], deadline: 60)
        let result = try XCTUnwrap(validate.result, "still running after 60 s")
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("dataset.yml: its YAML aliases (*name) stand for more than 100000 nodes"), result.stderr)
        XCTAssertLessThan(validate.seconds, 10)
        XCTAssertLessThan(validate.peakBytes, 200 << 20)

        let project = folder.appendingPathComponent("project")
        try FileManager.default.createDirectory(at: project, withIntermediateDirectories: true)
        try
            (String(contentsOf: bomb, encoding: .utf8).replacingOccurrences(of: "classes:", with: "unused:")
            + "targets:\n  staging: {url: \"http://127.0.0.1:9/parse\", applicationId: app}\n")
            .write(to: project.appendingPathComponent("parse-porter.yml"), atomically: true, encoding: .utf8)
        let pull = try CommandRunner.run(
            ["pull", "--target", "staging", "--to", folder.appendingPathComponent("m.sqlite").path, "--quiet"],
            currentDirectory: project, deadline: 60)
        let pulled = try XCTUnwrap(pull.result, "still running after 60 s")
        XCTAssertEqual(pulled.status, 2, pulled.stderr)
        XCTAssertTrue(pulled.stderr.contains("parse-porter.yml: its YAML aliases (*name) stand for more than 100000 nodes"), pulled.stderr)
        XCTAssertLessThan(pull.peakBytes, 200 << 20)
    }

    /// An object with 5,000 keys ended in SQLite's "too many columns" (exit 3) after minutes of
    /// comparing every column with every other; it is a fault naming the file, line and key.
    func testAnObjectWiderThanAClassMayBeIsAFault() throws {
        let folder = try temporaryFolder()
        let file = folder.appendingPathComponent("wide.json"), mirror = folder.appendingPathComponent("wide.sqlite")
        let members = (0..<5000).map { #""f\#($0)":\#($0)"# }.joined(separator: ",")
        try Data("[{\(members)}]".utf8).write(to: file)
        let run = try CommandRunner.run(["import", file.path, "--class", "Wide", "--target", mirror.path, "--quiet"], deadline: 120)
        let result = try XCTUnwrap(run.result, "still running after 120 s")
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(
            result.stderr.contains(#"wide.json:1: column "f1004": more than 1004 columns: a class may have at most 1000 fields"#),
            result.stderr)
        XCTAssertLessThan(run.seconds, 20)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path), "nothing was written")
    }
}
