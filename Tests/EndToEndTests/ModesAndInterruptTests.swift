import Foundation
import XCTest

/// Write modes (`insert`, `merge`), and Ctrl-C or `kill -9` during an import.
final class ModesAndInterruptTests: XCTestCase {
    func writeDataset(_ directory: URL, mode: String, rows: String) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try """
        version: 1
        classes:
          Item:
            source: items.csv
            key: [name]
            mode: \(mode)
            fields: {name: String!, price: Number, note: String}
        """.write(to: directory.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try ("name,price,note\n" + rows).write(to: directory.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
    }

    /// 400,000 items: an import long enough to be interrupted while it writes.
    func writeLargeDataset(_ directory: URL) throws {
        var rows = ""
        rows.reserveCapacity(12_000_000)
        for i in 0..<400_000 { rows += "item \(i),\(i % 97),note \(i)\n" }
        try writeDataset(directory, mode: "upsert", rows: rows)
    }

    func testInsertModeRefusesExistingObjects() throws {
        let scratch = try temporaryFolder()
        let dataset = scratch.appendingPathComponent("items"), target = scratch.appendingPathComponent("items.sqlite")
        try writeDataset(dataset, mode: "insert", rows: "pen,2,blue\n")
        XCTAssertEqual(try CommandRunner.run(["import", dataset.path, "--to", target.path, "-q"]).status, 0)
        let before = try Data(contentsOf: target)
        try writeDataset(dataset, mode: "insert", rows: "pen,3,blue\ncup,5,\n")
        let again = try CommandRunner.run(["import", dataset.path, "--to", target.path, "-q"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("items.csv:2: Item"), again.stderr)
        XCTAssertTrue(again.stderr.contains("already exists in the target (mode: insert)"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: target), before)
    }

    func testMergeModeKeepsValuesTheSourceLacks() throws {
        let scratch = try temporaryFolder()
        let dataset = scratch.appendingPathComponent("items"), target = scratch.appendingPathComponent("items.sqlite")
        try writeDataset(dataset, mode: "merge", rows: "pen,2,blue\n")
        XCTAssertEqual(try CommandRunner.run(["import", dataset.path, "--to", target.path, "-q"]).status, 0)
        try writeDataset(dataset, mode: "merge", rows: "pen,3,\n")
        let summary = try ImportSummary.parse(try CommandRunner.run(["import", dataset.path, "--to", target.path, "--json"]))
        XCTAssertEqual(summary.tally("Item")?.updated, 1)
        XCTAssertEqual(try Mirror(target).rows("SELECT price, note FROM Item"), [["3", "blue"]])

        // upsert, by contrast, clears what the source leaves empty.
        try writeDataset(dataset, mode: "upsert", rows: "pen,3,\n")
        XCTAssertEqual(try CommandRunner.run(["import", dataset.path, "--to", target.path, "-q"]).status, 0)
        XCTAssertEqual(try Mirror(target).rows("SELECT price, note FROM Item"), [["3", nil]])
    }

    /// Ctrl-C rolls the import back: a new mirror is not created, an existing one is unchanged.
    func testInterruptLeavesTheTargetAsItWas() throws {
        let scratch = try temporaryFolder()
        let dataset = scratch.appendingPathComponent("items")
        try writeLargeDataset(dataset)
        for existing in [false, true] {
            let target = scratch.appendingPathComponent("interrupted-\(existing).sqlite")
            var before: Data?
            if existing {
                let small = scratch.appendingPathComponent("small")
                try writeDataset(small, mode: "upsert", rows: "pen,2,blue\n")
                XCTAssertEqual(try CommandRunner.run(["import", small.path, "--to", target.path, "-q"]).status, 0)
                before = try Data(contentsOf: target)
            }
            let process = Process()
            process.executableURL = CommandRunner.binary
            process.arguments = ["import", dataset.path, "--to", target.path, "-q"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            XCTAssertTrue(CommandRunner.waitUntilCatching(SIGINT, process), "the import finished before it could be interrupted")
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 130)
            if let before {
                XCTAssertEqual(try Data(contentsOf: target), before)
                XCTAssertFalse(FileManager.default.fileExists(atPath: target.path + "-journal"))
            } else {
                XCTAssertFalse(FileManager.default.fileExists(atPath: target.path))
            }
        }
    }
    /// `kill -9` once the import writes: a new mirror leaves no file at all (its hidden file
    /// is removed by the guard the import started), an existing one keeps what it held (SQLite
    /// rolls the journal back when the mirror is next opened).
    func testKilledImportLeavesNoFileBehind() throws {
        let scratch = try temporaryFolder()
        let dataset = scratch.appendingPathComponent("items")
        try writeLargeDataset(dataset)
        let small = scratch.appendingPathComponent("small")
        try writeDataset(small, mode: "upsert", rows: "pen,2,blue\n")
        for existing in [false, true] {
            let target = scratch.appendingPathComponent("killed-\(existing).sqlite")
            if existing { XCTAssertEqual(try CommandRunner.run(["import", small.path, "--to", target.path, "-q"]).status, 0) }
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path))
            let process = try CommandRunner.start(["import", dataset.path, "--to", target.path, "-q"])
            // Writing has begun: the hidden new mirror, or the existing one's journal, is there.
            let writing = { () -> Bool in
                let entries = (try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []
                return existing
                    ? entries.contains(target.lastPathComponent + "-journal")
                    : entries.contains { $0.hasPrefix(".\(target.lastPathComponent).importing-") }
            }
            let deadline = Date().addingTimeInterval(120)
            while !writing() && process.isRunning && Date() < deadline { usleep(20_000) }
            XCTAssertTrue(process.isRunning, "the import ended before it wrote")
            XCTAssertTrue(writing(), "the import did not start writing")
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal)
            if existing {
                let again = try ImportSummary.parse(try CommandRunner.run(["import", small.path, "--to", target.path, "--json"]))
                XCTAssertEqual(again.tally("Item")?.unchanged, 1)
                XCTAssertEqual(try Mirror(target).rows("SELECT name, price FROM Item"), [["pen", "2"]])
            } else {
                // The guard removes the hidden files once the killed process's pipe closes.
                let cleaned = Date().addingTimeInterval(10)
                var left = Set<String>()
                repeat {
                    left = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path)).subtracting(before)
                    if !left.isEmpty { usleep(20_000) }
                } while !left.isEmpty && Date() < cleaned
                XCTAssertEqual(left, [], "a killed import into a new mirror left files")
            }
        }
    }
}
