import Foundation
import PorterPipeline
import PorterPostgres
import PorterTestSupport
import XCTest

/// A fresh database of the tests' private cluster (``PostgresCluster``), and SQL on it.
class PostgresTestCase: XCTestCase {
    var url = ""
    var db: PostgresConnection!

    override func setUpWithError() throws {
        url = try PostgresCluster.shared().createDatabase()
        db = try PostgresConnection(url: url)
    }

    override func tearDown() {
        db?.close()
    }

    /// The rows of `sql`, each column as PostgreSQL's text.
    func rows(_ sql: String) throws -> [[String?]] { try db.execute(sql) }

    /// The one value of `sql`.
    func value(_ sql: String) throws -> String? { try rows(sql).first?.first ?? nil }

    /// Imports the dataset folder into the database; the report.
    func importDataset(_ folder: String, options: ImportOptions = ImportOptions()) async throws -> ImportReport {
        let manifest = try ManifestLoader.load(folder, targetClasses: Set(PostgresTarget(url: url).existingSchemas().map(\.className)))
        return try await Importer(manifest: manifest, options: options).run(into: PostgresTarget(url: url))
    }

    /// A fixture folder's path.
    func fixture(_ name: String) -> String { PackageFolders.fixtures.appendingPathComponent(name).path }

    /// Every table's rows and the `_SCHEMA` JSON as text: what a failed import must leave alone.
    func snapshot() throws -> [String] {
        let tables = try rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").compactMap { $0[0] }
        var lines = tables
        for table in tables {
            let quotedName = "\"" + table + "\""
            lines += try rows("SELECT t::text FROM \(quotedName) t ORDER BY t::text").map { $0[0] ?? "NULL" }
        }
        return lines
    }
}
