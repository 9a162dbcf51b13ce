import Foundation
import MirrorQuery
import ParseModel
import PorterPipeline
import PorterSQLite
import XCTest

/// Cancelling the task of an export from a real mirror file: nothing reaches the folder, and
/// the next export in the same process writes every object.
final class CancelledExportTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cancelled-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A mirror of `count` `Item` objects, imported from a generated CSV file.
    func itemsMirror(_ count: Int) async throws -> String {
        let dataset = directory.appendingPathComponent("items")
        try FileManager.default.createDirectory(at: dataset, withIntermediateDirectories: true)
        try "version: 1\nclasses:\n  Item: {source: items.csv, key: [name], fields: {name: String!, price: Number}}\n"
            .write(to: dataset.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try ("name,price\n" + (0..<count).map { "item \($0),\($0 % 97)\n" }.joined())
            .write(to: dataset.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
        let path = directory.appendingPathComponent("items.sqlite").path
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
            XCTAssertEqual(error.kind, .interrupted)
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
        let names = Set(lines.compactMap { line -> String? in
            guard case .object(let object)? = try? JSONParser.parse(String(line)), case .string(let name)? = object["name"] else { return nil }
            return name
        })
        XCTAssertEqual(names, Set((0..<50_500).map { "item \($0)" }))
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
