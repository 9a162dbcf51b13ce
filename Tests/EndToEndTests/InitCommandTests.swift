import Foundation
import XCTest

/// `parse-porter init`, and `import FILE` / `import -` without a manifest, from the built command.
final class InitCommandTests: XCTestCase {
    /// The good datasets built from CSV/JSON files: every folder of Fixtures/ with a manifest of its own.
    static func datasets() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: CommandRunner.fixtures.path).filter { name in
            FileManager.default.fileExists(atPath: CommandRunner.fixtures.appendingPathComponent("\(name)/dataset.yml").path)
        }.sorted()
    }

    /// `class → source file` of a manifest as `init` and the fixtures write them (`  Class:` then `    source: file`).
    static func sources(_ yaml: String) -> [String: String] {
        var result: [String: String] = [:]
        var current: String?
        for line in yaml.split(separator: "\n").map(String.init) {
            if let match = line.firstMatch(of: /^  ([A-Za-z_][A-Za-z0-9_]*):\s*(#.*)?$/) {
                current = String(match.1)
            } else if let current, let match = line.firstMatch(of: /^    source:\s*"?([^"#\s]+)"?/) {
                result[current] = String(match.1)
            }
        }
        return result
    }

    /// Per source file, the records its fixture's own manifest imports; and the links of its relations.
    func originalCounts(_ name: String, in scratch: URL) throws -> (records: [String: Int], links: Int) {
        let mirror = scratch.appendingPathComponent("\(name)-original.sqlite")
        let result = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent(name).path, "--to", mirror.path, "--json", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try ImportSummary.parse(result)
        let manifest = try String(contentsOf: CommandRunner.fixtures.appendingPathComponent("\(name)/dataset.yml"), encoding: .utf8)
        var records: [String: Int] = [:]
        // Several classes may read one file (library's Book and ISBN): each reads all of its records.
        for (className, file) in Self.sources(manifest) {
            records[file] = max(records[file] ?? 0, try XCTUnwrap(summary.tally(className)?.read, "\(name): \(className)"))
        }
        return (records, summary.relations.map(\.added).reduce(0, +))
    }

    /// Fixture files whose values init cannot type, each with why (its manifest types them by
    /// hand): left out of the folder init reads; ``testInitSaysWhyItCannotTypeAFile()`` covers them.
    static let untypable = [
        // Unix times of 1969 and 1970 beside text ones, as the engine's own test of them: no
        // plausible Date, and no other type takes JSON numbers and texts alike.
        "shop-dates": "events.ndjson"
    ]

    /// For every fixture: init on its data files, then validate and import with no edit; every
    /// record of every class file arrives, as many as the fixture's own manifest imports.
    func testInitOnEveryFixtureValidatesAndImportsAllRecords() throws {
        let scratch = try temporaryFolder()
        let datasets = try Self.datasets()
        XCTAssertTrue(Set(["library", "todo", "recipes", "contacts", "org", "campus", "gallery", "parse-export"]).isSubset(of: datasets), "\(datasets)")
        for name in datasets {
            let folder = try CommandRunner.copyFixture(name, to: scratch)
            try FileManager.default.removeItem(at: folder.appendingPathComponent("dataset.yml"))
            let original = try originalCounts(name, in: scratch)
            if let file = Self.untypable[name] { try FileManager.default.removeItem(at: folder.appendingPathComponent(file)) }

            let inferred = try CommandRunner.run(["init", folder.path])
            XCTAssertEqual(inferred.status, 0, "\(name): \(inferred.stderr)")
            XCTAssertTrue(inferred.stdout.hasPrefix("# Inferred from"), inferred.stdout)
            try inferred.stdout.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)

            let validated = try CommandRunner.run(["validate", folder.path, "--quiet"])
            XCTAssertEqual(validated.status, 0, "\(name): \(validated.stderr)\n\(inferred.stdout)")
            let mirror = scratch.appendingPathComponent("\(name)-inferred.sqlite")
            let imported = try CommandRunner.run(["import", folder.path, "--to", mirror.path, "--json", "--quiet"])
            XCTAssertEqual(imported.status, 0, "\(name): \(imported.stderr)\n\(inferred.stdout)")
            guard imported.status == 0 else { continue }
            let summary = try ImportSummary.parse(imported)
            let classes = Self.sources(inferred.stdout)
            XCTAssertFalse(classes.isEmpty, name)
            let reader = try Mirror(mirror)
            var classFilesOfFixture = true
            for (className, file) in classes {
                // A file the fixture reads as a join file (goodbooks-mini's book_tags.csv, with a
                // count column) may be a class to init: then every record it read arrived.
                let expected = original.records[file] ?? summary.tally(className)?.read ?? -1
                if original.records[file] == nil { classFilesOfFixture = false }
                XCTAssertGreaterThan(expected, 0, "\(name): \(className) from \(file)")
                XCTAssertEqual(summary.tally(className)?.inserted, expected, "\(name): \(className) from \(file)")
                XCTAssertEqual(try reader.value("SELECT count(*) FROM \"\(className)\""), String(expected), "\(name): \(className)")
            }
            if classFilesOfFixture {
                XCTAssertEqual(summary.relations.map(\.added).reduce(0, +), original.links, "\(name): relation links\n\(inferred.stdout)")
            }
        }
        // Inferred pointers resolved: by a key, by a two-part key (JSON array cells), by objectId.
        XCTAssertEqual(
            try Mirror(scratch.appendingPathComponent("library-inferred.sqlite")).value("SELECT count(*) FROM Book b JOIN Genre g ON g.objectId = b.genre"),
            "43")
        XCTAssertEqual(
            try Mirror(scratch.appendingPathComponent("org-inferred.sqlite")).rows(
                "SELECT o.city, o.country FROM Team t JOIN Office o ON o.objectId = t.office WHERE t.name = 'Mobile'"), [["Lisbon", "PT"]])
        XCTAssertEqual(
            try Mirror(scratch.appendingPathComponent("parse-export-inferred.sqlite")).value(
                "SELECT count(*) FROM Comment c JOIN Post p ON p.objectId = c.post"), "10")
    }

    /// On a file of ``untypable``, init's comments say why a column named for times is no Date.
    func testInitSaysWhyItCannotTypeAFile() throws {
        let inferred = try CommandRunner.run(["init", CommandRunner.fixtures.appendingPathComponent("shop-dates/events.ndjson").path])
        XCTAssertEqual(inferred.status, 0, inferred.stderr)
        for expected in [
            #"at: Number        # 4 values of several JSON types (Number, String): values that are not Number will be rejected; fix the data or the type; "-86400" reads as a Unix time only outside 1990–2100, so the column is taken for no dates"#,
            #"when: String        # 4 values of several JSON types (String, Number): values that are not String will be rejected; fix the data or the type; "0" reads as a Unix time only outside 1990–2100"#,
        ] {
            XCTAssertTrue(inferred.stdout.contains(expected), "lacks \(expected):\n\(inferred.stdout)")
        }
    }

    /// `init` on a copy of a fixture's data files (its manifest removed): the copy and the manifest printed.
    func initOnFixture(_ name: String, in scratch: URL) throws -> (folder: URL, yaml: String) {
        let folder = try CommandRunner.copyFixture(name, to: scratch)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("dataset.yml"))
        let inferred = try CommandRunner.run(["init", folder.path])
        XCTAssertEqual(inferred.status, 0, inferred.stderr)
        return (folder, inferred.stdout)
    }

    /// Files of one class split in parts, in the folder and one level down, become one class
    /// read from a glob, as the sales fixture's own manifest reads them; the join files too.
    func testFilesOfOneHeaderAreOneClassFromAGlob() throws {
        let scratch = try temporaryFolder()
        let (folder, yaml) = try initOnFixture("sales", in: scratch)
        XCTAssertEqual(Self.sources(yaml)["Customer"], "customers-*.csv", yaml)
        XCTAssertEqual(Self.sources(yaml)["Order"], "data/orders-*.csv", yaml)
        XCTAssertTrue(yaml.contains("# 2 files of one header, read one after the other: data/orders-2023.csv, data/orders-2024.csv"), yaml)
        XCTAssertTrue(yaml.contains("source: \"links/order-promotions-*.csv\", ownerColumn: \"order\", targetColumn: \"promotion\""), yaml)
        try yaml.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        let mirror = scratch.appendingPathComponent("sales.sqlite")
        let imported = try CommandRunner.run(["import", folder.path, "--to", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let reader = try Mirror(mirror)
        XCTAssertEqual(try reader.value("SELECT count(*) FROM Customer"), "5")
        XCTAssertEqual(try reader.value("SELECT count(*) FROM \"Order\" o JOIN Customer c ON c.objectId = o.customer"), "7")
        XCTAssertEqual(try reader.value("SELECT count(*) FROM \"_Join:promotions:Order\""), "5")
    }

    /// What init guessed for campus: keys, pointers (one a cycle), the join file as a relation,
    /// each with its comment; and the pointers resolve in the mirror.
    func testCampusGuessesAndPointersResolve() throws {
        let scratch = try temporaryFolder()
        let (folder, yaml) = try initOnFixture("campus", in: scratch)
        for expected in [
            "key: [number]        # number: unique and non-empty in all 500 records: natural key; named by enrollments.csv: student",
            "head: String        # 6 values, text; every value is also a Teacher key, but Teacher's key is free text, which only a column named for Teacher refers to",
            "department: Pointer<Department>        # every value is a Department key",
            "enrolled: Date        # 500 values, all ISO 8601 dates",
            "capacity: Number        # 20 values, all integers",
            "{owner: Course, field: students, targetClass: Student, source: \"enrollments.csv\", ownerColumn: \"course\", targetColumn: \"student\"}",
        ] {
            XCTAssertTrue(yaml.contains(expected), "lacks \(expected):\n\(yaml)")
        }
        try yaml.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        let mirror = scratch.appendingPathComponent("campus.sqlite")
        let imported = try CommandRunner.run(["import", folder.path, "--to", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let reader = try Mirror(mirror)
        XCTAssertEqual(
            try reader.rows(
                "SELECT c.title, t.name, r.code FROM Course c JOIN Teacher t ON t.objectId = c.teacher JOIN Room r ON r.objectId = c.room WHERE c.code = 'MAT100'"
            ),
            [["Mathematics Foundations 1", "Viktor Haddad", "B-102"]])
        XCTAssertEqual(try reader.value("SELECT count(*) FROM Teacher t JOIN Department d ON d.objectId = t.department"), "40")
        XCTAssertEqual(try reader.value("SELECT count(*) FROM \"_Join:students:Course\""), "1500")
    }

    func testInitOnAParseExportSaysItNeedsNoManifest() throws {
        let result = try CommandRunner.run(["init", CommandRunner.fixtures.appendingPathComponent("parse-app").path])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("a Parse export (it has a schema.json): it imports without a manifest"), result.stderr)
        let dashboard = try CommandRunner.run(["init", CommandRunner.fixtures.appendingPathComponent("dashboard-export").path])
        XCTAssertEqual(dashboard.status, 2)
        XCTAssertTrue(dashboard.stderr.contains("a Parse export (<Class>.json files whose objects have an objectId)"), dashboard.stderr)
    }

    /// `init FILE…`: only the files named, which must share a folder; `-` needs its target.
    func testInitOnNamedFilesAndUsageFaults() throws {
        let campus = CommandRunner.fixtures.appendingPathComponent("campus")
        let named = try CommandRunner.run(["init", campus.appendingPathComponent("teachers.csv").path, campus.appendingPathComponent("departments.csv").path])
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertEqual(InitCommandTests.sources(named.stdout), ["Teacher": "teachers.csv", "Department": "departments.csv"])
        XCTAssertTrue(named.stdout.contains("department: Pointer<Department>"), named.stdout)

        let twoFolders = try CommandRunner.run([
            "init", campus.appendingPathComponent("teachers.csv").path,
            CommandRunner.fixtures.appendingPathComponent("library/genres.csv").path,
        ])
        XCTAssertEqual(twoFolders.status, 2)
        XCTAssertTrue(twoFolders.stderr.contains("the files must share one folder"), twoFolders.stderr)
        XCTAssertEqual(twoFolders.stdout, "")

        // A file that is not UTF-8 is read as Windows-1252, and the manifest says so.
        let latin = try CommandRunner.run(["init", CommandRunner.fixtures.appendingPathComponent("bad/csv-invalid-utf8").path])
        XCTAssertEqual(latin.status, 0, latin.stderr)
        XCTAssertTrue(latin.stdout.contains("encoding: windows-1252        # not UTF-8 (authors.csv:3: column \"name\": invalid UTF-8"), latin.stdout)

        // Files with no records give no class: no manifest, rather than one that names no class.
        let headerOnly = try temporaryFolder().appendingPathComponent("header-only")
        try FileManager.default.createDirectory(at: headerOnly, withIntermediateDirectories: true)
        try "sku,name\n".write(to: headerOnly.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
        let nothing = try CommandRunner.run(["init", headerOnly.path])
        XCTAssertEqual(nothing.status, 1)
        XCTAssertEqual(nothing.stdout, "")
        XCTAssertTrue(nothing.stderr.contains("no class to infer: items.csv: no records, not read"), nothing.stderr)

        // A file the readers refuse ends init with their fault, and no manifest.
        let unreadable = try CommandRunner.run(["init", CommandRunner.fixtures.appendingPathComponent("bad/csv-unterminated-quote").path])
        XCTAssertEqual(unreadable.status, 1)
        XCTAssertEqual(unreadable.stdout, "")
        XCTAssertTrue(unreadable.stderr.contains("unterminated"), unreadable.stderr)

        let noTarget = try CommandRunner.run(["import", "-", "--class", "Order", "--format", "csv"])
        XCTAssertEqual(noTarget.status, 2)
        XCTAssertTrue(noTarget.stderr.contains("- reads the data from stdin: give the target with --target"), noTarget.stderr)
    }

    /// `--out` writes the manifest only when inference succeeds, and never replaces a file
    /// unless `--force`: a failed init leaves no file, an existing one keeps its bytes.
    func testOutWritesTheManifestOnlyOnSuccess() throws {
        let scratch = try temporaryFolder()
        let campus = try CommandRunner.copyFixture("campus", to: scratch)
        let manifest = campus.appendingPathComponent("dataset.yml")
        try FileManager.default.removeItem(at: manifest)
        let printed = try CommandRunner.run(["init", campus.path])
        XCTAssertEqual(printed.status, 0, printed.stderr)

        let written = try CommandRunner.run(["init", campus.path, "--out", manifest.path])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(written.stdout, "")
        XCTAssertEqual(try String(contentsOf: manifest, encoding: .utf8), printed.stdout)
        let validated = try CommandRunner.run(["validate", campus.path, "--quiet"])
        XCTAssertEqual(validated.status, 0, validated.stderr)

        try "# reviewed by hand\n".write(to: manifest, atomically: true, encoding: .utf8)
        let refused = try CommandRunner.run(["init", campus.path, "--out", manifest.path])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(
            refused.stderr.contains("\(manifest.path) exists: a manifest you may have reviewed is not replaced (--force replaces it)"), refused.stderr)
        XCTAssertEqual(try String(contentsOf: manifest, encoding: .utf8), "# reviewed by hand\n")
        let forced = try CommandRunner.run(["init", campus.path, "--out", manifest.path, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(try String(contentsOf: manifest, encoding: .utf8), printed.stdout)

        let bad = CommandRunner.fixtures.appendingPathComponent("bad/csv-unterminated-quote")
        let failedOut = scratch.appendingPathComponent("failed.yml")
        let failed = try CommandRunner.run(["init", bad.path, "--out", failedOut.path])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stderr.contains("unterminated"), failed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: failedOut.path), "a failed init wrote \(failedOut.path)")

        let forceAlone = try CommandRunner.run(["init", campus.path, "--force"])
        XCTAssertEqual(forceAlone.status, 2)
        XCTAssertTrue(forceAlone.stderr.contains("--force replaces the --out file: give --out"), forceAlone.stderr)
    }

    static let customers = """
        id,email,name,signed_up,vip,referred_by
        1,ada@example.org,Ada Lovelace,2024-03-01,true,
        2,grace@example.org,Grace Hopper,2024-03-02T10:30:00Z,false,1
        3,alan@example.org,Alan Turing,2024-03-03,TRUE,1

        """

    /// `import FILE --class C --key K` into a mirror: the inferred types and the key given.
    func testSingleFileImportIntoAMirror() throws {
        let scratch = try temporaryFolder()
        let file = scratch.appendingPathComponent("customers.csv")
        try Self.customers.write(to: file, atomically: true, encoding: .utf8)
        let mirror = scratch.appendingPathComponent("app.sqlite")
        let result = try CommandRunner.run(["import", file.path, "--class", "Client", "--key", "email", "--to", mirror.path, "--json", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try ImportSummary.parse(result).tally("Client")?.inserted, 3)
        let reader = try Mirror(mirror)
        XCTAssertEqual(
            try reader.rows("SELECT email, clientId, typeof(clientId), name, signedUp, vip FROM Client ORDER BY clientId"),
            [
                ["ada@example.org", "1", "integer", "Ada Lovelace", "2024-03-01T00:00:00.000Z", "1"],
                ["grace@example.org", "2", "integer", "Grace Hopper", "2024-03-02T10:30:00.000Z", "0"],
                ["alan@example.org", "3", "integer", "Alan Turing", "2024-03-03T00:00:00.000Z", "1"],
            ])
        // A self-pointer by the key given: referred_by holds ids, not emails, so it stays a Number.
        XCTAssertEqual(try reader.value("SELECT count(*) FROM Client WHERE referredBy = 1"), "2")
        XCTAssertEqual(
            try reader.value("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Client' AND sql LIKE '%UNIQUE%'"), "Client_naturalKey")

        // Without --class and --to: the class from the file's name, the mirror beside it; the
        // column id is the field customerId, since Parse Server refuses a field named id.
        let plain = try CommandRunner.run(["import", file.path, "--quiet"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let beside = try Mirror(scratch.appendingPathComponent("customers.sqlite"))
        XCTAssertEqual(try beside.rows("SELECT customerId, referredBy FROM Customer ORDER BY customerId"), [["1", nil], ["2", "1"], ["3", "1"]])
    }

    /// With no manifest to review, a one-file import (and its dry run, and stdin) says every
    /// guess it took, on stderr and in `--json`: GTFS days as `yyyyMMdd`, a 0/1 `timepoint` a Number.
    func testOneFileImportSaysItsGuesses() throws {
        let scratch = try temporaryFolder()
        let file = scratch.appendingPathComponent("calendar.csv")
        try "service_id,monday,start_date,end_date,timepoint\nWK,1,20250101,20251231,0\nWE,0,20250301,20260131,1\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let mirror = scratch.appendingPathComponent("gtfs.sqlite")
        let expected = [
            #"  guess: Calendar.key: [serviceId]        # service_id: unique and non-empty in all 2 records: natural key"#,
            #"  guess: Calendar.startDate: {type: Date, column: "start_date", format: "yyyyMMdd"}        # 2 values, all dates in format "yyyyMMdd", as the column's name says it holds dates"#,
            #"  guess: Calendar.timepoint: Number        # 2 values, all integers; "0" reads as a Unix time only outside 1990–2100"#,
        ]
        let dryRun = try CommandRunner.run(["import", file.path, "--to", mirror.path, "--dry-run", "--json", "--quiet"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertTrue(dryRun.stderr.hasPrefix("no manifest: \(file.path) imported with these guesses"), dryRun.stderr)
        for line in expected { XCTAssertTrue(dryRun.stderr.contains(line), "lacks \(line):\n\(dryRun.stderr)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path))
        let report = try JSONSerialization.jsonObject(with: Data(dryRun.stdout.utf8)) as? [String: Any]
        let guesses = try XCTUnwrap(report?["guesses"] as? [[String: Any]], dryRun.stdout)
        XCTAssertEqual(guesses.count, 6, "the key and five fields")
        XCTAssertEqual(
            guesses.first { $0["field"] as? String == "endDate" }.map { NSDictionary(dictionary: $0) },
            [
                "className": "Calendar", "field": "endDate", "column": "end_date", "spec": #"{type: Date, column: "end_date", format: "yyyyMMdd"}"#,
                "reason": #"2 values, all dates in format "yyyyMMdd", as the column's name says it holds dates"#,
            ] as NSDictionary)
        XCTAssertTrue(guesses.first.map { $0["field"] is NSNull && $0["spec"] as? String == "[serviceId]" } ?? false, "\(guesses)")

        let imported = try CommandRunner.run(["import", file.path, "--to", mirror.path, "--quiet"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        for line in expected { XCTAssertTrue(imported.stderr.contains(line), "lacks \(line):\n\(imported.stderr)") }
        XCTAssertEqual(
            try Mirror(mirror).rows("SELECT serviceId, startDate, endDate, timepoint FROM Calendar ORDER BY serviceId"),
            [
                ["WE", "2025-03-01T00:00:00.000Z", "2026-01-31T00:00:00.000Z", "1"],
                ["WK", "2025-01-01T00:00:00.000Z", "2025-12-31T00:00:00.000Z", "0"],
            ])

        let piped = try CommandRunner.run(["import", "-", "--class", "Calendar", "--format", "csv", "--to", mirror.path, "--quiet"], standardInput: file)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertTrue(piped.stderr.hasPrefix("no manifest: stdin imported with these guesses"), piped.stderr)
        for line in expected { XCTAssertTrue(piped.stderr.contains(line), "lacks \(line):\n\(piped.stderr)") }
    }

    /// `import - --format ndjson`: stdin is spooled to a temporary file, imported, and the file deleted.
    func testStdinImport() throws {
        let scratch = try temporaryFolder()
        let input = scratch.appendingPathComponent("orders.ndjson")
        try """
        {"number": "A-1", "total": 12.5, "placed_at": "2024-05-01T09:00:00Z", "lines": [{"sku": "x"}]}
        {"number": "A-2", "total": 7, "placed_at": "2024-05-02T09:00:00Z", "lines": []}

        """.write(to: input, atomically: true, encoding: .utf8)
        let spoolFolder = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: spoolFolder, withIntermediateDirectories: true)
        let mirror = scratch.appendingPathComponent("app.sqlite")
        let result = try CommandRunner.run(
            ["import", "-", "--class", "Order", "--format", "ndjson", "--key", "number", "--to", mirror.path, "--quiet"],
            environment: ["TMPDIR": spoolFolder.path], standardInput: input)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            try Mirror(mirror).rows("SELECT number, total, placedAt, lines FROM \"Order\" ORDER BY number"),
            [
                ["A-1", "12.5", "2024-05-01T09:00:00.000Z", #"[{"sku":"x"}]"#],
                ["A-2", "7", "2024-05-02T09:00:00.000Z", "[]"],
            ])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spoolFolder.path), [], "the spooled stdin is deleted")

        // A fault in stdin's data names the spooled file's line; nothing is written and the spool is gone.
        try "{\"number\": \"A-3\", \"total\": 1}\n{\"number\": \"A-3\", \"total\": 2}\n".write(to: input, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: mirror)
        let duplicate = try CommandRunner.run(
            ["import", "-", "--class", "Order", "--format", "ndjson", "--key", "number", "--to", mirror.path, "--quiet"],
            environment: ["TMPDIR": spoolFolder.path], standardInput: input)
        XCTAssertEqual(duplicate.status, 1, duplicate.stderr)
        XCTAssertTrue(duplicate.stderr.contains("stdin.ndjson:2"), duplicate.stderr)
        XCTAssertEqual(try Data(contentsOf: mirror), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spoolFolder.path), [])
    }

    /// Ctrl-C while stdin is being copied: exit 130, nothing written, the copy deleted.
    func testInterruptWhileReadingStdinLeavesNothing() throws {
        let scratch = try temporaryFolder()
        let spoolFolder = scratch.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: spoolFolder, withIntermediateDirectories: true)
        let mirror = scratch.appendingPathComponent("app.sqlite")
        let process = Process()
        process.executableURL = CommandRunner.binary
        process.arguments = ["import", "-", "--class", "Order", "--format", "ndjson", "--to", mirror.path, "--quiet"]
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": spoolFolder.path]) { $1 }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try input.fileHandleForWriting.write(contentsOf: Data("{\"number\": \"A-1\"}\n".utf8))
        // Wait until the copy has begun, then interrupt, then end stdin as a pipeline's writer would.
        let deadline = Date().addingTimeInterval(10)
        while try FileManager.default.contentsOfDirectory(atPath: spoolFolder.path).isEmpty && Date() < deadline { usleep(20_000) }
        usleep(200_000)
        kill(process.processIdentifier, SIGINT)
        usleep(200_000)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertFalse(FileManager.default.fileExists(atPath: mirror.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: spoolFolder.path), [])
    }

    /// `import FILE --class C` into a Parse Server (a served mirror): the objects arrive through REST.
    func testSingleFileImportIntoAServedMirror() throws {
        let scratch = try temporaryFolder()
        let file = scratch.appendingPathComponent("customers.csv")
        try Self.customers.write(to: file, atomically: true, encoding: .utf8)
        let server = try ServedMirror(in: self)
        let result = try server.runImport(file.path, ["--class", "Customer", "--key", "email", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(
            try Mirror(server.file).rows("SELECT email, name, vip, signedUp FROM Customer ORDER BY email"),
            [
                ["ada@example.org", "Ada Lovelace", "1", "2024-03-01T00:00:00.000Z"],
                ["alan@example.org", "Alan Turing", "1", "2024-03-03T00:00:00.000Z"],
                ["grace@example.org", "Grace Hopper", "0", "2024-03-02T10:30:00.000Z"],
            ])
        let again = try server.runImport(file.path, ["--class", "Customer", "--key", "email", "--json", "--quiet"])
        XCTAssertEqual(try ImportSummary.parse(again).tally("Customer")?.unchanged, 3, again.stderr)
    }
}
