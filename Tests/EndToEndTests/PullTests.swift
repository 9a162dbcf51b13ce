import Foundation
import XCTest

/// `parse-porter pull` from a served mirror (a real Parse REST server over a mirror file) into
/// a mirror of its own, compared table by table with the served file.
final class PullTests: XCTestCase {
    /// The summary `pull --json` prints.
    struct Summary: Decodable {
        struct ClassTally: Decodable {
            let className: String
            let read, added, updated, unchanged, deleted: Int
        }
        struct RelationTally: Decodable {
            let relation: String
            let added, removed: Int
        }
        let classes: [ClassTally]
        let relations: [RelationTally]

        func tally(_ className: String) throws -> ClassTally { try XCTUnwrap(classes.first { $0.className == className }, className) }
        func relation(_ name: String) throws -> RelationTally { try XCTUnwrap(relations.first { $0.relation == name }, name) }
        var read: Int { classes.map(\.read).reduce(0, +) }
    }

    /// `parse-porter pull <server> --to <file> ARGUMENTS…`; the master key must not show in its output.
    private func pull(
        _ url: String, to file: URL, _ arguments: [String] = [], environment: [String: String] = ServedMirror.environment,
        line: UInt = #line
    ) throws -> CommandRunner.Result {
        let result = try CommandRunner.run(["pull", url, "--to", file.path] + arguments, environment: environment)
        XCTAssertFalse(
            result.stdout.contains(ServedMirror.masterKey) || result.stderr.contains(ServedMirror.masterKey), "the master key was printed", line: line)
        return result
    }

    private func pulled(_ server: ServedMirror, to file: URL, _ arguments: [String] = [], line: UInt = #line) throws -> Summary {
        let result = try pull(server.url, to: file, arguments + ["--json"], line: line)
        XCTAssertEqual(result.status, 0, result.stderr, line: line)
        return try JSONDecoder().decode(Summary.self, from: Data(result.stdout.utf8))
    }

    /// The pulled mirror holds exactly what the served one does, schemas with their permissions
    /// and indexes included. A Parse Server keeps the join rows of deleted objects, which no REST
    /// query returns: with `ignoringDanglingLinks` the served side's are left out.
    private func assertSameData(
        _ pulled: URL, as served: URL, from server: ServedMirror, ignoringDanglingLinks: Bool = false, _ message: String = "",
        line: UInt = #line
    ) throws {
        MirrorSnapshot.assertEqual(
            try MirrorSnapshot(pulled, wholeSchemas: true, fileURLsServedBy: server.url),
            try MirrorSnapshot(served, wholeSchemas: true, droppingDanglingLinks: ignoringDanglingLinks), message, line: line)
    }

