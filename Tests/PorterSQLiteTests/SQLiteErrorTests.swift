import Foundation
import PorterPipeline
import PorterSQLite
import PorterTestSupport
import XCTest

/// SQLite failures carry their result code, SQLite's message and the SQL, under a target
/// error whose text is unchanged; callers match codes.
final class SQLiteErrorTests: XCTestCase {
    var directory: URL!
    var path: String { directory.appendingPathComponent("errors.sqlite").path }

    override func setUpWithError() throws {
        directory = try temporaryFolder("sqlite-errors")
    }

    /// The error `body` throws, as the SQLite failure under it.
    private func sqliteFailure(_ body: () throws(PorterError) -> Void) -> (PorterError, SQLiteError)? {
        do {
            try body()
        } catch {
            guard let sqlite = error.sqliteError else {
                XCTFail("no SQLite error under \(error)")
                return nil
            }
            return (error, sqlite)
        }
        XCTFail("nothing was thrown")
        return nil
    }

    func testAUniqueViolationHasTheUniqueCodeMatchesConstraintAndKeepsItsSQL() throws {
        let db = try SQLiteDatabase(path: path, create: true)
        try db.execute("CREATE TABLE Book (title TEXT); CREATE UNIQUE INDEX Book_title ON Book (title)")
        try db.execute("INSERT INTO Book VALUES ('Dune')")
        let insert = try db.prepare("INSERT INTO Book VALUES (?1)")
        insert.bind(text: "Dune", at: 1)
        guard let (error, sqlite) = sqliteFailure({ () throws(PorterError) in try insert.run() }) else { return }
        XCTAssertEqual(sqlite.extendedResultCode, .SQLITE_CONSTRAINT_UNIQUE)
        XCTAssertEqual(sqlite.resultCode, .SQLITE_CONSTRAINT)
        XCTAssertEqual(sqlite.sql, "INSERT INTO Book VALUES (?1)")
        XCTAssertEqual(sqlite.message, "UNIQUE constraint failed: Book.title")
        XCTAssertEqual(sqlite.path, path)
        XCTAssertEqual(error.cause, .target)
        XCTAssertEqual(error.message, "\(path): write: UNIQUE constraint failed: Book.title")
        // A primary code in a pattern matches its extended codes; an extended one only itself.
        switch sqlite.extendedResultCode {
        case .SQLITE_CONSTRAINT_NOTNULL: XCTFail("NOT NULL matched a UNIQUE failure")
        case .SQLITE_CONSTRAINT: break
        default: XCTFail("CONSTRAINT did not match \(sqlite.extendedResultCode.rawValue)")
        }
        XCTAssertFalse(SQLiteResultCode.SQLITE_CONSTRAINT_NOTNULL ~= sqlite.extendedResultCode)
        XCTAssertTrue(SQLiteResultCode.SQLITE_CONSTRAINT_UNIQUE ~= sqlite.extendedResultCode)
    }

    func testAWriteWhileAnotherConnectionHoldsTheWriteLockIsBusy() throws {
        let holder = try SQLiteDatabase(path: path, create: true)
        try holder.execute("CREATE TABLE Lock (owner TEXT)")
        try holder.execute("BEGIN IMMEDIATE")
        defer { try? holder.execute("ROLLBACK") }
        let other = try SQLiteDatabase(path: path, create: false)
        other.setBusyTimeout(seconds: 0)
        guard let (_, sqlite) = sqliteFailure({ () throws(PorterError) in try other.execute("INSERT INTO Lock VALUES ('me')") }) else { return }
        XCTAssertEqual(sqlite.resultCode, .SQLITE_BUSY)
        XCTAssertEqual(sqlite.sql, "INSERT INTO Lock VALUES ('me')")
    }

    func testABadStatementIsAnErrorWithItsSQL() throws {
        let db = try SQLiteDatabase(path: path, create: true)
        guard let (error, sqlite) = sqliteFailure({ () throws(PorterError) in _ = try db.prepare("SELECT name FROM nowhere") }) else { return }
        XCTAssertEqual(sqlite.resultCode, .SQLITE_ERROR)
        XCTAssertEqual(sqlite.sql, "SELECT name FROM nowhere")
        XCTAssertEqual(sqlite.message, "no such table: nowhere")
        XCTAssertEqual(error.message, "\(path): prepare: no such table: nowhere")
    }

    func testAFileThatIsNotADatabaseIsNotADB() throws {
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let db = try SQLiteDatabase(path: path, create: false)
        guard let (_, sqlite) = sqliteFailure({ () throws(PorterError) in try db.execute("SELECT * FROM sqlite_master") }) else { return }
        XCTAssertEqual(sqlite.resultCode, .SQLITE_NOTADB)
        XCTAssertEqual(sqlite.extendedResultCode.description, "file is not a database")
    }

    func testAMissingFileWithoutCreateCannotBeOpened() {
        guard let (error, sqlite) = sqliteFailure({ () throws(PorterError) in _ = try SQLiteDatabase(path: path, create: false) }) else { return }
        XCTAssertEqual(sqlite.resultCode, .SQLITE_CANTOPEN)
        XCTAssertEqual(error.message, "\(path): \(sqlite.message)")
    }

    func testAnErrorOtherThanSQLiteCarriesNone() {
        XCTAssertNil(PorterError(.invalidRequest, "no").sqliteError)
    }
}
