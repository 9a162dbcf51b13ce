import Foundation
import ParseModel
import PorterSQLite
import PorterTestSupport
import XCTest

@testable import PorterPipeline

/// The property test of `init`: seeded relational datasets with known ground truth
/// (``RelationalDataset``) go through `init` → `import` into a mirror, in process, and the
/// mirror must hold the truth value by value (``GroundTruthCheck``).
///
/// `INIT_PROPERTY_SEED` and `INIT_PROPERTY_COUNT` set the first seed and the number of
/// datasets (seeds follow one another); `scripts/soak-init` runs many, from a seed it prints.
final class InitPropertyTests: XCTestCase {
    /// Seeds whose datasets failed on the code before issue 33's fixes, kept as regressions,
    /// each with what it found there.
    static let regressions: [UInt64: String] = [
        3_349_783: "AUTHORID (integers named after Author) missed; a 0/1 timepoint taken for Unix times",
        3_349_785: "categories.category_id, the key of Category, a Pointer to CategoryDetail, whose key pointed back",
        3_349_786: "visit_date of days all below 13 taken for dd/MM/yyyy",
        3_349_798: "grade (A, B) a Pointer<Level> by coincidence; TEACHERID missed",
        3_349_812: "contact, people's names, a Pointer<Member> by coincidence",
        33_333: "rooms.csv's line (3 rows), half of a [batch, line] Pointer, keyed Room; every other line a Pointer<Room>",
        33_789: "books.csv's line and batch each unique in 3 rows; then Author, keyed by [batch, line], keyed by its summary",
    ]

    static var firstSeed: UInt64 { ProcessInfo.processInfo.environment["INIT_PROPERTY_SEED"].flatMap { UInt64($0) } ?? 0x33_1D17 }
    static var count: Int { ProcessInfo.processInfo.environment["INIT_PROPERTY_COUNT"].flatMap { Int($0) } ?? 200 }

