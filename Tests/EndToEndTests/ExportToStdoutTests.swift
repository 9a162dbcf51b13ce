import Foundation
import XCTest

/// `export --to -`: one class on stdout as NDJSON or CSV, nothing else there; more than one
/// class, or another format, is a usage error that writes nothing.
final class ExportToStdoutTests: XCTestCase {
    private var mirror: URL!

    override func setUpWithError() throws {
        let directory = try temporaryFolder()
        mirror = directory.appendingPathComponent("library.sqlite")
        let result = try CommandRunner.run(["import", CommandRunner.fixtures.appendingPathComponent("library").path, "--to", mirror.path, "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    /// The mirror's books: objectId → (title, publishingYear as text).
    private func books() throws -> [String: [String?]] {
        let rows = try Mirror(mirror).rows(#"SELECT objectId, title, publishingYear FROM "Book""#)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0[0]!, [$0[1], $0[2]]) })
    }

    func testNDJSONOnStdout() throws {
        let result = try CommandRunner.run(["export", "--from", mirror.path, "--classes", "Book", "--format", "ndjson", "--to", "-"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.last, "", "stdout ends with a line break")
        var exported: [String: [String?]] = [:]
        for line in lines.dropLast() {
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            let year = (object["publishingYear"] as? Int).map(String.init)
            exported[try XCTUnwrap(object["objectId"] as? String)] = [object["title"] as? String, year]
            if object["title"] as? String == "Dune" {
                XCTAssertEqual((object["genre"] as? [String: Any])?["__type"] as? String, "Pointer")
            }
        }
        let stored = try books()
        XCTAssertEqual(exported, stored)
        XCTAssertGreaterThan(stored.count, 40)
        // Messages go to stderr: the relation links left out, and the count.
        XCTAssertTrue(result.stderr.contains("Book.authors: relation links are not written to standard output"), result.stderr)
        XCTAssertTrue(result.stderr.contains("exported \(stored.count) Book objects to standard output"), result.stderr)
    }

    func testCSVOnStdout() throws {
        let result = try CommandRunner.run(["export", "--from", mirror.path, "--classes", "Book", "--format", "csv", "--to", "-", "--quiet"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // --quiet leaves only the notes of what was left out.
        XCTAssertEqual(result.stderr.split(separator: "\n").filter { !$0.hasPrefix("note: ") }, [], result.stderr)
        let rows = Self.csvRows(result.stdout)
        let header = try XCTUnwrap(rows.first)
        XCTAssertEqual(Array(header.prefix(4)), ["objectId", "createdAt", "updatedAt", "ACL"])
        let id = try XCTUnwrap(header.firstIndex(of: "objectId")), title = try XCTUnwrap(header.firstIndex(of: "title"))
        let year = try XCTUnwrap(header.firstIndex(of: "publishingYear"))
        XCTAssertTrue(rows.dropFirst().allSatisfy { $0.count == header.count })
        let exported = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { ($0[id], [$0[title], $0[year]] as [String?]) })
        XCTAssertEqual(exported, try books())
        // Dune's description holds a line break and quotes: one record all the same.
        let description = try XCTUnwrap(header.firstIndex(of: "description"))
        XCTAssertTrue(rows.first { $0[title] == "Dune" }?[description].contains("\n\"The spice must flow.\"") == true)
    }

    /// Not one class, or not ndjson/csv: exit 2 saying why, nothing on stdout.
    func testUsageErrors() throws {
        let cases: [([String], String)] = [
            (["--classes", "Book,Author", "--format", "ndjson"], "standard output takes one class, but the export names 2 classes (Book, Author)"),
            (["--format", "csv"], "standard output takes one class, but the export names no class"),
            (["--classes", "Book"], "standard output takes the ndjson or csv format, not parse"),
            (["--classes", "Book", "--format", "json"], "standard output takes the ndjson or csv format, not json"),
            (["--classes", "Book", "--format", "csv", "--emit-manifest"], "export to a folder to write dataset.yml"),
            (["--classes", "Nope", "--format", "csv"], "the source has no class Nope"),
        ]
        for (arguments, fragment) in cases {
            let result = try CommandRunner.run(["export", "--from", mirror.path, "--to", "-"] + arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "-"), "a folder named - was made")
    }

    /// RFC 4180 records (quoted cells may hold commas, quotes and line breaks).
    static func csvRows(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], cell = "", quoted = false, wasQuote = false
        for character in text {
            if quoted {
                if character == "\"" { quoted = false; wasQuote = true } else { cell.append(character) }
                continue
            }
            switch character {
            case "\"":
                if wasQuote { cell.append("\"") }
                quoted = true
            case ",": row.append(cell); cell = ""
            case "\n": row.append(cell); rows.append(row); row = []; cell = ""
            default: cell.append(character)
            }
            wasQuote = false
        }
        return rows
    }

    /// A standard output that takes nothing (`/dev/full`) fails the export with exit 3 and names
    /// it: 30,000 objects, about 3 MB, so that the first write fails on the thread that writes
    /// while later pages are still being read.
    func testAFullStandardOutputFailsTheExport() throws {
        let scratch = try temporaryFolder()
        let dataset = scratch.appendingPathComponent("items"), target = scratch.appendingPathComponent("items.sqlite")
        try CommandRunner.writeItemsDataset(30_000, to: dataset)
        XCTAssertEqual(try CommandRunner.run(["import", dataset.path, "--to", target.path, "-q"]).status, 0)

        let process = Process()
        process.executableURL = CommandRunner.binary
        process.arguments = ["export", "--from", target.path, "--classes", "Item", "--format", "ndjson", "--to", "-", "--quiet"]
        process.standardOutput = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 3, stderr)
        XCTAssertTrue(stderr.contains("standard output: "), stderr)
    }
}
