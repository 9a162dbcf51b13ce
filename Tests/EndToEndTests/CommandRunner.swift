import CSQLite
import Foundation
import XCTest

/// Runs the built `parse-porter` and reads mirrors, for tests that check what a user sees.
enum CommandRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let packageRoot = PackageFolders.root
    static let fixtures = PackageFolders.fixtures

    /// The `parse-porter` beside the test bundle (both are built by `swift test`).
    static let binary: URL = {
        if let override = ProcessInfo.processInfo.environment["PARSE_PORTER_BIN"] { return URL(fileURLWithPath: override) }
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("parse-porter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug/parse-porter")
    }()

    /// Runs `parse-porter` to its end; `environment` is added to this process's; stdin reads
    /// `standardInput`, or nothing.
    @discardableResult
    static func run(_ arguments: [String], currentDirectory: URL? = nil, environment: [String: String] = [:], standardInput: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.standardInput = try standardInput.map { try FileHandle(forReadingFrom: $0) } ?? FileHandle.nullDevice
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes while the process runs, so a full pipe never blocks it.
        nonisolated(unsafe) var errData = Data()
        let reader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !reader.isFinished { usleep(1000) }
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts `parse-porter` without waiting for it; its output goes nowhere.
    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits, up to a minute, until `process` catches `signal` (its handler is in place, as
    /// Linux's `/proc/<pid>/status` shows): sent before, the signal ends it with the default
    /// action, whatever the command's own handling. False if it ended or never got there.
    static func waitUntilCatching(_ signal: Int32, _ process: Process) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        let bit = UInt64(1) << UInt64(signal - 1)
        while process.isRunning && Date() < deadline {
            let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
                let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16), mask & bit != 0
            {
                return true
            }
            usleep(5_000)
        }
        return false
    }

    /// A dataset folder with one class, Item (key `name`, a Number `price`), of `count` objects:
    /// big enough that a command reading it through REST can be interrupted.
    static func writeItemsDataset(_ count: Int, to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try "version: 1\nclasses:\n  Item: {source: items.csv, key: [name], fields: {name: String!, price: Number}}\n"
            .write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try ("name,price\n" + (0..<count).map { "item \($0),\($0 % 97)\n" }.joined())
            .write(to: folder.appendingPathComponent("items.csv"), atomically: true, encoding: .utf8)
    }

    /// A new SQLite file in `directory` made by running the SQL fixture `name` (a path under Fixtures/).
    static func loadSQLFixture(_ name: String, into directory: URL) throws -> URL {
        let file = directory.appendingPathComponent(URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent + ".db")
        let loader = Process()
        loader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        loader.arguments = ["sqlite3", file.path, ".read \(fixtures.appendingPathComponent(name).path)"]
        try loader.run()
        loader.waitUntilExit()
        XCTAssertEqual(loader.terminationStatus, 0, "sqlite3 .read \(name)")
        return file
    }

    /// A copy of a fixture dataset in `directory`, so tests never write into `Fixtures/`.
    static func copyFixture(_ name: String, to directory: URL) throws -> URL {
        let destination = directory.appendingPathComponent(URL(fileURLWithPath: name).lastPathComponent)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: destination)
        return destination
    }
}

/// SQL on a mirror file, read-only unless opened `writable` (a test planting what no command writes).
final class Mirror {
    private var handle: OpaquePointer?

    init(_ url: URL, writable: Bool = false) throws {
        guard sqlite3_open_v2(url.path, &handle, writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw NSError(domain: "Mirror", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot open \(url.path)"])
        }
    }

    deinit { sqlite3_close(handle) }

    /// Each row as texts (`nil` for SQL NULL).
    func rows(_ sql: String) throws -> [[String?]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw NSError(domain: "Mirror", code: 2, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(handle)) + ": " + sql])
        }
        defer { sqlite3_finalize(statement) }
        var rows: [[String?]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    sqlite3_column_text(statement, column).map { String(cString: $0) }
                })
        }
        return rows
    }

    /// The single value of a one-row, one-column query.
    func value(_ sql: String) throws -> String? {
        try rows(sql).first?.first ?? nil
    }

    /// Runs a statement that changes the mirror file at `url` (what a server stored behind `serve`'s back).
    static func change(_ url: URL, _ sql: String) throws {
        var handle: OpaquePointer?
        defer { sqlite3_close(handle) }
        guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, sqlite3_busy_timeout(handle, 5000) == SQLITE_OK,
            sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK
        else {
            throw NSError(domain: "Mirror", code: 3, userInfo: [NSLocalizedDescriptionKey: String(cString: sqlite3_errmsg(handle)) + ": " + sql])
        }
    }
}

/// The import summary `--json` prints.
struct ImportSummary: Decodable {
    struct ClassTally: Decodable {
        let className: String
        let read, inserted, updated, unchanged, rejected: Int
    }
    struct RelationTally: Decodable {
        let relation: String
        let added, removed, rejected: Int
    }
    let committed: Bool
    let succeeded: Bool
    let classes: [ClassTally]
    let relations: [RelationTally]
    let errorCount: Int
    /// A fault as `--json` reports it (Docs/ExitCodes.md, "Faults in JSON").
    struct Fault: Decodable {
        let kind: String
        let className, field, keyPath, column, value: String?
        let file: String
        let line: Int?
        let message, text: String
    }
    let errors: [Fault]
    /// The faults as a terminal shows them.
    var errorTexts: [String] { errors.map(\.text) }
    let rejectFiles: [String]
    struct RequestTally: Decodable {
        let phase: String
        let requests, operations: Int
    }
    let requests: [RequestTally]
    let notes: [String]

    static func parse(_ result: CommandRunner.Result) throws -> ImportSummary {
        try JSONDecoder().decode(ImportSummary.self, from: Data(result.stdout.utf8))
    }

    func tally(_ className: String) -> ClassTally? { classes.first { $0.className == className } }
    func relation(_ name: String) -> RelationTally? { relations.first { $0.relation == name } }
}
