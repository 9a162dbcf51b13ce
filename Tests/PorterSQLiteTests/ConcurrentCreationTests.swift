import Foundation
import PorterPipeline
import PorterReaders
import PorterSQLite
import PorterTestSupport
import XCTest

/// Two imports creating the same classes in one mirror at the same time, the second started at
/// several moments of the first's run, into a new mirror and into one that exists without
/// those classes: the second waits for the first's transaction and imports after it, or is
/// refused with a target error that says what happened and what to do. SQLite's own failure
/// (`table "Genre" already exists`: both read the mirror's classes before either wrote) is
/// never what reaches the caller.
final class ConcurrentCreationTests: MirrorTestCase {
    func testTwoImportsCreatingTheSameClassesAtOnce() async throws {
        let manifest = try ManifestLoader.load(PackageFolders.fixtures.appendingPathComponent("library").path)
        let shelves = DatasetManifest(classes: [
            ClassMapping(
                className: "Shelf", records: MemorySource(name: "shelves", rows: [["name": .string("Fiction")]]), key: ["name"],
                fields: [FieldMapping(name: "name", type: .string)])
        ])
        for existing in [false, true] {
            for delay in [0, 5, 20, 50, 100, 200] {
                let label = "\(existing ? "existing" : "new") mirror, \(delay) ms"
                let path = directory.appendingPathComponent("\(existing)-\(delay).sqlite").path
                if existing {
                    let seeded = try await Importer(manifest: shelves).run(into: SQLiteMirror(path: path))
                    XCTAssertTrue(seeded.committed, label)
                }
                async let first = Self.run(manifest, into: path, after: 0)
                async let second = Self.run(manifest, into: path, after: delay)
                let outcomes = await [first, second]
                var committed = 0
                for outcome in outcomes {
                    switch outcome {
                    case .success(let report):
                        XCTAssertTrue(report.committed, "\(label): \(report.errors)")
                        committed += 1
                    case .failure(let error):
                        XCTAssertEqual(error.cause, .target, "\(label): \(error.message)")
                        XCTAssertTrue(error.message.contains("run it again"), "\(label): \(error.message)")
                    }
                }
                XCTAssertGreaterThanOrEqual(committed, 1, label)
                if existing { XCTAssertEqual(committed, 2, "\(label): the second import waited for the first and ran after it") }
                XCTAssertEqual(try rows(at: path, "SELECT count(*) FROM Book"), [["43"]], label)
            }
        }
    }

    private static func run(_ manifest: DatasetManifest, into path: String, after milliseconds: Int) async -> Result<ImportReport, PorterError> {
        try? await Task.sleep(for: .milliseconds(milliseconds))
        do throws(PorterError) {
            return .success(try await Importer(manifest: manifest).run(into: SQLiteMirror(path: path)))
        } catch {
            return .failure(error)
        }
    }

    private func rows(at path: String, _ sql: String) throws -> [[String?]] {
        try SQLiteDatabase(path: path, create: false).rows(sql)
    }
}
