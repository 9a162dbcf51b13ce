import Foundation
import XCTest

/// Imports through the Parse REST API into a served mirror, checked against direct imports of
/// the same datasets into a mirror file.
final class RESTImportTests: XCTestCase {
    /// Every fixture, through REST with server-assigned ids and with the loader's own ids,
    /// ends equal to the direct import (objects, typed values, pointers, relations; ids aside;
    /// a Polygon's ring closed, as Parse Server stores it).
    func testFixturesThroughRESTEqualDirectImports() throws {
        let directory = try temporaryFolder()
        for fixture in ["library", "todo", "recipes", "contacts", "org", "parse-export", "campus"] {
            let direct = directory.appendingPathComponent("\(fixture)-direct.sqlite")
            let imported = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent(fixture).path, "--to", direct.path, "-q"])
            XCTAssertEqual(imported.status, 0, imported.stderr)
            let keys = try Self.naturalKeys(direct)
            let expected = try MirrorContent(direct, keys: keys).withPolygonRingsClosed()
            for customIds in [false, true] {
                let served = directory.appendingPathComponent("\(fixture)-rest-\(customIds).sqlite")
                let server = try ServedMirror(path: served.path, allowCustomObjectId: customIds)
                let result = try server.runImport(CommandRunner.fixtures.appendingPathComponent(fixture).path, ["--json"])
                if fixture == "parse-export" && !customIds {
                    // No natural keys: objects are identified by objectId, which this server refuses.
                    XCTAssertEqual(result.status, 3, result.stdout)
                    XCTAssertTrue(result.stderr.contains("allowCustomObjectId"), result.stderr)
                    continue
                }
                XCTAssertEqual(result.status, 0, "\(fixture) customIds=\(customIds): \(result.stdout) \(result.stderr)")
                let phases = try ImportSummary.parse(result).requests.map(\.phase)
                if fixture == "org" {
                    // Pointer cycles: patched in afterwards with server ids, written with their objects with custom ids.
                    XCTAssertEqual(phases.contains { $0.hasPrefix("patch") }, !customIds, "\(phases)")
                }
                let content = try MirrorContent(served, keys: keys)
                XCTAssertEqual(content, expected, "\(fixture) customIds=\(customIds): " + content.differences(from: expected).joined(separator: "\n"))
                XCTAssertGreaterThan(content.objectCount, 0)
                if customIds && !keys.values.contains([]) {
                    // With custom ids the server keeps the loader's deterministic ids: the same as the direct import's.
                    let ids = try Mirror(served).rows("SELECT objectId FROM \"\(keys.keys.sorted()[0])\" ORDER BY objectId")
                    XCTAssertEqual(ids, try Mirror(direct).rows("SELECT objectId FROM \"\(keys.keys.sorted()[0])\" ORDER BY objectId"))
                }
            }
        }
    }

    /// A second run reads and compares, and sends no write at all.
    func testSecondRunSendsNoWrites() throws {
        let server = try ServedMirror(in: self)
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        let first = try ImportSummary.parse(try server.runImport(library, ["--json"]))
        XCTAssertEqual(first.tally("Book")?.inserted, first.tally("Book")?.read)
        XCTAssertGreaterThan(first.relation("Book.authors")?.added ?? 0, 0)
        let writesBefore = server.injector.writes
        let second = try ImportSummary.parse(try server.runImport(library, ["--json"]))
        XCTAssertTrue(second.succeeded)
        for tally in second.classes {
            XCTAssertEqual(tally.unchanged, tally.read, tally.className)
            XCTAssertEqual(tally.inserted + tally.updated, 0, tally.className)
        }
        XCTAssertEqual(second.relations.map(\.added).reduce(0, +), 0)
        // Only reads: GETs, and /batch requests made of GET operations (relation links).
        let writePhases = second.requests.filter {
            $0.phase.hasPrefix("write") || $0.phase.hasPrefix("patch") || $0.phase.hasPrefix("relations") || $0.phase == "schemas"
        }
        XCTAssertEqual(writePhases.map(\.requests).reduce(0, +), 0, "\(second.requests)")
        // Every POST of the second run is a /batch of relation reads, or the custom-objectId probe (which the server refuses).
        let relationReads = second.requests.filter { $0.phase.hasPrefix("read ") && $0.phase.contains(".") }.map(\.requests).reduce(0, +)
        XCTAssertEqual(server.injector.writes - writesBefore, relationReads + 1)
    }

    /// A re-run reads the links of a relation from its targets' side when there are fewer targets
    /// than owners: one query per Author (Parse Server finds a target's owners through the join
    /// table's primary key, `(relatedId, owningId)`) instead of one `$relatedTo` query per Book,
    /// each of which reads the whole join table (a re-run of 20,000 books against Parse Server
    /// 7.1.0: 1.1 billion join rows, 63 s of PostgreSQL's CPU, longer than the first load).
    /// Links changed on the server in between are found and put right.
    func testReRunReadsLinksFromTheSmallerSide() throws {
        let server = try ServedMirror(in: self)
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        XCTAssertEqual(try server.runImport(library, ["-q"]).status, 0)
        let authors = try XCTUnwrap(Int(try Mirror(server.file).value("SELECT count(*) FROM Author") ?? ""))
        let publishers = try XCTUnwrap(Int(try Mirror(server.file).value("SELECT count(*) FROM Publisher") ?? ""))
        let books = try XCTUnwrap(Int(try Mirror(server.file).value("SELECT count(*) FROM Book") ?? ""))
        XCTAssertLessThan(authors, books)
        // On the server meanwhile: one of Dune's authors unlinked, one author too many linked.
        let dune = try XCTUnwrap(try Mirror(server.file).value("SELECT objectId FROM Book WHERE title = 'Dune'"))
        let herbert = try XCTUnwrap(try Mirror(server.file).value("SELECT objectId FROM Author WHERE name = 'Frank Herbert'"))
        let other = try XCTUnwrap(try Mirror(server.file).value("SELECT objectId FROM Author WHERE name <> 'Frank Herbert' LIMIT 1"))
        func pointer(_ id: String) -> String { #"{"__type":"Pointer","className":"Author","objectId":"\#(id)"}"# }
        let change =
            #"{"authors":{"__op":"Batch","ops":[{"__op":"RemoveRelation","objects":[\#(pointer(herbert))]},{"__op":"AddRelation","objects":[\#(pointer(other))]}]}}"#
        XCTAssertEqual(try Self.curl(server, "PUT", "/classes/Book/\(dune)", change).status, 0)

        let again = try ImportSummary.parse(try server.runImport(library, ["--json"]))
        XCTAssertEqual(again.requests.first { $0.phase == "read Book.authors" }?.operations, authors, "\(again.requests)")
        XCTAssertEqual(again.requests.first { $0.phase == "read Book.publishers" }?.operations, publishers, "\(again.requests)")
        XCTAssertEqual(again.relation("Book.authors")?.added, 1)
        XCTAssertEqual(again.relation("Book.authors")?.removed, 1)
        XCTAssertEqual(again.relation("Book.publishers")?.added, 0)
        let links = try Mirror(server.file).rows(#"SELECT relatedId FROM "_Join:authors:Book" WHERE owningId = '\#(dune)'"#).compactMap { $0[0] }
        XCTAssertEqual(links, [herbert])
        let third = try ImportSummary.parse(try server.runImport(library, ["--json"]))
        XCTAssertEqual(third.relations.map { $0.added + $0.removed }, [0, 0, 0])
    }

    /// A changed row is updated in place; a new row is created; the rest is left alone.
    func testChangedSourceUpdatesOnlyWhatChanged() throws {
        let directory = try temporaryFolder()
        let dataset = try CommandRunner.copyFixture("library", to: directory)
        let served = directory.appendingPathComponent("served.sqlite")
        let server = try ServedMirror(path: served.path, allowCustomObjectId: false)
        XCTAssertEqual(try server.runImport(dataset.path, ["-q"]).status, 0)
        let books = dataset.appendingPathComponent("books.csv")
        let text = try String(contentsOf: books, encoding: .utf8)
        XCTAssertTrue(text.contains("Dune,1965,"))
        try text.replacingOccurrences(of: "Dune,1965,", with: "Dune,1111,").write(to: books, atomically: true, encoding: .utf8)
        let summary = try ImportSummary.parse(try server.runImport(dataset.path, ["--json"]))
        XCTAssertEqual(summary.tally("Book")?.updated, 1)
        XCTAssertEqual(summary.tally("Book")?.unchanged, (summary.tally("Book")?.read ?? 0) - 1)
        XCTAssertEqual(try Mirror(served).value("SELECT count(*) FROM Book WHERE publishingYear = 1111"), "1")
        let direct = directory.appendingPathComponent("direct.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", dataset.path, "--to", direct.path, "-q"]).status, 0)
        let keys = try Self.naturalKeys(direct)
        XCTAssertEqual(try MirrorContent(served, keys: keys), try MirrorContent(direct, keys: keys))
    }

    /// `--dry-run` reads, counts the requests a real run would send per phase, and writes nothing.
    func testDryRunCountsRequestsAndWritesNothing() throws {
        let server = try ServedMirror(in: self)
        let served = server.file
        let result = try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path, ["--dry-run"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("write Book"), result.stdout)
        XCTAssertTrue(result.stdout.contains("dry run: nothing was written"), result.stdout)
        // Its one POST is the custom-objectId probe, which every Parse Server refuses before it writes anything.
        XCTAssertEqual(server.injector.writes, 1, "a dry run sends no write")
        XCTAssertEqual(try Mirror(served).value("SELECT count(*) FROM _SCHEMA"), "0")
    }

    /// A dry run counts the links a run adds, one by one (not one per AddRelation operation: the
    /// objects a server would create all had one made-up id, 43/43/12 against 47/45/72), in text
    /// and in `--json`, and shows the plan the server is written by: on a server that takes
    /// custom objectIds (asked without writing, even when it has none of the classes yet), no
    /// relations phase, since each owner is created with its links.
    func testDryRunCountsLinksAndShowsThePlanTheServerIsWrittenBy() throws {
        let library = CommandRunner.fixtures.appendingPathComponent("library").path
        for customIds in [false, true] {
            let server = try ServedMirror(in: self, allowCustomObjectId: customIds)
            let text = try server.runImport(library, ["--dry-run"])
            XCTAssertEqual(text.status, 0, text.stderr)
            XCTAssertEqual(text.stdout.contains("phase 3: relations Genre.books, Book.authors, Book.publishers"), !customIds, text.stdout)
            XCTAssertEqual(text.stdout.contains("relations Genre.books, Book.authors, Book.publishers: created with their owners"), customIds, text.stdout)
            let dry = try ImportSummary.parse(try server.runImport(library, ["--dry-run", "--json"]))
            // Two dry runs, each asking about objectIds with a create every Parse Server refuses, wrote nothing.
            XCTAssertEqual(server.injector.writes, 2)
            XCTAssertEqual(try Mirror(server.file).value("SELECT count(*) FROM _SCHEMA"), "0", "a dry run writes nothing")
            let run = try ImportSummary.parse(try server.runImport(library, ["--json"]))
            XCTAssertEqual(run.relations.map(\.added), [47, 45, 72], "customIds=\(customIds)")
            XCTAssertEqual(dry.relations.map(\.added), run.relations.map(\.added), "customIds=\(customIds)")
            for relation in ["Book.authors", "Book.publishers", "Genre.books"] {
                let row = text.stdout.split(separator: "\n").first { $0.hasPrefix(relation + " ") }?.split(separator: " ")
                XCTAssertEqual(row?.dropFirst().first.map(String.init), String(run.relation(relation)!.added), "\(relation): \(text.stdout)")
            }
        }
    }

    /// An object the server refuses is reported with its file and line and the Parse error, and
    /// written to rejects/<Class>.csv as it was read; the rest of the data is written.
    /// Links to or from objects the server refused are counted as rejected, not dropped.
    func testLinksOfRefusedObjectsAreCountedAsRejected() throws {
        let directory = try temporaryFolder()
        let server = try serverRefusingAuthors()
        let direct = directory.appendingPathComponent("direct.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", direct.path, "-q"]).status, 0)
        let links = Int(try Mirror(direct).value(#"SELECT count(*) FROM "_Join:books:Genre""#) ?? "") ?? 0
        XCTAssertGreaterThan(links, 0)
        _ = try importRefusingAuthors(try CommandRunner.copyFixture("library", to: directory), into: server, links: links)
        let served = try Mirror(server.file)
        if try served.value(#"SELECT name FROM sqlite_master WHERE name = '_Join:books:Genre'"#) != nil {
            XCTAssertEqual(try served.value(#"SELECT count(*) FROM "_Join:books:Genre""#), "0", "no link reached the server")
        }
    }

    /// An owner the server refused takes all its links with it, and each of them is counted:
    /// here every Genre is refused (no `motto`, which its schema requires), so each of the 72
    /// Genre.books links is rejected, not one per genre.
    func testEveryLinkOfARefusedOwnerIsCounted() throws {
        let directory = try temporaryFolder()
        let server = try ServedMirror(in: self)
        let schema = #"{"className":"Genre","fields":{"motto":{"type":"String","required":true}}}"#
        XCTAssertEqual(try Self.curl(server, "POST", "/schemas/Genre", schema).status, 0)
        let direct = directory.appendingPathComponent("direct.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", direct.path, "-q"]).status, 0)
        let links = Int(try Mirror(direct).value(#"SELECT count(*) FROM "_Join:books:Genre""#) ?? "") ?? 0
        let owners = Int(try Mirror(direct).value(#"SELECT count(DISTINCT owningId) FROM "_Join:books:Genre""#) ?? "") ?? 0
        XCTAssertGreaterThan(links, owners, "the test needs genres with several books")
        let result = try server.runImport(try CommandRunner.copyFixture("library", to: directory).path, ["--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let summary = try ImportSummary.parse(result)
        XCTAssertEqual(summary.tally("Genre")?.rejected, 12)
        XCTAssertEqual(summary.relation("Genre.books")?.added, 0)
        XCTAssertEqual(summary.relation("Genre.books")?.rejected, links, "every link of a refused genre is counted")
    }

    /// The links of a join file are sent and counted however soon the server's refusal of an
    /// earlier class is known. Here a pointer to a class outside the dataset makes the loader ask
    /// the server, once every write sent so far is answered, before the join file is read: the
    /// Authors are refused by then. (Before, a refusal known that early stopped the join file at
    /// its first row, and its 72 links were neither added nor counted; under load that happened
    /// now and then with no such pointer.)
    func testJoinFileLinksAreCountedWhenAnEarlierRefusalIsAlreadyKnown() throws {
        let directory = try temporaryFolder()
        let server = try serverRefusingAuthors()
        let librarian = try Self.curl(server, "POST", "/classes/Librarian", #"{"name":"Ann"}"#)
        let librarianId = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(librarian.stdout.utf8)) as? [String: Any])["objectId"] as? String
        let dataset = try CommandRunner.copyFixture("library", to: directory)
        let manifest = dataset.appendingPathComponent("dataset.yml")
        let shelf = """
              Shelf:
                source: shelves.csv
                key: [label]
                fields:
                  label: String!
                  keeper: {type: Pointer<Librarian>, column: keeper}
            relations:

            """
        let text = try String(contentsOf: manifest, encoding: .utf8)
        XCTAssertTrue(text.contains("\nrelations:\n"))
        try text.replacingOccurrences(of: "\nrelations:\n", with: "\n" + shelf).write(to: manifest, atomically: true, encoding: .utf8)
        try "label,keeper\nA,\(try XCTUnwrap(librarianId))\n".write(to: dataset.appendingPathComponent("shelves.csv"), atomically: true, encoding: .utf8)
        let summary = try importRefusingAuthors(dataset, into: server, links: 72)
        XCTAssertEqual(summary.tally("Shelf")?.inserted, 1)
    }

    /// A server that refuses every Author of the library: no author has the nickname its schema
    /// requires (142). With them it refuses every Book (they link to authors), and Genre.books
    /// then links to books that are not there.
    private func serverRefusingAuthors() throws -> ServedMirror {
        let server = try ServedMirror(in: self)
        let schema = #"{"className":"Author","fields":{"nickname":{"type":"String","required":true}}}"#
        XCTAssertEqual(try Self.curl(server, "POST", "/schemas/Author", schema).status, 0)
        return server
    }

    /// Imports the library in `dataset` into a ``serverRefusingAuthors()``: exit 1, its 42 Authors
    /// and 43 Books refused, and each of the `links` Genre.books links counted as rejected.
    private func importRefusingAuthors(
        _ dataset: URL, into server: ServedMirror, links: Int,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> ImportSummary {
        let result = try server.runImport(dataset.path, ["--json"])
        XCTAssertEqual(result.status, 1, result.stderr, file: file, line: line)
        let summary = try ImportSummary.parse(result)
        XCTAssertEqual(summary.tally("Author")?.rejected, 42, file: file, line: line)
        XCTAssertEqual(summary.tally("Book")?.rejected, 43, file: file, line: line)
        XCTAssertEqual(summary.relation("Genre.books")?.added, 0, file: file, line: line)
        XCTAssertEqual(summary.relation("Genre.books")?.rejected, links, "every link to a refused book is counted", file: file, line: line)
        return summary
    }

    /// With custom objectIds too, an object whose pointer names an object the server refused is
    /// refused with it, not written pointing at nothing; a second run refuses it again rather
    /// than counting it unchanged. (Against Parse Server 7.1.0, after it refused every Genre
    /// with 142, all 43 Books were written pointing at the missing Genres.)
    func testCustomIdsPointersToRefusedObjectsAreRefusedWithThem() throws {
        let directory = try temporaryFolder()
        let server = try ServedMirror(in: self, allowCustomObjectId: true)
        XCTAssertEqual(try Self.curl(server, "POST", "/schemas/Genre", #"{"className":"Genre","fields":{"code":{"type":"String","required":true}}}"#).status, 0)
        let dataset = try CommandRunner.copyFixture("library", to: directory)
        let books = try String(contentsOf: CommandRunner.fixtures.appendingPathComponent("library/books.csv"), encoding: .utf8)
        let withGenre = ExportToStdoutTests.csvRows(books).dropFirst().filter { $0.count > 2 && !$0[2].isEmpty }.count
        for run in 1...2 {
            let result = try server.runImport(dataset.path, ["--json"])
            XCTAssertEqual(result.status, 1, result.stderr)
            let summary = try ImportSummary.parse(result)
            XCTAssertEqual(summary.tally("Genre")?.rejected, 12, "run \(run)")
            XCTAssertEqual(summary.tally("Book")?.rejected, withGenre, "run \(run): every Book with a genre is refused")
            XCTAssertEqual(summary.tally("Book")?.unchanged, 0, "run \(run)")
            XCTAssertTrue(summary.errorTexts.contains { $0.contains("genre points to a Genre the server does not have") }, "\(summary.errorTexts)")
            XCTAssertEqual(try Mirror(server.file).value("SELECT count(*) FROM Book WHERE genre IS NOT NULL"), "0", "run \(run): no Book names a missing Genre")
        }
    }

    /// With custom objectIds, a reference written before its object (a cycle: each Team's lead is
    /// an Employee, written later) whose object the server then refuses is named in the summary,
    /// not left silently naming nothing.
    func testCustomIdsReferencesWrittenAheadOfRefusedObjectsAreNamed() throws {
        let server = try ServedMirror(in: self, allowCustomObjectId: true)
        XCTAssertEqual(
            try Self.curl(server, "POST", "/schemas/Employee", #"{"className":"Employee","fields":{"badge":{"type":"String","required":true}}}"#).status, 0)
        let result = try server.runImport(CommandRunner.fixtures.appendingPathComponent("org").path, ["--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let summary = try ImportSummary.parse(result)
        XCTAssertEqual(summary.tally("Employee")?.rejected, summary.tally("Employee")?.read)
        let leads = try Mirror(server.file).value("SELECT count(*) FROM Team WHERE lead IS NOT NULL") ?? ""
        XCTAssertEqual(leads, "4")
        let note = try XCTUnwrap(summary.notes.first { $0.contains("references were written before their object") }, "\(summary.notes)")
        XCTAssertTrue(note.hasPrefix("\(leads) references"), note)
        XCTAssertTrue(note.contains(".lead → Employee "), note)
    }

    func testRefusedObjectsAreReportedAndTheRestWritten() throws {
        let directory = try temporaryFolder()
        let server = try ServedMirror(in: self)
        let served = server.file
        // The server's schema requires a description, which some to-dos lack: those get 142.
        let schema = #"{"className":"TodoListItem","fields":{"description":{"type":"String","required":true}}}"#
        XCTAssertEqual(try Self.curl(server, "POST", "/schemas/TodoListItem", schema).status, 0)
        let dataset = try CommandRunner.copyFixture("todo", to: directory)
        let direct = directory.appendingPathComponent("direct.sqlite")
        XCTAssertEqual(try CommandRunner.run(["import", dataset.path, "--to", direct.path, "-q"]).status, 0)
        let withoutDescription = Int(try Mirror(direct).value("SELECT count(*) FROM TodoListItem WHERE description IS NULL") ?? "") ?? 0
        XCTAssertGreaterThan(withoutDescription, 0)
        let result = try server.runImport(dataset.path, ["--json"])
        XCTAssertEqual(result.status, 1)
        let summary = try ImportSummary.parse(result)
        XCTAssertTrue(summary.committed)
        XCTAssertEqual(summary.tally("TodoListItem")?.rejected, withoutDescription)
        XCTAssertEqual(summary.tally("TodoListItem")?.inserted, (summary.tally("TodoListItem")?.read ?? 0) - withoutDescription)
        XCTAssertTrue(summary.errorTexts.contains { $0.hasPrefix("todos.tsv:") && $0.contains("Parse error 142") }, "\(summary.errorTexts)")
        let refused = summary.errors.filter { $0.kind == "refusedByTarget" }
        XCTAssertEqual(refused.count, withoutDescription, "\(summary.errorTexts)")
        XCTAssertTrue(refused.allSatisfy { $0.className == "TodoListItem" && $0.file == "todos.tsv" && ($0.line ?? 0) > 1 }, "\(summary.errorTexts)")
        XCTAssertEqual(try Mirror(served).value("SELECT count(*) FROM TodoListItem"), "\(summary.tally("TodoListItem")!.inserted)")
        XCTAssertEqual(try Mirror(served).value("SELECT count(*) FROM TodoListItem WHERE description IS NULL"), "0")
        // The refused rows, as the source has them, with their line and the server's code and message.
        let rejects = dataset.appendingPathComponent("rejects/TodoListItem.csv")
        XCTAssertEqual(summary.rejectFiles, [rejects.path])
        let source = try String(contentsOf: dataset.appendingPathComponent("todos.tsv"), encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        var expected = "_line,title,description,_error\n"
        for (index, row) in source.enumerated().dropFirst() where row.hasSuffix("\t") {
            expected += "\(index + 1),\(row.dropLast()),,the server refused TodoListItem: Parse error 142: description is required\n"
        }
        XCTAssertEqual(expected.split(separator: "\n").count - 1, withoutDescription)
        XCTAssertEqual(try String(contentsOf: rejects, encoding: .utf8), expected)
        // Without --json, the summary names the file.
        let again = try server.runImport(dataset.path)
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(
            again.stderr.contains(
                "\(withoutDescription) objects were refused by \(server.url); everything else was written; refused objects are in \(rejects.path)"),
            again.stderr)
        XCTAssertEqual(try String(contentsOf: rejects, encoding: .utf8), expected)
    }

    /// A field whose type differs on the server is a validation error: exit 1, nothing written.
    func testSchemaConflictWithTheServerWritesNothing() throws {
        let server = try ServedMirror(in: self)
        let served = server.file
        XCTAssertEqual(try Self.curl(server, "POST", "/schemas/Book", #"{"className":"Book","fields":{"publishingYear":{"type":"String"}}}"#).status, 0)
        let writesBefore = server.injector.writes
        let result = try server.runImport(CommandRunner.fixtures.appendingPathComponent("library").path)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("Book.publishingYear"), result.stderr)
        XCTAssertEqual(server.injector.writes, writesBefore, "nothing sent")
        XCTAssertEqual(try Mirror(served).value("SELECT count(*) FROM _SCHEMA"), "1")
        XCTAssertEqual(try Mirror(served).value("SELECT count(*) FROM Book"), "0")
    }

    /// An invalid dataset sends nothing to a server: every fault is reported once, exit 1.
    func testInvalidDatasetSendsNothing() throws {
        let server = try ServedMirror(in: self)
        let served = server.file
        let result = try server.runImport(CommandRunner.fixtures.appendingPathComponent("bad/dangling-pointer").path)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(result.stderr.components(separatedBy: "no Genre has key \"Fantasyy\"").count - 1, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("nothing was written"), result.stderr)
        XCTAssertEqual(server.injector.writes, 0)
        XCTAssertEqual(try Mirror(served).value("SELECT count(*) FROM _SCHEMA"), "0")
    }

    /// Without the master key, classes that do not exist are named, and nothing is written.
    func testWithoutMasterKeyMissingClassesAreNamed() throws {
        let server = try ServedMirror(in: self)
        let served = server.file
        XCTAssertEqual(try Self.curl(server, "POST", "/schemas/Genre", #"{"className":"Genre","fields":{"name":{"type":"String"}}}"#).status, 0)
        let result = try CommandRunner.run(
            [
                "import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", server.url,
                "--rest-key", "anyRestKey",
            ], environment: ["PARSE_APPLICATION_ID": ServedMirror.applicationId, "PARSE_MASTER_KEY": ""])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("Author, Publisher, ISBN, Book do not exist on the server"), result.stderr)
        XCTAssertTrue(result.stderr.contains("PARSE_MASTER_KEY"), result.stderr)
        XCTAssertEqual(try Mirror(served).value("SELECT count(*) FROM Genre"), "0")
    }

    static func naturalKeys(_ mirror: URL) throws -> [String: [String]] {
        let db = try Mirror(mirror)
        var keys: [String: [String]] = [:]
        for row in try db.rows("SELECT className FROM _SCHEMA") {
            let className = row[0]!
            keys[className] = try db.rows("SELECT name FROM pragma_index_info('\(className)_naturalKey') ORDER BY seqno").map { $0[0]! }
        }
        return keys
    }

    /// Sends one request with curl (a client other than ours), with the master key.
    static func curl(_ server: ServedMirror, _ method: String, _ path: String, _ body: String) throws -> CommandRunner.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "curl", "-sf", "-X", method, "-H", "X-Parse-Application-Id: \(ServedMirror.applicationId)",
            "-H", "X-Parse-Master-Key: \(ServedMirror.masterKey)", "-H", "Content-Type: application/json",
            "-d", body, server.url + path,
        ]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandRunner.Result(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
    }
}