    /// The differences for the dataset of `seed` (empty when it holds its truth), or why a step failed.
    static func run(seed: UInt64, in scratch: URL) -> [String] {
        let dataset = RelationalDataset(seed: seed)
        let folder = scratch.appendingPathComponent("d\(seed)")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try dataset.write(to: folder)
            let yaml = try ManifestInference.yaml(for: [folder.path])
            try yaml.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
            let manifest = try ManifestLoader.load(folder.path)
            let mirror = folder.appendingPathComponent("mirror.sqlite").path
            let report = try Importer(manifest: manifest).run(into: SQLiteMirror(path: mirror))
            guard report.succeeded else {
                return ["import failed: " + report.errors.prefix(5).map(\.description).joined(separator: "; "), yaml]
            }
            let differences = GroundTruthCheck.differences(dataset, manifest: manifest, mirror: mirror)
            try? FileManager.default.removeItem(at: folder)
            return differences.isEmpty ? [] : differences + [yaml]
        } catch {
            return ["\(error)"]
        }
    }

    func assertHoldsTruth(seed: UInt64, in scratch: URL, file: StaticString = #filePath, line: UInt = #line) {
        let found = Self.run(seed: seed, in: scratch)
        if !found.isEmpty {
            XCTFail(
                "seed \(seed) (INIT_PROPERTY_SEED=\(seed) INIT_PROPERTY_COUNT=1):\n\(RelationalDataset(seed: seed).summary)\n" + found.joined(separator: "\n"),
                file: file, line: line)
        }
    }

    /// Hundreds of datasets (200 by default), each through init and import, hold their truth;
    /// every shape the generator makes is met.
    func testInitAndImportHoldTheGroundTruth() throws {
        let scratch = try temporaryFolder("init-property")
        var shapes: Set<RelationalDataset.Shape> = []
        let started = Date()
        for offset in 0..<Self.count {
            let seed = Self.firstSeed &+ UInt64(offset)
            shapes.formUnion(RelationalDataset(seed: seed).shapes)
            assertHoldsTruth(seed: seed, in: scratch)
        }
        print("init property: \(Self.count) datasets from seed \(Self.firstSeed) in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
        if Self.count >= 100 {
            XCTAssertEqual(Set(RelationalDataset.Shape.allCases).subtracting(shapes).map(\.rawValue).sorted(), [], "shapes never generated")
        }
    }

    func testRegressionSeeds() throws {
        let scratch = try temporaryFolder("init-property")
        for seed in Self.regressions.keys.sorted() { assertHoldsTruth(seed: seed, in: scratch) }
    }

    /// The check finds a changed value, a missing object and a field of the wrong type.
    func testTheCheckFindsWhatDiffers() throws {
        let scratch = try temporaryFolder("init-property")
        let dataset = RelationalDataset(seed: 5, shapes: [.plainTypes, .keys, .foreignKeys])
        let folder = scratch.appendingPathComponent("d")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try dataset.write(to: folder)
        try ManifestInference.yaml(for: [folder.path]).write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        let manifest = try ManifestLoader.load(folder.path)
        let mirror = folder.appendingPathComponent("mirror.sqlite").path
        XCTAssertTrue(try Importer(manifest: manifest).run(into: SQLiteMirror(path: mirror)).succeeded)
        XCTAssertEqual(GroundTruthCheck.differences(dataset, manifest: manifest, mirror: mirror), [])

        let table = dataset.tables[0]
        let className = try XCTUnwrap(manifest.classes.first { $0.sources == [table.file] }?.className)
        let database = try SQLiteDatabase(path: mirror, create: false)
        try database.execute("UPDATE \"\(className)\" SET quantity = quantity + 1 WHERE rowid = 1")
        XCTAssertTrue(GroundTruthCheck.differences(dataset, manifest: manifest, mirror: mirror).contains { $0.contains("missing from the mirror") })
        try database.execute("DELETE FROM \"\(className)\" WHERE rowid = 1")
        XCTAssertTrue(GroundTruthCheck.differences(dataset, manifest: manifest, mirror: mirror).contains { $0.contains("objects, the file") })
        database.close()
        var retyped = manifest
        let index = try XCTUnwrap(retyped.classes.firstIndex { $0.className == className })
        let quantity = try XCTUnwrap(retyped.classes[index].fields.firstIndex { $0.name == "quantity" })
        retyped.classes[index].fields[quantity] = FieldMapping(name: "quantity", type: .string)
        XCTAssertTrue(GroundTruthCheck.differences(dataset, manifest: retyped, mirror: mirror).contains { $0.contains("is String, truly Number") })
    }

    /// The generator itself: one seed, one dataset; the shapes added last leave the rest of a
    /// seed's dataset as it was, so that the regression seeds still make what they found.
    func testTheGeneratorIsReproducible() {
        let first = RelationalDataset(seed: 42), again = RelationalDataset(seed: 42)
        XCTAssertEqual(first.summary, again.summary)
        XCTAssertEqual(first.tables.map { $0.columns.map(\.cells) }, again.tables.map { $0.columns.map(\.cells) })
        XCTAssertNotEqual(first.summary, RelationalDataset(seed: 43).summary)
        let later: Set<RelationalDataset.Shape> = [.nullMarkers, .headerless, .compositeForeignKeys]
        for seed in Self.regressions.keys {
            let whole = RelationalDataset(seed: seed),
                before = RelationalDataset(seed: seed, shapes: RelationalDataset.Shape.allCases.filter { !later.contains($0) })
            XCTAssertEqual(whole.tables.map(\.file), before.tables.map(\.file), "seed \(seed)")
            let unmarked = whole.tables.map { table in
                table.columns.prefix(table.columns.count - 2 * table.compositeReferences.count).map {
                    $0.cells.map { ["\\N", "NULL", "null"].contains($0) ? "" : $0 }
                }
            }
            XCTAssertEqual(unmarked, before.tables.map { $0.columns.map(\.cells) }, "seed \(seed)")
        }
        let restricted = RelationalDataset(seed: 7, shapes: [.plainTypes, .keys])
        XCTAssertTrue(restricted.shapes.isSubset(of: [.plainTypes, .keys]), "\(restricted.shapes)")
    }
}
