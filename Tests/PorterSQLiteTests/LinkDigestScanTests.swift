import PorterTestSupport
import XCTest

@testable import PorterSQLite

/// A join table's links read on a thread of their own while another connection writes.
final class LinkDigestScanTests: XCTestCase {
    var path: String!

    /// A file whose join table `j` links each of `owners` owners to `a1` and `a2`, committed.
    override func setUpWithError() throws {
        path = try temporaryFolder("link-digest-scan").appendingPathComponent("links.sqlite").path
        let db = try SQLiteDatabase(path: path, create: true)
        try db.execute("CREATE TABLE j (owningId TEXT, relatedId TEXT, PRIMARY KEY (owningId, relatedId))")
        try db.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99999)
            INSERT INTO j SELECT 'b' || i, r FROM n, (SELECT 'a1' AS r UNION ALL SELECT 'a2')
            """)
        db.close()
    }

    func holds(_ digests: StoredLinkDigests, _ owner: String, _ related: [String]) -> Bool {
        digests.holdAll([(related, StoredLinkDigests.ownerHash(owner))])[0]
    }

    func testTheScanGivesTheDigestsOfTheCommittedLinks() throws {
        let scan = LinkDigestScan(path: path, table: "j", expectedOwners: 100_000)
        let digests = try XCTUnwrap(scan.wait())
        XCTAssertTrue(scan.hasEnded)
        XCTAssertTrue(holds(digests, "b0", ["a2", "a1"]))
        XCTAssertTrue(holds(digests, "b99999", ["a1", "a2"]))
        XCTAssertFalse(holds(digests, "b5", ["a1"]))
        XCTAssertFalse(holds(digests, "b100000", ["a1", "a2"]), "an owner the table does not hold")
    }

    /// A writer holding the file's exclusive lock: the scan does not wait for it, and ends
    /// without digests (the import's writer then reads the links in its own transaction).
    func testALockedFileEndsTheScanWithoutDigests() throws {
        let writer = try SQLiteDatabase(path: path, create: false)
        defer { writer.close() }
        try writer.execute("BEGIN EXCLUSIVE")
        defer { try? writer.execute("ROLLBACK") }
        XCTAssertNil(LinkDigestScan(path: path, table: "j", expectedOwners: 100_000).wait())
    }

    func testAMissingTableEndsTheScanWithoutDigests() {
        XCTAssertNil(LinkDigestScan(path: path, table: "no such table", expectedOwners: 1).wait())
    }

    /// Once `cancel` returns, the scan's connection is closed: another connection takes the
    /// exclusive lock without waiting, as a commit must. A cancelled scan gives no digests.
    func testCancelReturnsOnceTheFileIsFreeForAWriter() throws {
        let writer = try SQLiteDatabase(path: path, create: false)
        defer { writer.close() }
        writer.setBusyTimeout(seconds: 0)
        for _ in 0..<5 {
            let scan = LinkDigestScan(path: path, table: "j", expectedOwners: 100_000)
            scan.cancel()
            XCTAssertTrue(scan.hasEnded)
            XCTAssertNil(scan.wait())
            try writer.execute("BEGIN EXCLUSIVE")
            try writer.execute("COMMIT")
        }
    }
}
