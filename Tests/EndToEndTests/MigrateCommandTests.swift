import Foundation
import XCTest

/// `parse-porter migrate` end to end, on a mirror and on a served mirror: applying, history,
/// failures, checksum drift, two runners at once, a runner killed in the middle.
final class MigrateCommandTests: XCTestCase {
    /// A folder holding `items/` (an Item dataset of `items` objects) and `Migrations/`:
    /// V1 creates Item, V2 imports the dataset, V3 adds a field and backfills it.
    private func itemMigrations(items: Int = 200) throws -> URL {
        let root = try temporaryFolder()
        try CommandRunner.writeItemsDataset(items, to: root.appendingPathComponent("items"))
        try write(
            root,
            [
                "V1__create_item.yml": """
                operations:
                  - createClass:
                      className: Item
                      fields:
                        name: {type: String, required: true}
                        price: {type: Number}
                      indexes: {price_1: {price: 1}}
                """,
                "V2__import_items.yml": """
                operations:
                  - import: {dataset: ../items}
                """,
                "V10__flag_expensive_items.yml": """
                operations:
                  - addField: {className: Item, name: expensive, type: Boolean, defaultValue: false}
                  - updateObjects: {className: Item, where: {price: {"$gte": 90}}, set: {expensive: true}}
                """,
            ])
        return root
    }

    private func write(_ root: URL, _ files: [String: String]) throws {
        let folder = root.appendingPathComponent("Migrations")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try (text + "\n").write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
    }

    /// A place to migrate: a mirror file path, or a served mirror's URL (and its file).
    private struct Place {
        let target: String
        let file: URL
        let environment: [String: String]
        let server: ServedMirror?
        var isServer: Bool { server != nil }
    }

    private func places(in root: URL) throws -> [Place] {
        let served = try ServedMirror(in: self)
        return [
            Place(target: root.appendingPathComponent("app.sqlite").path, file: root.appendingPathComponent("app.sqlite"), environment: [:], server: nil),
            Place(target: served.url, file: served.file, environment: ServedMirror.environment, server: served),
        ]
    }

    private func migrate(_ command: String, _ root: URL, _ place: Place, _ arguments: [String] = []) throws -> CommandRunner.Result {
        try CommandRunner.run(
            ["migrate", command, "--dir", root.appendingPathComponent("Migrations").path, "--target", place.target] + arguments,
            environment: place.environment)
    }

    /// An empty mirror at `path`, made by pushing a schema file without classes.
    private func emptyMirror(at path: String) throws {
        let file = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("no-classes.json")
        try #"{"results":[]}"#.write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CommandRunner.run(["schema", "push", "--target", path, file.path]).status, 0)
    }

    private func history(_ place: Place) throws -> [[String?]] {
        try Mirror(place.file).rows(
            place.isServer
                ? "SELECT version, success, error IS NULL FROM PorterMigrations ORDER BY CAST(version AS INTEGER)"
                : "SELECT version, success, error IS NULL FROM _PorterMigrations ORDER BY CAST(version AS INTEGER)")
    }

