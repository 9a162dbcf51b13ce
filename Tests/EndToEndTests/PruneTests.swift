import Foundation
import PorterPostgres
import PorterTestSupport
import XCTest

/// `import --prune`: a re-import deletes the objects whose rows left the sources and the links
/// the join file no longer lists, in a mirror (one transaction) and on a Parse Server (`/batch`);
/// `--dry-run` shows them; a failed import, or a rejected row, deletes nothing it should not.
final class PruneTests: XCTestCase {
    var scratch: URL!
    var dataset: URL!
    var target: URL!

    static let goneBook = "The Left Hand of Darkness"
    static let goneISBN = "978-0-441-47812-5"
    /// Join-file lines removed: the two links of the gone book, and one of a book that stays.
    static let goneLinks = ["Fantasy → American Gods", "Philosophy → The Left Hand of Darkness", "Science Fiction → The Left Hand of Darkness"]

    override func setUpWithError() throws {
        scratch = try temporaryFolder()
        dataset = try CommandRunner.copyFixture("library", to: scratch)
        target = scratch.appendingPathComponent("library.sqlite")
    }

    func edit(_ file: String, _ transform: (String) -> String) throws {
        let url = dataset.appendingPathComponent(file)
        try transform(try String(contentsOf: url, encoding: .utf8)).write(to: url, atomically: true, encoding: .utf8)
    }

