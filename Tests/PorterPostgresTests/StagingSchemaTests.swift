import PorterTestSupport
import XCTest

@testable import PorterPostgres

/// The staging schema of the join tables an import creates: one per import, so that imports
/// into one database at once do not drop each other's, and the schema of a killed run is
/// dropped by the next.
final class StagingSchemaTests: PostgresTestCase {
    private func links(_ pairs: [(String, String)]) -> BinaryCopyRows {
        var rows = BinaryCopyRows()
        for (owning, related) in pairs {
            rows.startRow(fields: 2)
            _ = rows.append(text: owning)
            _ = rows.append(text: related)
        }
        return rows
    }

    private func stagingSchemas() throws -> [String] {
        try rows("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'parse\\_porter\\_staging\\_%' ORDER BY 1").compactMap { $0[0] }
    }

    func testTwoImportsAtOnceStageApartAndAKilledRunsSchemaIsDroppedByTheNext() throws {
        // A schema left by a run whose server process is gone (no live connection has pid 0).
        try db.execute("CREATE SCHEMA parse_porter_staging_0")
        let first = try PostgresStagingSchema(url: url)
        let second = try PostgresStagingSchema(url: url)
        XCTAssertNotEqual(first.name, second.name)
        try first.stream(links([("a", "x"), ("b", "y")]), into: "_Join:tags:Post")
        try second.stream(links([("c", "z")]), into: "_Join:tags:Post")
        try first.commit()
        try second.commit()
        XCTAssertEqual(try stagingSchemas(), [first.name, second.name].sorted(), "the orphan dropped, the live ones kept")
        XCTAssertEqual(try value(#"SELECT count(*) FROM "\#(first.name)"."_Join:tags:Post""#), "2")
        XCTAssertEqual(try value(#"SELECT count(*) FROM "\#(second.name)"."_Join:tags:Post""#), "1")

        // A third import while both live leaves them alone; once their connections end, it
        // (or the next) drops them.
        let third = try PostgresStagingSchema(url: url)
        XCTAssertEqual(try stagingSchemas(), [first.name, second.name].sorted())
        third.discard(committed: false)
        first.discard(committed: true)
        let secondProcess = String(second.name.dropFirst(PostgresStagingSchema.prefix.count))
        second.close()
        // The server process of a closed connection leaves pg_stat_activity a moment later.
        let deadline = Date().addingTimeInterval(30)
        while try value("SELECT count(*) FROM pg_stat_activity WHERE pid = \(secondProcess)") != "0", Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        let fourth = try PostgresStagingSchema(url: url)
        try fourth.commit()
        XCTAssertEqual(try stagingSchemas(), [fourth.name])
        fourth.discard(committed: true)
        XCTAssertEqual(try stagingSchemas(), [])
    }
}