    func testUpAppliesPendingMigrationsInVersionOrderOnceAndStatusListsThem() throws {
        let root = try itemMigrations()
        for place in try places(in: root) {
            if !place.isServer {
                let missing = try migrate("plan", root, place)
                XCTAssertEqual(missing.status, 3, "plan on a mirror that does not exist: \(missing.stdout)")
                XCTAssertTrue(missing.stderr.contains("\(place.target): no such mirror"), missing.stderr)
                XCTAssertEqual(missing.stdout, "")
                XCTAssertFalse(FileManager.default.fileExists(atPath: place.target), "plan wrote the mirror")
                try emptyMirror(at: place.target)
            }
            let plan = try migrate("plan", root, place)
            XCTAssertEqual(plan.status, 0, plan.stderr)
            XCTAssertTrue(plan.stdout.contains("would apply 3 migrations"), plan.stdout)
            XCTAssertLessThan(
                try XCTUnwrap(plan.stdout.range(of: "V2 import items")).lowerBound,
                try XCTUnwrap(plan.stdout.range(of: "V10 flag expensive items")).lowerBound, "numeric order: \(plan.stdout)")

            let upToTwo = try migrate("up", root, place, ["--to", "2"])
            XCTAssertEqual(upToTwo.status, 0, upToTwo.stderr)
            XCTAssertTrue(upToTwo.stdout.contains("applied 2 migrations"), upToTwo.stdout)
            XCTAssertEqual(try history(place), [["1", "1", "1"], ["2", "1", "1"]])

            let up = try migrate("up", root, place)
            XCTAssertEqual(up.status, 0, up.stderr)
            XCTAssertTrue(up.stdout.contains("applied 1 migration to"), up.stdout)
            XCTAssertTrue(up.stdout.contains("now at V10"), up.stdout)
            let mirror = try Mirror(place.file)
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM Item"), "200")
            // price is i % 97: 90…96 → 7 of every 97 items.
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM Item WHERE expensive = 1"), "\((0..<200).filter { $0 % 97 >= 90 }.count)")
            // A default applies to objects created after the field was added, as on Parse Server.
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM Item WHERE expensive IS NULL"), "\((0..<200).filter { $0 % 97 < 90 }.count)")

            let again = try migrate("up", root, place)
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertTrue(again.stdout.contains("applied 0 migrations"), again.stdout)
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM Item"), "200")

            let status = try migrate("status", root, place, ["--json"])
            XCTAssertEqual(status.status, 0, status.stderr)
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
            let migrations = try XCTUnwrap(json["migrations"] as? [[String: Any]])
            XCTAssertEqual(migrations.map { $0["version"] as? String }, ["1", "2", "10"])
            XCTAssertEqual(migrations.map { $0["state"] as? String }, ["applied", "applied", "applied"])
            XCTAssertTrue(migrations.allSatisfy { ($0["checksum"] as? String)?.count == 64 && $0["checksum"] as? String == $0["appliedChecksum"] as? String })
            XCTAssertTrue(migrations.allSatisfy { ($0["host"] as? String) == ProcessInfo.processInfo.hostName })
            XCTAssertTrue(json["lock"] is NSNull, "the lock was not released: \(status.stdout)")
            XCTAssertFalse(status.stdout.contains(ServedMirror.masterKey) || status.stderr.contains(ServedMirror.masterKey))
        }
    }

    func testAFailedMigrationIsRecordedBlocksUpUntilRepairedAndThenCompletes() throws {
        let root = try itemMigrations()
        try write(
            root,
            [
                "V10__flag_expensive_items.yml": """
                operations:
                  - addField: {className: Item, name: color, type: String}
                  - addField: {className: Item, name: price, type: String}
                """
            ])
        for place in try places(in: root) {
            let failed = try migrate("up", root, place)
            XCTAssertEqual(failed.status, 1, failed.stdout + failed.stderr)
            XCTAssertTrue(failed.stderr.contains("V10__flag_expensive_items.yml: V10 failed at operation 2"), failed.stderr)
            XCTAssertTrue(failed.stderr.contains("migrate repair"), failed.stderr)
            // The mirror rolled the first operation back with the rest; the server keeps it.
            XCTAssertTrue(
                failed.stdout.contains(place.isServer ? "  1. added field Item.color\n" : "  1. added field Item.color (rolled back)\n"), failed.stdout)
            XCTAssertFalse(failed.stdout.contains("V10 flag expensive items\n  done"), failed.stdout)
            let mirror = try Mirror(place.file)
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM Item"), "200", "V1 and V2 stay applied")
            let columns = try mirror.rows("SELECT name FROM pragma_table_info('Item')").compactMap { $0[0] }
            // The mirror rolled V10 back; on a server the first operation stays done.
            XCTAssertEqual(columns.contains("color"), place.isServer, "\(columns)")
            XCTAssertEqual(try history(place).last, ["10", "0", "0"])

            let status = try migrate("status", root, place)
            XCTAssertEqual(status.status, 1)
            XCTAssertTrue(status.stdout.contains("failed"), status.stdout)
            XCTAssertTrue(status.stdout.contains("Field price exists, cannot update") || status.stdout.contains("price"), status.stdout)
            try assertAligned(status.stdout)

            let blocked = try migrate("up", root, place)
            XCTAssertEqual(blocked.status, 1)
            XCTAssertTrue(blocked.stderr.contains("V10") && blocked.stderr.contains("failed"), blocked.stderr)

            try write(
                root,
                [
                    "V10__flag_expensive_items.yml": """
                    operations:
                      - addField: {className: Item, name: color, type: String}
                      - addField: {className: Item, name: priceText, type: String}
                    """
                ])
            let repaired = try migrate("repair", root, place)
            XCTAssertEqual(repaired.status, 0, repaired.stderr)
            XCTAssertTrue(repaired.stdout.contains("removed V10"), repaired.stdout)
            let completed = try migrate("up", root, place)
            XCTAssertEqual(completed.status, 0, completed.stderr)
            XCTAssertEqual(try history(place), [["1", "1", "1"], ["2", "1", "1"], ["10", "1", "1"]])
            let after = try mirror.rows("SELECT name FROM pragma_table_info('Item')").compactMap { $0[0] }
            XCTAssertTrue(after.contains("color") && after.contains("priceText"), "\(after)")
            XCTAssertEqual(try migrate("status", root, place).status, 0)
            // Put the failing file back for the next place.
            try write(
                root,
                [
                    "V10__flag_expensive_items.yml": """
                    operations:
                      - addField: {className: Item, name: color, type: String}
                      - addField: {className: Item, name: price, type: String}
                    """
                ])
        }
    }

