import Foundation
import ParseModel
import PorterPipeline
import PorterSQLite
import XCTest

/// Cancelling the task of an import into a real mirror file: the mirror is rolled back to the
/// rows it had, and the next import in the same process runs to the end.
final class CancelledImportTests: MirrorTestCase {
    /// A dataset of one class, `Item`, keyed by name, with `rows` items after the given lines.
    func writeDataset(_ name: String, rows: Int, first lines: String = "") throws -> DatasetManifest {
        let folder = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "version: 1\nclasses:\n  Item: {source: items.csv, key: [name], fields: {name: String!, price: Number, note: String}}\n"
            .write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        var csv = "name,price,note\n" + lines
        csv.reserveCapacity(rows * 30)
        for i in 0..<rows { csv += "item \(i),\(i % 97),note \(i)\n" }
        try csv.write(to: folder.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
        return try ManifestLoader.load(folder.path)
    }

    /// Every row of the mirror's `Item` table and its `_SCHEMA`, in a fixed order.
    func snapshot() throws -> [[String?]] {
        try rows("SELECT objectId, name, price, note, createdAt, updatedAt, ACL FROM Item ORDER BY objectId")
            + rows("SELECT className, schema FROM _SCHEMA ORDER BY className")
    }

    /// Runs `importer` into the mirror in a task, cancels the task once the first progress
    /// report arrives, and returns what the task threw.
    func cancelledRun(_ importer: Importer) async throws -> PorterError? {
        let (reports, reported) = AsyncStream<ImportProgress>.makeStream()
        let mirror = path
        let task = Task { try await importer.run(into: SQLiteMirror(path: mirror), progress: { reported.yield($0) }) }
        var firstReport: ImportProgress?
        for await report in reports {
            firstReport = report
            break
        }
        task.cancel()
        XCTAssertNotNil(firstReport, "the import reported progress before it ended")
        do {
            let report = try await task.value
            XCTFail("the import ran to its end (\(report.classes.map(\.read)) records) although its task was cancelled")
            return nil
        } catch let error as PorterError {
            return error
        }
    }

    func testCancelledImportLeavesTheMirrorAsItWasAndTheNextImportRuns() async throws {
        let small = try writeDataset("small", rows: 0, first: "pen,2,blue\nink,5,\n")
        let first = try await Importer(manifest: small).run(into: SQLiteMirror(path: path))
        XCTAssertTrue(first.committed)
        let before = try snapshot()
        XCTAssertEqual(before.count, 3, "two items and one _SCHEMA row")
        let beforeFile = try Data(contentsOf: URL(fileURLWithPath: path))

        // The progress callback comes every 20,000 records: far fewer than the dataset has.
        let big = try writeDataset("big", rows: 200_000, first: "pen,3,red\n")
        let error = try await cancelledRun(Importer(manifest: big))
        XCTAssertEqual(error?.cause, .cancelled)
        XCTAssertTrue(error?.message.hasPrefix("cancelled while reading") == true, error?.message ?? "")
        XCTAssertTrue(error?.message.hasSuffix("the target was left as it was") == true, error?.message ?? "")
        XCTAssertEqual(try snapshot(), before, "the cancelled import changed no row")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), beforeFile)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-journal"))

        // The same process imports again, to the end: the cancellation belonged to the first run.
        let again = try await Importer(manifest: big).run(into: SQLiteMirror(path: path))
        XCTAssertTrue(again.committed && again.succeeded)
        XCTAssertEqual(again.classes.first?.read, 200_001)
        XCTAssertEqual(try rows("SELECT count(*) FROM Item"), [["200002"]], "every row, and ink, which the big dataset does not hold")
        XCTAssertEqual(
            try rows("SELECT price, note FROM Item WHERE name IN ('pen', 'item 199999', 'ink') ORDER BY name"),
            [["5", nil], ["82", "note 199999"], ["3", "red"]])
    }

    /// A mirror the cancelled import would have created is not left behind.
    func testCancelledImportIntoANewMirrorLeavesNoFile() async throws {
        let big = try writeDataset("big", rows: 200_000)
        let error = try await cancelledRun(Importer(manifest: big))
        XCTAssertEqual(error?.cause, .cancelled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-journal"))
    }

    /// Validation is cancelled the same way, and says that nothing was written.
    func testCancelledValidationStops() async throws {
        let big = try writeDataset("big", rows: 200_000)
        let (reports, reported) = AsyncStream<ImportProgress>.makeStream()
        let importer = Importer(manifest: big)
        let task = Task { try await importer.validate(progress: { reported.yield($0) }) }
        for await _ in reports { break }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("the validation ran to its end although its task was cancelled")
        } catch let error as PorterError {
            XCTAssertEqual(error.cause, .cancelled)
            XCTAssertTrue(error.message.hasSuffix("nothing was written"), error.message)
        }
        let valid = try await importer.validate()
        XCTAssertTrue(valid.succeeded)
        XCTAssertEqual(valid.classes.first?.read, 200_000)
    }

    /// `Importer` and `SQLiteMirror` cross tasks: this compiles only while both are `Sendable`.
    func testImporterAndMirrorAreSendable() async throws {
        let importer = Importer(manifest: try writeDataset("small", rows: 3))
        let mirror = SQLiteMirror(path: path)
        let report = try await Task.detached { try await importer.run(into: mirror) }.value
        XCTAssertEqual(report.classes.first?.inserted, 3)
        XCTAssertEqual(try mirror.existingSchemas().map(\.className), ["Item"], "the mirror is still usable where it was made")
        XCTAssertEqual(try rows("SELECT name FROM Item ORDER BY name"), [["item 0"], ["item 1"], ["item 2"]])
    }
}
