import PorterPipeline
import PorterPostgres
import PorterTestSupport
import XCTest

/// The libpq wrapper on its own: parameters, COPY's text escaping, typed errors, transactions.
final class PostgresConnectionTests: PostgresTestCase {
    /// Values with every character COPY's text format escapes come back as they were sent.
    func testCopyEscapesTextFormatCharacters() throws {
        try db.execute("CREATE TABLE t (id int, body text, tags text[])")
        let bodies = ["tab\there", "line\nbreak", "carriage\rreturn", #"back\slash"#, #"\N"#, "Müller 🍝", "", "\t\\\n\r", "ends in \\"]
        var rows = CopyRows()
        for (index, body) in bodies.enumerated() {
            rows.append(String(index))
            rows.append(body)
            rows.append(#"{"a\"b","c\\d"}"#)
            rows.endRow()
        }
        rows.append("99")
        rows.append(nil)
        rows.append(nil)
        rows.endRow()
        XCTAssertEqual(try db.copy(into: "t", columns: ["id", "body", "tags"], rows), bodies.count + 1)
        XCTAssertEqual(try db.execute("SELECT body FROM t WHERE id < 99 ORDER BY id").map { $0[0] }, bodies)
        XCTAssertEqual(try db.execute("SELECT body IS NULL, tags IS NULL FROM t WHERE id = 99"), [["t", "t"]])
        XCTAssertEqual(try db.execute("SELECT tags[1], tags[2] FROM t WHERE id = 0"), [[#"a"b"#, #"c\d"#]])
    }

    /// Parameters are bound, never spliced: a quote in a value is just a character.
    func testParametersAreBound() throws {
        XCTAssertEqual(try db.execute("SELECT $1::text || $2::text", ["it's", nil]), [[nil]])
        XCTAssertEqual(try db.execute("SELECT $1::text", ["it's; DROP TABLE x"]), [["it's; DROP TABLE x"]])
    }

    /// A failure keeps its SQLSTATE, constraint and SQL; a failed transaction is rolled back.
    func testFailuresAreTypedAndRollBack() throws {
        try db.execute("CREATE TABLE u (name text PRIMARY KEY)")
        try db.execute("INSERT INTO u VALUES ('ana')")
        do {
            try db.transaction { () throws(PorterError) in
                try db.execute("INSERT INTO u VALUES ('bob')")
                try db.execute("INSERT INTO u VALUES ($1)", ["ana"])
            }
            XCTFail("the duplicate must fail")
        } catch {
            XCTAssertEqual(error.cause, .target)
            XCTAssertEqual(error.postgresError?.sqlState, "23505")
            XCTAssertEqual(error.postgresError?.constraint, "u_pkey")
            XCTAssertEqual(error.postgresError?.sql, "INSERT INTO u VALUES ($1)")
            XCTAssertTrue(error.postgresError?.isUniqueViolation ?? false)
        }
        XCTAssertEqual(try db.execute("SELECT name FROM u ORDER BY name"), [["ana"]], "bob was rolled back with the transaction")
    }

    /// A password in the URL is never shown.
    func testPasswordsAreNotShown() throws {
        XCTAssertEqual(PostgresURL.redacted("postgres://ana:s3cret@db:5432/app?sslmode=disable&password=x"), "postgres://ana@db:5432/app?sslmode=disable")
        XCTAssertEqual(PostgresURL.redacted("postgresql://db/app"), "postgresql://db/app")
        let port = try PostgresCluster.shared().port
        XCTAssertThrowsError(try PostgresConnection(url: "postgres://nobody:s3cret@127.0.0.1:\(port)/nowhere")) { error in
            let message = (error as? PorterError)?.message ?? ""
            XCTAssertFalse(message.contains("s3cret"), message)
            XCTAssertTrue(message.hasPrefix("postgres://nobody@127.0.0.1:\(port)/nowhere: cannot connect"), message)
        }
    }
}