    /// Every column of a status table starts where its header does, the error of a failed row
    /// under "error" on the row's own line; no line ends in spaces.
    private func assertAligned(_ table: String, line: UInt = #line) throws {
        let lines = table.split(separator: "\n").map(String.init)
        let header = try XCTUnwrap(lines.first)
        let failed = try XCTUnwrap(lines.first { $0.contains(" failed ") }, table)
        XCTAssertEqual(lines.count, 4, "one line per version: \(table)", line: line)
        for column in ["name", "state", "applied at", "error"] {
            let offset = try XCTUnwrap(header.range(of: column)).lowerBound.utf16Offset(in: header)
            for row in lines.dropFirst() where row.count > offset {
                let index = row.index(row.startIndex, offsetBy: offset)
                XCTAssertTrue(row[row.index(before: index)] == " " && row[index] != " ", "\(column) misaligned in \(row)\n\(table)", line: line)
            }
            if column == "error" {
                XCTAssertTrue(failed.dropFirst(offset).hasPrefix("operation 2 (add field Item.price (String))"), "\(failed)\n\(table)", line: line)
            }
        }
        XCTAssertFalse(lines.contains { $0.hasSuffix(" ") }, table, line: line)
    }

    /// status and plan read the history: a mirror that does not exist is exit 3 naming it, as for
    /// repair (up and baseline create it), and they take no lock options.
    func testStatusAndPlanNeedAnExistingMirrorAndTakeNoLockOptions() throws {
        let root = try itemMigrations()
        let missing = root.appendingPathComponent("missing.sqlite").path
        for command in ["status", "plan", "repair"] {
            let result = try CommandRunner.run(["migrate", command, "--dir", root.appendingPathComponent("Migrations").path, "--target", missing])
            XCTAssertEqual(result.status, 3, "\(command): \(result.stdout)")
            XCTAssertEqual(result.stderr, "\(missing): no such mirror\n", command)
            XCTAssertEqual(result.stdout, "", command)
            XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "\(command) created the mirror")
        }
        for command in ["status", "plan"] {
            let help = try CommandRunner.run(["migrate", command, "--help"])
            XCTAssertFalse(help.stdout.contains("--lock-wait") || help.stdout.contains("--lock-ttl"), help.stdout)
            let refused = try CommandRunner.run(["migrate", command, "--target", missing, "--lock-ttl", "2"])
            XCTAssertEqual(refused.status, 2, refused.stderr)
            XCTAssertTrue(refused.stderr.contains("Unknown option '--lock-ttl'"), refused.stderr)
        }
        for command in ["up", "baseline", "repair"] {
            let help = try CommandRunner.run(["migrate", command, "--help"])
            XCTAssertTrue(help.stdout.contains("--lock-wait") && help.stdout.contains("--lock-ttl"), "\(command): \(help.stdout)")
        }
    }

    func testAFileChangedAfterItWasAppliedIsAnErrorUntilRestoredOrRepaired() throws {
        let root = try itemMigrations()
        for place in try places(in: root) {
            try write(
                root,
                [
                    "V1__create_item.yml":
                        "operations:\n  - createClass: {className: Item, fields: {name: {type: String, required: true}, price: {type: Number}}, indexes: {price_1: {price: 1}}}"
                ])
            XCTAssertEqual(try migrate("up", root, place, ["--to", "1"]).status, 0)
            let original = try String(contentsOf: root.appendingPathComponent("Migrations/V1__create_item.yml"), encoding: .utf8)
            try write(root, ["V1__create_item.yml": original.replacingOccurrences(of: "type: Number", with: "type: String")])

            let status = try migrate("status", root, place)
            XCTAssertEqual(status.status, 1, status.stdout)
            XCTAssertTrue(status.stdout.contains("checksum mismatch"), status.stdout)
            let refused = try migrate("up", root, place)
            XCTAssertEqual(refused.status, 1)
            XCTAssertTrue(refused.stderr.contains("V1__create_item.yml changed after it was applied"), refused.stderr)
            XCTAssertEqual(try history(place).count, 1, "nothing applied while the history disagrees")
            XCTAssertEqual(try migrate("plan", root, place).status, 1)

            // Reformatting is no change: the checksum is over the parsed file.
            try write(root, ["V1__create_item.yml": "# the item class\n" + original.replacingOccurrences(of: ": ", with: ":   ")])
            XCTAssertEqual(try migrate("status", root, place).status, 0, "a reformatted file counts as changed")

            try write(root, ["V1__create_item.yml": original.replacingOccurrences(of: "required: true", with: "required: false")])
            XCTAssertEqual(try migrate("status", root, place).status, 1)
            let repaired = try migrate("repair", root, place)
            XCTAssertTrue(repaired.stdout.contains("V1 create item: accepted the file as it is now"), repaired.stdout)
            XCTAssertEqual(try migrate("status", root, place).status, 0)
            try write(root, ["V1__create_item.yml": original])
        }
    }

    func testTwoRunnersStartedAtOnceApplyEachMigrationOnce() throws {
        let root = try itemMigrations(items: 3000)
        for place in try places(in: root) {
            let arguments = ["migrate", "up", "--dir", root.appendingPathComponent("Migrations").path, "--target", place.target]
            let environment = place.environment
            nonisolated(unsafe) var results: [CommandRunner.Result?] = [nil, nil]
            let lock = NSLock()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let result = try? CommandRunner.run(arguments, environment: environment)
                lock.withLock { results[index] = result }
            }
            let outputs = try results.map { try XCTUnwrap($0) }
            XCTAssertEqual(outputs.map(\.status), [0, 0], outputs.map(\.stderr).joined(separator: "\n"))
            let counts = outputs.map { result -> Int in
                guard let line = result.stdout.split(separator: "\n").last(where: { $0.hasPrefix("applied ") }) else { return -1 }
                return Int(line.split(separator: " ")[1]) ?? -1
            }
            XCTAssertEqual(counts.sorted(), [0, 3], "each migration applied by exactly one runner: \(outputs.map(\.stdout))")
            XCTAssertEqual(try history(place), [["1", "1", "1"], ["2", "1", "1"], ["10", "1", "1"]])
            XCTAssertEqual(try Mirror(place.file).value("SELECT count(*) FROM Item"), "3000")
        }
    }

    func testARunnerKilledInTheMiddleIsFinishedByTheNextRunOnceItsLockExpired() throws {
        for (index, place) in try places(in: try temporaryFolder()).enumerated() {
            // Big enough that the import is still running when the runner is killed.
            let root = try itemMigrations(items: place.isServer ? 20_000 : 150_000)
            let arguments = [
                "migrate", "up", "--dir", root.appendingPathComponent("Migrations").path, "--target",
                place.isServer ? place.target : root.appendingPathComponent("app-\(index).sqlite").path, "--lock-ttl", "4",
            ]
            let file = place.isServer ? place.file : root.appendingPathComponent("app-\(index).sqlite")
            let place = Place(target: arguments[5], file: file, environment: place.environment, server: place.server)
            try killWhileApplying("V2 import items", arguments, environment: place.environment)

            let mirror = try Mirror(place.file)
            if place.isServer {
                XCTAssertEqual(try history(place), [["1", "1", "1"], ["2", "0", "1"]], "V2 recorded as started, never finished")
                // Until its lock expires (4 s: a loaded machine takes seconds to get here) the killed
                // runner might still be alive: running, then interrupted.
                let early = try migrate("status", root, place)
                XCTAssertTrue(early.stdout.contains("running"), early.stdout)
                Thread.sleep(forTimeInterval: 4.5)
                let status = try migrate("status", root, place)
                XCTAssertTrue(status.stdout.contains("interrupted"), status.stdout)
            } else {
                XCTAssertEqual(try history(place), [["1", "1", "1"]], "V2 rolled back with its transaction")
                XCTAssertEqual(try mirror.value("SELECT count(*) FROM Item"), "0")
            }
            let started = Date()
            let next = try migrate("up", root, place, ["--lock-ttl", "4"])
            XCTAssertEqual(next.status, 0, next.stderr)
            XCTAssertLessThan(Date().timeIntervalSince(started), 300, "waited for the lock, not for ever")
            if place.isServer { XCTAssertTrue(next.stderr.contains("V2 was started by"), next.stderr) }
            XCTAssertEqual(try history(place), [["1", "1", "1"], ["2", "1", "1"], ["10", "1", "1"]])
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM Item"), place.isServer ? "20000" : "150000", "no object imported twice")
            XCTAssertEqual(try mirror.value("SELECT count(DISTINCT name) FROM Item"), place.isServer ? "20000" : "150000")
        }
    }

    /// The example migrations of Docs/Migrations.md ("Tutorial") build the library app.
    func testTheExampleMigrationsBuildTheLibraryApp() throws {
        let scratch = try temporaryFolder()
        let imported = scratch.appendingPathComponent("imported.sqlite")
        XCTAssertEqual(
            try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", imported.path, "--quiet"]).status, 0)
        let reference = try Mirror(imported)
        for place in try places(in: scratch) {
            let run = try CommandRunner.run(
                [
                    "migrate", "up", "--dir", CommandRunner.packageRoot.appendingPathComponent("Migrations").path,
                    "--target", place.target,
                ], environment: place.environment)
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdout.contains("applied 6 migrations"), run.stdout)
            let mirror = try Mirror(place.file)
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM Book"), "43")
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM Book WHERE edition = 1"), "43", "V6 backfilled every book")
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM \"_Join:authors:Book\""), try reference.value("SELECT count(*) FROM \"_Join:authors:Book\""))
            let columns = try mirror.rows("SELECT name FROM pragma_table_info('Book')").compactMap { $0[0] }
            XCTAssertTrue(columns.contains("summary") && !columns.contains("description"), "V5 renamed the field: \(columns)")
            XCTAssertEqual(
                try mirror.value("SELECT count(*) FROM Book WHERE summary IS NOT NULL"),
                try reference.value("SELECT count(*) FROM Book WHERE description IS NOT NULL"))
            let schema = try XCTUnwrap(try mirror.value("SELECT schema FROM _SCHEMA WHERE className = 'Book'"))
            XCTAssertTrue(schema.contains("\"publishingYear_-1\":{\"publishingYear\":-1}"), schema)
            XCTAssertTrue(schema.contains("\"create\":{\"role:Librarian\":true}"), schema)
        }
    }

    func testBaselineMarksAnAppThatHasTheSchemaAndOnlyLaterMigrationsRun() throws {
        let scratch = try temporaryFolder()
        let mirror = scratch.appendingPathComponent("library.sqlite")
        XCTAssertEqual(
            try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", mirror.path, "--quiet"]).status, 0)
        let migrations = CommandRunner.packageRoot.appendingPathComponent("Migrations").path
        let baseline = try CommandRunner.run(["migrate", "baseline", "--dir", migrations, "--target", mirror.path, "--version", "2"])
        XCTAssertEqual(baseline.status, 0, baseline.stderr)
        let status = try CommandRunner.run(["migrate", "status", "--dir", migrations, "--target", mirror.path])
        XCTAssertEqual(status.status, 0, status.stderr)
        let states = status.stdout.split(separator: "\n").dropFirst().map { line in line.split(separator: " ", omittingEmptySubsequences: true) }
        XCTAssertEqual(states.map { String($0[0]) }, ["V1", "V2", "V3", "V4", "V5", "V6"], status.stdout)
        XCTAssertTrue(status.stdout.contains("below baseline"), status.stdout)
        let up = try CommandRunner.run(["migrate", "up", "--dir", migrations, "--target", mirror.path])
        XCTAssertEqual(up.status, 0, up.stderr)
        XCTAssertTrue(up.stdout.contains("applied 4 migrations"), up.stdout)
        XCTAssertFalse(up.stdout.contains("V1 ") || up.stdout.contains("V2 "), up.stdout)
        XCTAssertEqual(try Mirror(mirror).value("SELECT count(*) FROM Book"), "43", "the import was not run again")
        let again = try CommandRunner.run(["migrate", "baseline", "--dir", migrations, "--target", mirror.path, "--version", "3"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("baseline needs a target without migration history"), again.stderr)
    }

    /// Starts `parse-porter` and kills it (SIGKILL, no chance to clean up) once `marker` appeared on its stdout.
    private func killWhileApplying(_ marker: String, _ arguments: [String], environment: [String: String]) throws {
        let process = Process()
        process.executableURL = CommandRunner.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var seen = ""
        while !seen.contains(marker) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(seen.contains(marker), "the runner ended before \(marker): \(seen)")
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertTrue(process.isRunning, "the runner finished before it could be killed: \(seen)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
