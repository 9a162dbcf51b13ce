import Foundation
import MirrorQuery
import ParseModel
import PorterPipeline
import PorterSQLite
import PorterTestSupport
import XCTest

/// A pull from one mirror (``MirrorObjectSource``) into another: users' hashes go along, and a
/// hash the source mirror no longer has leaves the copy too.
final class MirrorToMirrorPullTests: XCTestCase {
    func testAHashClearedAtTheSourceIsClearedInTheCopy() async throws {
        let directory = try temporaryFolder("mirror-pull")
        let source = directory.appendingPathComponent("source.sqlite").path, copy = directory.appendingPathComponent("copy.sqlite").path
        let manifest = try ManifestLoader.load(PackageFolders.fixtures.appendingPathComponent("parse-com-users").path)
        let imported = try await Importer(manifest: manifest).run(into: SQLiteMirror(path: source))
        XCTAssertTrue(imported.succeeded, "\(imported.errors)")
        func pull() async throws -> PullReport.ClassTally {
            let report = try await Puller(
                source: try MirrorObjectSource(path: source), mirror: SQLiteMirror(path: copy),
                options: PullOptions(source: source, classes: ["_User"])
            ).run()
            return try XCTUnwrap(report.classes.first { $0.className == "_User" })
        }
        func hashes(_ path: String) throws -> [[String?]] {
            try SQLiteDatabase(path: path, create: false).rows("SELECT username, _hashed_password FROM _User ORDER BY username")
        }
        let first = try await pull()
        XCTAssertEqual(first.added, 3)
        let before = try hashes(copy)
        XCTAssertEqual(before, try hashes(source))
        XCTAssertEqual(before.compactMap { $0[1] }.count, 3)

        // A password removed at the source (and the user's updatedAt moved on, as any change does).
        try SQLiteDatabase(path: source, create: false)
            .execute("UPDATE _User SET _hashed_password = NULL, updatedAt = '2100-01-01T00:00:00.000Z' WHERE username = 'ada'")
        let again = try await pull()
        XCTAssertEqual(again.updated, 1, "ada (a user at the watermark is read again, unchanged)")
        XCTAssertEqual(try hashes(copy), before.map { $0[0] == "ada" ? ["ada", nil] : $0 })
    }
}