    /// A GeoPoint with a latitude of 100, which Parse Server stores (201) and serves back
    /// (recorded: `Fixtures/parse-server-7.1.0/geopoint-latitude-100.json`), made `pull` and
    /// `export` exit 3 having copied nothing. Both copy everything now, the point as stored, and
    /// name it in a note; `serve` on the pulled mirror answers it as Parse Server did.
    func testAGeoPointOutOfRangeIsCopiedAsStoredAndNamed() throws {
        let directory = try temporaryFolder()
        let server = try ServedMirror(path: directory.appendingPathComponent("served.sqlite").path, allowCustomObjectId: false)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("recipes").path, ["-q"]).status, 0)
        // What Parse Server stored: `serve` refuses such a write, so it goes into the mirror file.
        let point = #"{"__type":"GeoPoint","latitude":100,"longitude":10}"#
        try Mirror.change(server.file, "UPDATE Kitchen SET location = '\(point)' WHERE name = 'Café Müller'")
        let id = try XCTUnwrap(try Mirror(server.file).value("SELECT objectId FROM Kitchen WHERE name = 'Café Müller'"))
        let named = "Kitchen \(id) location: latitude 100.0 is out of range -90...90"

        let copy = directory.appendingPathComponent("pulled.sqlite")
        let result = try pull(server.url, to: copy, ["--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let notes = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?["notes"] as? [String])
        XCTAssertEqual(notes.count, 1)
        XCTAssertTrue(notes[0].hasPrefix("1 value the source stores is no valid Parse value, copied as stored") && notes[0].contains(named), notes[0])
        XCTAssertEqual(try Mirror(copy).value("SELECT location FROM Kitchen WHERE objectId = '\(id)'"), point)
        try assertSameData(copy, as: server.file, from: server)
        let served = try ServedMirror(path: copy.path, allowCustomObjectId: false)
        defer { served.stop() }
        let answer = try RESTImportTests.curl(served, "GET", "/classes/Kitchen/\(id)", "")
        XCTAssertTrue(answer.stdout.contains(#""location":{"__type":"GeoPoint","latitude":100,"longitude":10}"#), answer.stdout)

        let export = try CommandRunner.run(
            ["export", "--target", server.url, "--to", directory.appendingPathComponent("export").path],
            environment: ServedMirror.environment)
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertTrue(export.stderr.contains("note: 1 value the source stores") && export.stderr.contains(named), export.stderr)
        let kitchens = try String(contentsOf: directory.appendingPathComponent("export/Kitchen.json"), encoding: .utf8)
        XCTAssertTrue(kitchens.contains(point), kitchens)
        XCTAssertEqual(kitchens.components(separatedBy: #""__type":"GeoPoint""#).count - 1, 6, "every kitchen is exported")
    }

    /// Every fixture, imported into a served mirror through REST, is copied exactly: ids,
    /// timestamps, ACLs, typed values, links, and the schemas with their permissions and indexes.
    func testFirstPullCopiesEveryFixtureExactly() throws {
        let directory = try temporaryFolder()
        for fixture in ["library", "todo", "recipes", "contacts", "org", "parse-export"] {
            let server = try ServedMirror(
                path: directory.appendingPathComponent("\(fixture)-served.sqlite").path, allowCustomObjectId: fixture == "parse-export")
            XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent(fixture).path, ["-q"]).status, 0, fixture)
            if fixture == "library" {
                let change =
                    #"{"classLevelPermissions":{"find":{"*":true},"get":{"*":true},"count":{},"create":{},"update":{},"delete":{},"addField":{},"protectedFields":{"*":[]}},"indexes":{"title_1":{"title":1}}}"#
                XCTAssertEqual(try RESTImportTests.curl(server, "PUT", "/schemas/Book", change).status, 0)
            }
            let copy = directory.appendingPathComponent("\(fixture)-pulled.sqlite")
            let summary = try pulled(server, to: copy)
            let served = try Mirror(server.file)
            for tally in summary.classes {
                XCTAssertEqual(tally.added, Int(try served.value("SELECT count(*) FROM \"\(tally.className)\"") ?? ""), "\(fixture) \(tally.className)")
                XCTAssertEqual(tally.read, tally.added)
            }
            XCTAssertGreaterThan(summary.read, 0, fixture)
            try assertSameData(copy, as: server.file, from: server, fixture)
            XCTAssertFalse(try Data(contentsOf: copy).range(of: Data(ServedMirror.masterKey.utf8)) != nil, "the master key is in the mirror file")
        }
        let library = try Mirror(directory.appendingPathComponent("library-pulled.sqlite"))
        XCTAssertTrue(try library.value("SELECT schema FROM _SCHEMA WHERE className = 'Book'")?.contains(#""indexes":{"title_1":{"title":1}}"#) ?? false)
        XCTAssertEqual(
            try library.rows("SELECT className, server FROM _PorterPull ORDER BY className").map { $0[0]! },
            ["Author", "Book", "Genre", "ISBN", "Publisher"])
    }

    /// Changes made through REST arrive with the next pull, which reads only the objects updated
    /// since the watermark; a deletion arrives only with `--full`, with the deleted objects' links.
    func testRepeatedPullsAreIncrementalAndFullOnesDelete() throws {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["-q"]).status, 0)
        let served = try Mirror(server.file)
        // A REST import writes several objects per millisecond; one more update of each class's
        // last object leaves exactly one object per class at the watermark.
        Thread.sleep(forTimeInterval: 0.002)
        for className in ["Author", "Book", "Genre", "ISBN", "Publisher"] {
            let last = try XCTUnwrap(try served.value("SELECT objectId FROM \(className) ORDER BY objectId DESC"))
            XCTAssertEqual(try RESTImportTests.curl(server, "PUT", "/classes/\(className)/\(last)", "{}").status, 0)
        }
        let copy = server.file.deletingLastPathComponent().appendingPathComponent("pulled.sqlite")
        let first = try pulled(server, to: copy)
        XCTAssertEqual(try first.tally("Book").added, 43)
        let books = try served.rows("SELECT objectId FROM Book ORDER BY objectId").map { $0[0]! }
        // Book 0 gets a new year, book 1 a new author link, book 2 loses one, book 3 and an author
        // linked only to other books are deleted, a genre is created.
        let (changed, linked, unlinked, deletedBook) = (books[0], books[1], books[2], books[3])
        let removedAuthor = try XCTUnwrap(try served.value("SELECT relatedId FROM \"_Join:authors:Book\" WHERE owningId = '\(unlinked)'"))
        let addedAuthor = try XCTUnwrap(
            try served.value(
                """
                SELECT objectId FROM Author WHERE objectId NOT IN (SELECT relatedId FROM "_Join:authors:Book" WHERE owningId = '\(linked)') ORDER BY objectId
                """))
        // Not linked to a changed book, nor to one the next pull reads again (updated in the watermark's millisecond).
        let touched = [changed, linked, unlinked, deletedBook].map { "'\($0)'" }.joined(separator: ", ")
        let deletedAuthor = try XCTUnwrap(
            try served.value(
                """
                SELECT relatedId FROM "_Join:authors:Book" WHERE relatedId NOT IN (SELECT relatedId FROM "_Join:authors:Book" WHERE owningId IN (\(touched))
                OR owningId IN (SELECT objectId FROM Book WHERE updatedAt = (SELECT max(updatedAt) FROM Book)))
                AND relatedId NOT IN ('\(addedAuthor)', '\(removedAuthor)') ORDER BY relatedId
                """))
        let authorPointer = { (id: String) in #"{"__type":"Pointer","className":"Author","objectId":"\#(id)"}"# }
        for (method, path, body) in [
            ("PUT", "/classes/Book/\(changed)", #"{"publishingYear":1111}"#),
            ("PUT", "/classes/Book/\(linked)", #"{"authors":{"__op":"AddRelation","objects":[\#(authorPointer(addedAuthor))]}}"#),
            ("PUT", "/classes/Book/\(unlinked)", #"{"authors":{"__op":"RemoveRelation","objects":[\#(authorPointer(removedAuthor))]}}"#),
            ("POST", "/classes/Genre", #"{"name":"Solarpunk"}"#),
            ("DELETE", "/classes/Book/\(deletedBook)", "{}"), ("DELETE", "/classes/Author/\(deletedAuthor)", "{}"),
        ] {
            XCTAssertEqual(try RESTImportTests.curl(server, method, path, body).status, 0, "\(method) \(path)")
        }

        // Only what changed is read: the changed objects and those updated in the watermark's millisecond.
        let watermarks = Dictionary(uniqueKeysWithValues: try Mirror(copy).rows("SELECT className, watermark FROM _PorterPull").map { ($0[0]!, $0[1]!) })
        func atWatermark(_ className: String) throws -> Int {
            Int(try served.value("SELECT count(*) FROM \"\(className)\" WHERE updatedAt = '\(watermarks[className]!)'") ?? "") ?? -1
        }
        XCTAssertEqual(try ["Author", "Book", "Genre", "ISBN", "Publisher"].map(atWatermark).filter { $0 > 1 }, [])
        let second = try pulled(server, to: copy)
        let book = try second.tally("Book"), genre = try second.tally("Genre"), author = try second.tally("Author")
        XCTAssertEqual([book.added, book.updated, book.unchanged, book.deleted], [0, 3, try atWatermark("Book"), 0])
        XCTAssertEqual(book.read, 3 + (try atWatermark("Book")))
        XCTAssertEqual([genre.added, genre.updated, genre.unchanged], [1, 0, try atWatermark("Genre")])
        XCTAssertEqual([author.read, author.deleted], [try atWatermark("Author"), 0])
        XCTAssertLessThan(second.read, first.read / 3)
        XCTAssertEqual([try second.relation("Book.authors").added, try second.relation("Book.authors").removed], [1, 1])
        let copied = try Mirror(copy)
        XCTAssertEqual(try copied.value("SELECT publishingYear FROM Book WHERE objectId = '\(changed)'"), "1111")
        XCTAssertEqual(try copied.value("SELECT count(*) FROM Genre WHERE name = 'Solarpunk'"), "1")
        XCTAssertEqual(try copied.value("SELECT count(*) FROM \"_Join:authors:Book\" WHERE owningId = '\(linked)' AND relatedId = '\(addedAuthor)'"), "1")
        XCTAssertEqual(try copied.value("SELECT count(*) FROM \"_Join:authors:Book\" WHERE owningId = '\(unlinked)' AND relatedId = '\(removedAuthor)'"), "0")
        // Deletions are not noticed without --full.
        XCTAssertEqual(try copied.value("SELECT count(*) FROM Book WHERE objectId = '\(deletedBook)'"), "1")
        XCTAssertEqual(try copied.value("SELECT count(*) FROM Author WHERE objectId = '\(deletedAuthor)'"), "1")
        let goneLinks = { (table: String, column: String, id: String) in
            Int(try copied.value("SELECT count(*) FROM \"\(table)\" WHERE \(column) = '\(id)'") ?? "") ?? -1
        }
        let authorsGone = try goneLinks("_Join:authors:Book", "owningId", deletedBook) + goneLinks("_Join:authors:Book", "relatedId", deletedAuthor)
        let genresGone = try goneLinks("_Join:books:Genre", "relatedId", deletedBook)
        XCTAssertGreaterThan(authorsGone, 0)

        let full = try pulled(server, to: copy, ["--full"])
        XCTAssertEqual(try full.tally("Book").deleted, 1)
        XCTAssertEqual(try full.tally("Author").deleted, 1)
        XCTAssertEqual(full.classes.map(\.added) + full.classes.map(\.updated), Array(repeating: 0, count: 10))
        XCTAssertEqual(try full.relation("Book.authors").removed, authorsGone)
        XCTAssertEqual(try full.relation("Genre.books").removed, genresGone)
        try assertSameData(copy, as: server.file, from: server, ignoringDanglingLinks: true, "after --full")
    }

    /// A server that is not there, or goes away mid-pull, leaves the mirror exactly as it was (exit 3).
    func testAFailedPullLeavesTheMirrorAsItWas() throws {
        let directory = try temporaryFolder()
        let servedFile = directory.appendingPathComponent("served.sqlite")
        let server = try ServedMirror(path: servedFile.path, allowCustomObjectId: false)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["-q"]).status, 0)
        let copy = directory.appendingPathComponent("pulled.sqlite")
        _ = try pulled(server, to: copy)
        let book = try XCTUnwrap(try Mirror(servedFile).value("SELECT objectId FROM Book ORDER BY objectId"))
        XCTAssertEqual(try RESTImportTests.curl(server, "PUT", "/classes/Book/\(book)", #"{"publishingYear":1}"#).status, 0)
        let before = try Data(contentsOf: copy)

        let closed = try ServedMirror(path: directory.appendingPathComponent("closed.sqlite").path, allowCustomObjectId: false)
        closed.stop()
        let unreachable = try pull(closed.url, to: copy, ["--timeout", "1"])
        XCTAssertEqual(unreachable.status, 3, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("connection refused"), unreachable.stderr)
        XCTAssertEqual(try Data(contentsOf: copy), before)
        let fresh = directory.appendingPathComponent("fresh.sqlite")
        XCTAssertEqual(try pull(closed.url, to: fresh, ["--timeout", "1"]).status, 3)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), "a failed first pull leaves no file")

        // The same data served by a server that drops every connection after its first /batch answer.
        let dying = try ServedMirror(path: servedFile.path, allowCustomObjectId: false, faults: .init(share: 0, seed: 1, stallSeconds: 0, goneAfterWrites: 1))
        let gone = try pull(dying.url, to: copy, ["--timeout", "1"])
        XCTAssertEqual(gone.status, 3, gone.stderr)
        XCTAssertTrue(gone.stderr.contains("gave up after"), gone.stderr)
        XCTAssertEqual(dying.injector.writes, 1, "the pull got as far as reading links")
        XCTAssertEqual(try Data(contentsOf: copy), before, "the mirror is as it was")
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path + "-journal"))

        let again = try pulled(server, to: copy)
        XCTAssertEqual(try again.tally("Book").updated, 1)
        try assertSameData(copy, as: servedFile, from: server)
    }

    /// Ctrl-C mid-pull: exit 130, the mirror as it was.
    func testInterruptLeavesTheMirrorAsItWas() throws {
        let directory = try temporaryFolder()
        let items = directory.appendingPathComponent("items")
        try CommandRunner.writeItemsDataset(30_000, to: items)
        let servedFile = directory.appendingPathComponent("served.sqlite"), copy = directory.appendingPathComponent("pulled.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", items.path, "--to", servedFile.path, "-q"]).status, 0)
        try "name,price\npen,2\n".write(to: items.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try CommandRunner.run(["import", items.path, "--to", copy.path, "-q"]).status, 0)
        let before = try Data(contentsOf: copy)
        let server = try ServedMirror(path: servedFile.path, allowCustomObjectId: false)
        let process = try CommandRunner.start(["pull", server.url, "--to", copy.path, "-q"], environment: ServedMirror.environment)
        // The transaction has begun once SQLite's journal exists.
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: copy.path + "-journal") && process.isRunning && Date() < deadline { usleep(500) }
        XCTAssertTrue(process.isRunning, "the pull finished before it could be interrupted")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(try Data(contentsOf: copy), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: copy.path + "-journal"))
    }

    /// A quarter of the requests fail (500, 503, 429, dropped connections, stalls past the
    /// timeout): the retries still bring exactly the server's data.
    func testPullSurvivesServerFaults() throws {
        let directory = try temporaryFolder()
        let servedFile = directory.appendingPathComponent("served.sqlite")
        let server = try ServedMirror(path: servedFile.path, allowCustomObjectId: false)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["-q"]).status, 0)
        var faults = 0
        for seed: UInt64 in [11, 12, 13] {
            let faulty = try ServedMirror(path: servedFile.path, allowCustomObjectId: false, faults: .init(share: 0.25, seed: seed, stallSeconds: 1.5))
            let copy = directory.appendingPathComponent("pulled-\(seed).sqlite")
            let result = try pull(faulty.url, to: copy, ["--timeout", "1", "--concurrency", "2", "-q"])
            XCTAssertEqual(result.status, 0, result.stderr)
            faults += faulty.injector.faultCount
            try assertSameData(copy, as: servedFile, from: faulty, "seed \(seed), faults \(faulty.injector.injected)")
        }
        XCTAssertGreaterThan(faults, 6, "the seeds must inject faults")
    }

    /// Keys, classes and addresses: what is refused, and how.
    func testOptionsAndRefusals() throws {
        let server = try ServedMirror(in: self)
        XCTAssertEqual(try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["-q"]).status, 0)
        let directory = server.file.deletingLastPathComponent()
        let some = directory.appendingPathComponent("some.sqlite")
        let summary = try pulled(server, to: some, ["--classes", "Genre, Book"])
        XCTAssertEqual(summary.classes.map(\.className), ["Book", "Genre"])
        XCTAssertEqual(try Mirror(some).rows("SELECT className FROM _SCHEMA ORDER BY className").map { $0[0]! }, ["Book", "Genre"])
        XCTAssertEqual(
            try Mirror(some).value("SELECT count(*) FROM \"_Join:books:Genre\""),
            try Mirror(server.file).value("SELECT count(*) FROM \"_Join:books:Genre\""))

        let unknown = try pull(server.url, to: some, ["--classes", "Book,Nope"])
        XCTAssertEqual(unknown.status, 2, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("has no class Nope"), unknown.stderr)
        let noMasterKey = try pull(
            server.url, to: some, ["--rest-key", "r"], environment: ["PARSE_APPLICATION_ID": ServedMirror.applicationId, "PARSE_MASTER_KEY": ""])
        XCTAssertEqual(noMasterKey.status, 3, noMasterKey.stderr)
        XCTAssertTrue(noMasterKey.stderr.contains("needs the master key"), noMasterKey.stderr)
        let wrongKey = try pull(server.url, to: some, ["--master-key", "wrong-key-5521"])
        XCTAssertEqual(wrongKey.status, 3, wrongKey.stderr)
        XCTAssertFalse(wrongKey.stderr.contains("wrong-key-5521"), wrongKey.stderr)
        for arguments in [["pull", some.path, "--to", some.path], ["pull", server.url, "--to", server.url], ["pull", server.url]] {
            let usage = try CommandRunner.run(arguments, environment: ServedMirror.environment)
            XCTAssertEqual(usage.status, 2, "\(arguments): \(usage.stderr)")
        }
        let text = try pull(server.url, to: some)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("class ") && text.stdout.contains("deleted") && text.stdout.contains("pulled \(server.url) into"), text.stdout)
        XCTAssertEqual(text.stderr, "", "a short pull prints no progress into a pipe")

        // A field deleted and added again with another type on the server cannot go into the mirror's column.
        XCTAssertEqual(try RESTImportTests.curl(server, "PUT", "/schemas/Book", #"{"fields":{"publishingYear":{"__op":"Delete"}}}"#).status, 0)
        XCTAssertEqual(try RESTImportTests.curl(server, "PUT", "/schemas/Book", #"{"fields":{"publishingYear":{"type":"String"}}}"#).status, 0)
        let before = try Data(contentsOf: some)
        let conflict = try pull(server.url, to: some)
        XCTAssertEqual(conflict.status, 1, conflict.stderr)
        XCTAssertTrue(conflict.stderr.contains("Book.publishingYear is Number in the mirror and String on \(server.url)"), conflict.stderr)
        XCTAssertEqual(try Data(contentsOf: some), before)
    }
}
