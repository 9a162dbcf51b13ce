import Foundation
import MirrorQuery
import ParseModel
import PorterPipeline
import PorterSQLite
import PorterTestSupport
import XCTest

/// Cancelling the task of an export or a pull reading a real mirror file: nothing reaches the
/// folder or the mirror pulled into, and the next run in the same process does all of it.
final class CancelledExportAndPullTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try temporaryFolder("cancelled-export")
    }

    /// A mirror of `count` `Item` objects named `<prefix> <n>`, imported from a generated CSV file.
    func itemsMirror(_ count: Int, named name: String = "items", prefix: String = "item") async throws -> String {
        let dataset = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dataset, withIntermediateDirectories: true)
        try "version: 1\nclasses:\n  Item: {source: items.csv, key: [name], fields: {name: String!, price: Number}}\n"
            .write(to: dataset.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try ("name,price\n" + (0..<count).map { "\(prefix) \($0),\($0 % 97)\n" }.joined())
            .write(to: dataset.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
        let path = directory.appendingPathComponent("\(name).sqlite").path
        let report = try await Importer(manifest: try ManifestLoader.load(dataset.path)).run(into: SQLiteMirror(path: path))
        XCTAssertEqual(report.classes.first?.inserted, count)
        return path
    }

    func testCancelledExportWritesNothingAndTheNextExportWritesAll() async throws {
        let mirror = try await itemsMirror(50_500)
        let out = directory.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("keep me\n".utf8).write(to: out.appendingPathComponent("notes.txt"))
        let options = ExportOptions(format: .ndjson, force: true)

        // Progress comes after each page of 1,000 objects (the last one holds 500): the task is cancelled after the first.
        let (pages, paged) = AsyncStream<ClassProgress>.makeStream()
        let folder = out.path
        let task = Task {
            try await Exporter(source: try MirrorObjectSource(path: mirror), options: options).run(to: folder, progress: { paged.yield($0) })
        }
        for await page in pages where page.objects > 0 { break }
        task.cancel()
        do {
            let report = try await task.value
            XCTFail("the export ran to its end (\(report.classes.map(\.objects)) objects) although its task was cancelled")
        } catch let error as PorterError {
            XCTAssertEqual(error.cause, .cancelled)
            XCTAssertEqual(error.message, "cancelled while exporting Item; nothing was written to \(folder)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["notes.txt"], "no file, no staging folder")

        // The same process exports again, to the end.
        let source = try MirrorObjectSource(path: mirror)
        let report = try await Exporter(source: source, options: options).run(to: folder)
        XCTAssertEqual(report.classes.map(\.objects), [50_500])
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: folder)), ["notes.txt", "Item.ndjson"])
        let lines = try String(contentsOf: out.appendingPathComponent("Item.ndjson"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 50_500)
        let names = Set(
            lines.compactMap { line -> String? in
                guard case .object(let object)? = try? JSONParser.parse(String(line)), case .string(let name)? = object["name"] else { return nil }
                return name
            })
        XCTAssertEqual(names, Set((0..<50_500).map { "item \($0)" }))
    }

    /// A pull (here from another mirror, a real ``ObjectSource``) cancelled after its first page
    /// rolls the mirror back; the next pull copies every object.
    func testCancelledPullLeavesTheMirrorAsItWasAndTheNextPullCopiesAll() async throws {
        let source = try await itemsMirror(50_500)
        let copy = try await itemsMirror(2, named: "copy", prefix: "other")
        func rows() throws -> [[String?]] {
            let database = try SQLiteDatabase(path: copy, create: false)
            return try database.rows("SELECT objectId, name, price, createdAt, updatedAt FROM Item ORDER BY objectId")
                + database.rows("SELECT className, schema FROM _SCHEMA ORDER BY className")
        }
        let before = try rows()
        XCTAssertEqual(before.count, 3)
        let options = PullOptions(source: source)

        let (pages, paged) = AsyncStream<ClassProgress>.makeStream()
        let task = Task {
            try await Puller(source: try MirrorObjectSource(path: source), mirror: SQLiteMirror(path: copy), options: options)
                .run(progress: { paged.yield($0) })
        }
        for await page in pages where page.objects > 0 { break }
        task.cancel()
        do {
            let report = try await task.value
            XCTFail("the pull ran to its end (\(report.classes.map(\.read)) objects) although its task was cancelled")
        } catch let error as PorterError {
            XCTAssertEqual(error.cause, .cancelled)
            XCTAssertEqual(error.message, "cancelled while pulling Item; the mirror was left as it was")
        }
        XCTAssertEqual(try rows(), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy + "-journal"))

        let report = try await Puller(source: try MirrorObjectSource(path: source), mirror: SQLiteMirror(path: copy), options: options).run()
        XCTAssertEqual(report.classes.map(\.read), [50_500])
        let after = try SQLiteDatabase(path: copy, create: false)
        XCTAssertEqual(try after.rows("SELECT count(*) FROM Item WHERE name LIKE 'item %'"), [["50500"]])
        XCTAssertEqual(
            try after.rows("SELECT name FROM Item WHERE name LIKE 'other %' ORDER BY name"), [["other 0"], ["other 1"]],
            "the objects the copy had stay (a pull without `full` deletes nothing)")
        XCTAssertEqual(try after.rows("SELECT price FROM Item WHERE name = 'item 50499'"), [["59"]], "the last object, of the last, partial page")
    }

    /// `MirrorObjectSource` crosses tasks: this compiles only while it is `Sendable`.
    func testMirrorObjectSourceIsSendable() async throws {
        let mirror = try await itemsMirror(3)
        let source = try MirrorObjectSource(path: mirror)
        let counted = try await Task.detached { try source.count(of: try source.schemas()[0], matching: nil) }.value
        XCTAssertEqual(counted, 3)
        XCTAssertEqual(try source.schemas().map(\.className), ["Item"], "the source is still usable where it was made")
    }
}