    /// Removes the gone book's row from books.csv and its two links from book_genres.csv, and
    /// (unless `keepingOtherLink`) the link of American Gods, which stays.
    func removeRows(keepingOtherLink: Bool = false) throws {
        try edit("books.csv") { text in
            text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix(Self.goneBook + ",") }.joined(separator: "\n")
        }
        try edit("book_genres.csv") { text in
            let gone = Set(["Science Fiction,\(Self.goneBook)", "Philosophy,\(Self.goneBook)"] + (keepingOtherLink ? [] : ["Fantasy,American Gods"]))
            return text.split(separator: "\n", omittingEmptySubsequences: false).filter { !gone.contains(String($0)) }.joined(separator: "\n")
        }
    }

    func run(_ arguments: [String], status: Int32 = 0) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(["import", dataset.path, "--to", target.path] + arguments)
        XCTAssertEqual(result.status, status, result.stderr)
        return result
    }

    /// Every object and link of the mirror, as text rows: objectId, key, updatedAt per object;
    /// owner and related key per link.
    /// A Parse Server sets `updatedAt` on a relation change, so over REST it is left out.
    static func content(_ file: URL, updatedAt: Bool = true) throws -> [String: [[String?]]] {
        let mirror = try Mirror(file)
        var content: [String: [[String?]]] = [:]
        for (className, key) in [("Book", "title"), ("ISBN", "value"), ("Author", "name"), ("Publisher", "name"), ("Genre", "name")] {
            content[className] = try mirror.rows("SELECT objectId, \(key)\(updatedAt ? ", updatedAt" : "") FROM \(className) ORDER BY \(key)")
        }
        for (table, owner, ownerKey, related, relatedKey) in [
            ("_Join:authors:Book", "Book", "title", "Author", "name"),
            ("_Join:publishers:Book", "Book", "title", "Publisher", "name"),
            ("_Join:books:Genre", "Genre", "name", "Book", "title"),
        ] {
            content[table] = try mirror.rows(
                """
                SELECT o.\(ownerKey), r.\(relatedKey) FROM "\(table)" j LEFT JOIN \(owner) o ON o.objectId = j.owningId \
                LEFT JOIN \(related) r ON r.objectId = j.relatedId ORDER BY 1, 2
                """)
        }
        return content
    }

    /// What the content should be once the gone book, its ISBN and their links are deleted.
    static func pruned(_ before: [String: [[String?]]]) -> [String: [[String?]]] {
        var expected = before
        expected["Book"] = before["Book"]!.filter { $0[1] != goneBook }
        expected["ISBN"] = before["ISBN"]!.filter { $0[1] != goneISBN }
        for table in ["_Join:authors:Book", "_Join:publishers:Book"] { expected[table] = before[table]!.filter { $0[0] != goneBook } }
        expected["_Join:books:Genre"] = before["_Join:books:Genre"]!.filter { !goneLinks.contains("\($0[0]!) → \($0[1]!)") }
        return expected
    }

    func testDryRunShowsAndPruneDeletesExactlyWhatLeftTheSources() throws {
        _ = try run(["--quiet"])
        let before = try Self.content(target)
        XCTAssertEqual(before["Book"]!.filter { $0[1] == Self.goneBook }.count, 1)
        XCTAssertEqual(before["_Join:books:Genre"]!.filter { Self.goneLinks.contains("\($0[0]!) → \($0[1]!)") }.count, 3)
        try removeRows()

        // Without --prune nothing is deleted.
        _ = try run(["--quiet"])
        XCTAssertEqual(try Self.content(target), before)

        let dryRun = try run(["--prune", "--dry-run"])
        XCTAssertTrue(dryRun.stdout.contains("would delete 1 Book object: \(Self.goneBook)"), dryRun.stdout)
        XCTAssertTrue(dryRun.stdout.contains("would delete 1 ISBN object: \(Self.goneISBN)"), dryRun.stdout)
        let linkLine = try XCTUnwrap(dryRun.stdout.split(separator: "\n").first { $0.hasPrefix("would delete 3 Genre.books links: ") })
        for link in Self.goneLinks { XCTAssertTrue(linkLine.contains(link), String(linkLine)) }
        XCTAssertEqual(try Self.content(target), before, "a dry run deleted something")

        let json = try run(["--prune", "--dry-run", "--json"])
        let dryReport = try PruneSummary.parse(json)
        XCTAssertEqual(dryReport.deleted, ["Book": 1, "ISBN": 1, "Author": 0, "Publisher": 0, "Genre": 0])
        XCTAssertEqual(dryReport.linksDeleted, ["Genre.books": 3, "Book.authors": 1, "Book.publishers": 1])
        XCTAssertEqual(dryReport.first["Book"], [Self.goneBook])
        XCTAssertEqual(Set(dryReport.first["Genre.books"] ?? []), Set(Self.goneLinks))
        XCTAssertFalse(dryReport.committed)

        let real = try PruneSummary.parse(try run(["--prune", "--json"]))
        XCTAssertTrue(real.committed)
        XCTAssertEqual(real.deleted, dryReport.deleted)
        XCTAssertEqual(real.linksDeleted, dryReport.linksDeleted)
        let after = try Self.content(target)
        XCTAssertEqual(after, Self.pruned(before))
        // No join row is left pointing at or from an object that is gone.
        for table in ["_Join:authors:Book", "_Join:publishers:Book", "_Join:books:Genre"] {
            XCTAssertFalse(after[table]!.contains { $0[0] == nil || $0[1] == nil }, table)
        }
        // A second run has nothing left to delete.
        let again = try PruneSummary.parse(try run(["--prune", "--json"]))
        XCTAssertEqual(again.deleted.values.reduce(0, +) + again.linksDeleted.values.reduce(0, +), 0)
        XCTAssertEqual(try Self.content(target), after)
    }

    func testFailedImportPrunesNothing() throws {
        _ = try run(["--quiet"])
        try removeRows()
        try edit("books.csv") { $0.replacingOccurrences(of: "American Gods,2001,", with: "American Gods,two thousand one,") }
        let before = try Data(contentsOf: target)
        let failed = try run(["--prune", "--quiet"], status: 1)
        XCTAssertTrue(failed.stderr.contains("two thousand one"), failed.stderr)
        XCTAssertTrue(failed.stderr.contains("pruning deleted nothing: the import did not go through"), failed.stderr)
        XCTAssertEqual(try Data(contentsOf: target), before)
    }

    /// A row `--max-errors` rejects still holds its object: the book stays, as it was; the links of
    /// a join file with rejected rows (the link to the rejected book) are left alone (said in a
    /// note), but the gone book still goes, with its links.
    func testRejectedRowKeepsItsObject() throws {
        try rejectedRowKeepsItsObject(run: { try self.run($0) }, file: target, updatedAt: true)
    }

    /// The same over REST, where the rejected row is never sent and its object is matched by key.
    func testRejectedRowKeepsItsObjectOnAParseServer() throws {
        let server = try ServedMirror(in: self)
        try rejectedRowKeepsItsObject(
            run: { arguments in
                let result = try server.runImport(self.dataset.path, arguments)
                XCTAssertEqual(result.status, 0, result.stderr)
                return result
            }, file: server.file, updatedAt: false)
    }

    func rejectedRowKeepsItsObject(run: ([String]) throws -> CommandRunner.Result, file: URL, updatedAt: Bool) throws {
        _ = try run(["--quiet"])
        let before = try Self.content(file, updatedAt: updatedAt)
        try removeRows(keepingOtherLink: true)
        try edit("books.csv") { $0.replacingOccurrences(of: "American Gods,2001,", with: "American Gods,two thousand one,") }
        let result = try run(["--prune", "--max-errors", "5", "--rejects", scratch.appendingPathComponent("rejects").path])
        XCTAssertTrue(result.stdout.contains("pruning left the links of Genre.books alone"), result.stdout)
        let after = try Self.content(file, updatedAt: updatedAt)
        XCTAssertEqual(after["Book"], before["Book"]!.filter { $0[1] != Self.goneBook })
        XCTAssertEqual(after["Book"]!.filter { $0[1] == "American Gods" }, before["Book"]!.filter { $0[1] == "American Gods" })
        XCTAssertEqual(after["_Join:books:Genre"], before["_Join:books:Genre"]!.filter { $0[1] != Self.goneBook })
        XCTAssertEqual(after["ISBN"], before["ISBN"]!.filter { $0[1] != Self.goneISBN })
    }

    /// A rejected row whose key cannot be read names no object: its class is left alone (note),
    /// the other classes are pruned.
    func testRowWithoutKeyLeavesItsClassAlone() throws {
        _ = try run(["--quiet"])
        let before = try Self.content(target)
        try removeRows()
        try edit("books.csv") { $0 + ",2024,Fantasy,978-0-00-000000-2,,,\n" }
        let result = try run(["--prune", "--max-errors", "5", "--rejects", scratch.appendingPathComponent("rejects").path])
        XCTAssertTrue(result.stdout.contains("pruning left Book alone: 1 rejected row had no readable key"), result.stdout)
        let after = try Self.content(target)
        XCTAssertEqual(after["Book"], before["Book"])
        XCTAssertEqual(
            after["ISBN"]!.map { $0[1] }, (before["ISBN"]!.map { $0[1] }.filter { $0 != Self.goneISBN } + ["978-0-00-000000-2"]).sorted { $0! < $1! })
    }

    /// `mode: merge` only adds a split cell's links, with `--prune` too; objects still go. Without
    /// merge the same cell edit removes the link (so the test would see a change).
    func testMergeKeepsLinksACellStopsNaming() throws {
        try edit("dataset.yml") { $0.replacingOccurrences(of: "    key: [title]\n", with: "    key: [title]\n    mode: merge\n") }
        _ = try run(["--quiet"])
        let before = try Self.content(target)
        try removeRows()
        try edit("books.csv") {
            $0.replacingOccurrences(
                of: "Good Omens,1990,Humor,978-0-06-085398-3,Terry Pratchett;Neil Gaiman,", with: "Good Omens,1990,Humor,978-0-06-085398-3,Neil Gaiman,")
        }
        let summary = try PruneSummary.parse(try run(["--prune", "--json"]))
        XCTAssertEqual(summary.deleted["Book"], 1)
        let after = try Self.content(target)
        XCTAssertEqual(after["_Join:authors:Book"], before["_Join:authors:Book"]!.filter { $0[0] != Self.goneBook })
        XCTAssertTrue(after["_Join:authors:Book"]!.contains(["Good Omens", "Terry Pratchett"]))
        XCTAssertEqual(after["Book"]!.map { $0[1] }, before["Book"]!.map { $0[1] }.filter { $0 != Self.goneBook })
    }

    // MARK: Parse Server's PostgreSQL database

    /// The same sync straight in Parse Server's database, in the import's transaction: a dry
    /// run shows what would go and deletes nothing; the real one deletes the objects, their
    /// links as owner and as related object, and the join-file links no longer listed.
    func testPruneInParseServersPostgreSQLDatabase() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let database = try PostgresConnection(url: url)
        defer { database.close() }
        /// Every object's key and every link, by owner and related key, as text rows.
        func content() throws -> [[String?]] {
            try database.execute(#"SELECT 'Book', title FROM "Book" UNION ALL SELECT 'ISBN', value FROM "ISBN" ORDER BY 1, 2"#)
                + database.execute(
                    """
                    SELECT 'authors', b.title || ' → ' || coalesce(a.name, '?') FROM "_Join:authors:Book" j LEFT JOIN "Book" b ON b."objectId" = j."owningId"
                    LEFT JOIN "Author" a ON a."objectId" = j."relatedId"
                    UNION ALL SELECT 'books', g.name || ' → ' || coalesce(b.title, '?') FROM "_Join:books:Genre" j LEFT JOIN "Genre" g ON g."objectId" = j."owningId"
                    LEFT JOIN "Book" b ON b."objectId" = j."relatedId" ORDER BY 1, 2
                    """)
        }
        func run(_ arguments: [String]) throws -> PruneSummary {
            let result = try CommandRunner.run(["import", dataset.path, "--to", url, "--json"] + arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
            return try PruneSummary.parse(result)
        }
        _ = try CommandRunner.run(["import", dataset.path, "--to", url, "--quiet"])
        let before = try content()
        try removeRows()

        let dryRun = try run(["--prune", "--dry-run"])
        XCTAssertFalse(dryRun.committed)
        XCTAssertEqual(dryRun.deleted, ["Book": 1, "ISBN": 1, "Author": 0, "Publisher": 0, "Genre": 0])
        XCTAssertEqual(dryRun.linksDeleted, ["Genre.books": 3, "Book.authors": 1, "Book.publishers": 1])
        XCTAssertEqual(dryRun.first["Book"], [Self.goneBook])
        XCTAssertEqual(dryRun.first["ISBN"], [Self.goneISBN])
        XCTAssertEqual(Set(dryRun.first["Genre.books"] ?? []), Set(Self.goneLinks))
        XCTAssertEqual(try content(), before, "a dry run deleted something")

        let real = try run(["--prune"])
        XCTAssertTrue(real.committed)
        XCTAssertEqual(real.deleted, dryRun.deleted)
        XCTAssertEqual(real.linksDeleted, dryRun.linksDeleted)
        let gone = Set(
            ["Book", "ISBN"].map { [$0, $0 == "Book" ? Self.goneBook : Self.goneISBN] }
                + Self.goneLinks.map { ["books", $0] } + before.filter { $0[0] == "authors" && $0[1]!.hasPrefix(Self.goneBook + " → ") })
        XCTAssertEqual(try content(), before.filter { !gone.contains($0) })
        XCTAssertEqual(try run(["--prune"]).deleted.values.reduce(0, +), 0, "nothing left to delete")
    }

    /// A user the sources no longer hold goes from the database with the links to it and the
    /// `_Session` rows Parse Server gave it; the other users' sessions stay.
    func testPruneOfAUserInPostgreSQLTakesItsSessions() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let database = try PostgresConnection(url: url)
        defer { database.close() }
        let users = try CommandRunner.copyFixture("parse-com-users", to: scratch)
        XCTAssertEqual(try CommandRunner.run(["import", users.path, "--to", url, "--quiet"]).status, 0)
        try database.execute(#"CREATE TABLE IF NOT EXISTS "_Session" ("objectId" text PRIMARY KEY, "user" text, "sessionToken" text)"#)
        try database.execute(#"INSERT INTO "_Session" VALUES ('s1', 'UsAda18150', 'r:a'), ('s2', 'UsGrace190', 'r:g'), ('s3', 'UsGrace190', 'r:g2')"#)
        let file = users.appendingPathComponent("_User.json")
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        json["results"] = (json["results"] as? [[String: Any]])?.filter { $0["username"] as? String != "grace" }
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        let links = users.appendingPathComponent("_Join:users:_Role.json")
        try String(contentsOf: links, encoding: .utf8).split(separator: "\n").filter { !$0.contains("UsGrace190") }
            .joined(separator: "\n").replacingOccurrences(of: "\"UsAda18150\"},", with: "\"UsAda18150\"}").write(to: links, atomically: true, encoding: .utf8)

        let result = try CommandRunner.run(["import", users.path, "--to", url, "--prune", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try PruneSummary.parse(result)
        XCTAssertEqual(report.deleted["_User"], 1)
        XCTAssertEqual(report.linksDeleted["_Role.users"], 1)
        XCTAssertEqual(try database.execute(#"SELECT username FROM "_User" ORDER BY 1"#).map { $0[0] }, ["ada", "alan"])
        XCTAssertEqual(try database.execute(#"SELECT "objectId" FROM "_Session" ORDER BY 1"#).map { $0[0] }, ["s1"])
        XCTAssertEqual(try database.execute(#"SELECT count(*) FROM "_Join:users:_Role" WHERE "relatedId" = 'UsGrace190'"#).first?.first, "0")
    }

    // MARK: A Parse Server (a served mirror)

    /// The same sync over REST, against a server that assigns its own objectIds and one that takes
    /// the loader's: `RemoveRelation` and `DELETE` in `/batch` requests; a dry run sends no write.
    func testPruneOnAParseServer() throws {
        for customIds in [false, true] {
            try setUpWithError()
            try pruneOnAParseServer(allowCustomObjectId: customIds)
        }
    }

    func pruneOnAParseServer(allowCustomObjectId: Bool) throws {
        let server = try ServedMirror(in: self, allowCustomObjectId: allowCustomObjectId)
        XCTAssertEqual(try server.runImport(dataset.path, ["-q"]).status, 0)
        let before = try Self.content(server.file, updatedAt: false)
        let stamped = try Self.content(server.file)
        try removeRows()

        let dryRun = try server.runImport(dataset.path, ["--prune", "--dry-run", "--json"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        let dryReport = try PruneSummary.parse(dryRun)
        XCTAssertEqual(dryReport.deleted, ["Book": 1, "ISBN": 1, "Author": 0, "Publisher": 0, "Genre": 0])
        XCTAssertEqual(dryReport.linksDeleted, ["Genre.books": 3, "Book.authors": 1, "Book.publishers": 1])
        XCTAssertEqual(dryReport.first["ISBN"], [Self.goneISBN])
        XCTAssertEqual(Set(dryReport.first["Genre.books"] ?? []), Set(Self.goneLinks))
        // Nothing sent: a RemoveRelation would have set the genres' updatedAt, a DELETE removed a row.
        XCTAssertEqual(try Self.content(server.file), stamped)

        let real = try server.runImport(dataset.path, ["--prune", "--json"])
        XCTAssertEqual(real.status, 0, real.stderr)
        XCTAssertEqual(try PruneSummary.parse(real).deleted, dryReport.deleted)
        XCTAssertEqual(try Self.content(server.file, updatedAt: false), Self.pruned(before))
        XCTAssertEqual(try Mirror(server.file).value("SELECT count(*) FROM \"_Join:authors:Book\" WHERE owningId NOT IN (SELECT objectId FROM Book)"), "0")
    }

    /// A server gone before the last prune request: the run fails saying to run it again; the
    /// next run against the server back finishes the job, with exactly the same result.
    func testInterruptedPruneIsFinishedByTheNextRun() throws {
        let served = scratch.appendingPathComponent("served.sqlite"), whole = scratch.appendingPathComponent("whole.sqlite")
        // Read while its server runs: one that is shutting down may still hold the file.
        let (before, beforeWhole) = try
            ([served, whole].map { file in
                let server = try ServedMirror(path: file.path, allowCustomObjectId: false)
                XCTAssertEqual(try server.runImport(dataset.path, ["-q"]).status, 0)
                return try Self.content(file, updatedAt: false)
            }).splat()
        try removeRows()
        // How many write requests a whole run sends, on the other server.
        let writes: Int
        do {
            let server = try ServedMirror(path: whole.path, allowCustomObjectId: false)
            XCTAssertEqual(try server.runImport(dataset.path, ["--prune", "-q", "--concurrency", "1"]).status, 0)
            writes = server.injector.writes
            XCTAssertEqual(try Self.content(whole, updatedAt: false), Self.pruned(beforeWhole))
        }
        do {
            let flaky = try ServedMirror(
                path: served.path, allowCustomObjectId: false,
                faults: .init(share: 0, seed: 1, stallSeconds: 0, goneAfterWrites: writes - 1))
            let cut = try flaky.runImport(dataset.path, ["--prune", "-q", "--timeout", "1", "--concurrency", "1"])
            XCTAssertEqual(cut.status, 3, cut.stderr)
            XCTAssertTrue(cut.stderr.contains("Run the same import again to finish it"), cut.stderr)
        }
        let server = try ServedMirror(path: served.path, allowCustomObjectId: false)
        let cut = try Self.content(served, updatedAt: false)
        XCTAssertNotEqual(cut, before, "the cut run deleted nothing")
        XCTAssertNotEqual(cut, Self.pruned(before), "the cut run finished the job")
        let finished = try server.runImport(dataset.path, ["--prune", "-q"])
        XCTAssertEqual(finished.status, 0, finished.stderr)
        XCTAssertEqual(try Self.content(served, updatedAt: false), Self.pruned(before))
    }

    func testPruneOnAParseServerNeedsTheMasterKey() throws {
        let server = try ServedMirror(in: self)
        let result = try server.runImport(dataset.path, ["--prune"], environment: ["PARSE_APPLICATION_ID": ServedMirror.applicationId, "PARSE_MASTER_KEY": ""])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("--prune deletes objects on a Parse Server with the master key"), result.stderr)
        XCTAssertEqual(server.injector.writes, 0)
    }
}

private extension Array {
    /// The two elements of a two-element array.
    func splat() -> (Element, Element) { (self[0], self[1]) }
}

/// What `import --prune --json` reports of its deletions.
struct PruneSummary {
    let committed: Bool
    /// Objects deleted, by class.
    let deleted: [String: Int]
    /// Links deleted, by relation, where any were.
    let linksDeleted: [String: Int]
    /// The first keys or links shown, by class or relation.
    let first: [String: [String]]

    static func parse(_ result: CommandRunner.Result) throws -> PruneSummary {
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        let classes = try XCTUnwrap(json["classes"] as? [[String: Any]])
        let relations = try XCTUnwrap(json["relations"] as? [[String: Any]])
        let pruned = try XCTUnwrap(json["pruned"] as? [[String: Any]], "no pruned list: \(result.stdout)")
        var links: [String: Int] = [:]
        for relation in relations where (relation["deleted"] as? Int ?? 0) > 0 { links[relation["relation"] as! String] = relation["deleted"] as? Int }
        return PruneSummary(
            committed: json["committed"] as? Bool ?? false,
            deleted: Dictionary(uniqueKeysWithValues: classes.map { ($0["className"] as! String, $0["deleted"] as! Int) }),
            linksDeleted: links,
            first: Dictionary(uniqueKeysWithValues: pruned.map { ($0["name"] as! String, $0["first"] as! [String]) }))
    }
}
