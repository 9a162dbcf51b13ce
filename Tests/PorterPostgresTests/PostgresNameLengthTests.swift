import Foundation
import ParseModel
import PorterPipeline
import PorterPostgres
import PorterTestSupport
import XCTest

/// PostgreSQL keeps 63 bytes of a name and cuts the rest with only a NOTICE; Parse Server's
/// `addFieldIfNotExists` (`PostgresStorageAdapter.js`) adds a column `IF NOT EXISTS` and takes a
/// duplicate column (42701) as one already there, so two fields alike in their first 63 bytes
/// would share a column. An import refuses longer names as schema faults before it writes
/// anything; names of exactly 63 bytes work.
final class PostgresNameLengthTests: PostgresTestCase {
    /// Each `Fixtures/bad-postgres/` dataset with a name too long, imported into a database that
    /// holds the library: one schema fault naming the class, the field or index, the name, its
    /// bytes and the limit; every table and `_SCHEMA` row as it was.
    func testNamesLongerThan63BytesAreRefusedBeforeAnythingIsWritten() async throws {
        let library = try await importDataset(fixture("library"))
        XCTAssertTrue(library.succeeded, "\(library.errors)")
        let before = try snapshot()
        let expected = [
            "field-name-64-bytes": (
                "Note", "summaryOfTheMeetingWrittenByTheSecretaryOnTheDayItWasHeld_short2",
                #"column name "summaryOfTheMeetingWrittenByTheSecretaryOnTheDayItWasHeld_short2" is 64 bytes"#
            ),
            "join-table-name-too-long": (
                "Note", "attendeesWhoConfirmedTheirPlaceBeforeTheDeadlineOfMay",
                #"join table name "_Join:attendeesWhoConfirmedTheirPlaceBeforeTheDeadlineOfMay:Note" is 64 bytes"#
            ),
            "index-name-too-long": ("Note", nil, #"index name "byTheTitleOfTheNoteAndThenByTheDayItWasWrittenOnForTheWeeklyList" is 64 bytes"#),
        ]
        for (name, (className, field, text)) in expected.sorted(by: { $0.key < $1.key }) {
            let report = try await importDataset(PackageFolders.fixtures.appendingPathComponent("bad-postgres/\(name)").path)
            XCTAssertFalse(report.succeeded, name)
            XCTAssertEqual(report.errors.map(\.kind), [.schemaConflict], "\(name): \(report.errors)")
            let fault = try XCTUnwrap(report.errors.first)
            XCTAssertEqual([fault.location.className, fault.location.fieldName], [className, field], name)
            XCTAssertTrue(fault.reason.contains(text), fault.description)
            XCTAssertTrue(fault.reason.contains("longer than the 63 bytes PostgreSQL keeps of a name"), fault.description)
            XCTAssertTrue(fault.reason.contains(": give the "), fault.description)
            XCTAssertEqual(try snapshot(), before, "\(name) left the database as it was")
        }
    }

    /// A class the database has, given a new field of 64 bytes: refused, and the class keeps its
    /// columns and `_SCHEMA` row.
    func testALongFieldAddedToAClassTheDatabaseHasIsRefused() async throws {
        let folder = try temporaryFolder("postgres-long-field")
        try "title\nMonday\n".write(to: folder.appendingPathComponent("notes.csv"), atomically: true, encoding: .utf8)
        func manifest(_ fields: String) throws {
            try "version: 1\nclasses:\n  Note: {source: notes.csv, key: [title], fields: {title: String!\(fields)}}\n"
                .write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        }
        try manifest("")
        let first = try await importDataset(folder.path)
        XCTAssertTrue(first.succeeded, "\(first.errors)")
        let before = try snapshot()
        let long = String(repeating: "x", count: 64)
        try manifest(", \(long): String")
        let report = try await importDataset(folder.path)
        XCTAssertEqual(
            report.errors.map(\.description),
            [
                "dataset.yml: classes.Note.fields.\(long): the column name \"\(long)\" is 64 bytes, longer than the 63 bytes PostgreSQL keeps of a name "
                    + "(it would cut the rest, and names alike in their first 63 bytes would become one): give the field a shorter name"
            ])
        XCTAssertEqual(try snapshot(), before)
    }

    /// Names of exactly 63 bytes are PostgreSQL's whole names: two classes alike in their first
    /// 60 bytes, a field of 63 bytes and a join table of 63 bytes get tables and columns of
    /// those names, and a re-import (through the staging tables, whose names the import
    /// numbers) updates them.
    func testNamesOf63BytesWork() async throws {
        let one = "MeetingMinutesOfTheGardeningClubKeptByTheSecretaryForTheYearOne"
        let two = "MeetingMinutesOfTheGardeningClubKeptByTheSecretaryForTheYearTwo"
        let field = "summaryOfTheMeetingWrittenByTheSecretaryOnTheDayItWasHeld_short"
        let relation = "attendeesWhoConfirmedTheirPlaceBeforeTheDeadlineOfMa"
        let joinTable = "_Join:\(relation):Note"
        XCTAssertEqual([one, two, field, joinTable].map(\.utf8.count), [63, 63, 63, 63])
        let folder = try temporaryFolder("postgres-63-bytes")
        try """
        version: 1
        classes:
          Person: {source: people.csv, key: [name], fields: {name: String!}}
          \(one): {source: minutes.csv, key: [day], fields: {day: String!, \(field): String}}
          \(two): {source: minutes.csv, key: [day], fields: {day: String!, \(field): String}}
          Note:
            source: notes.csv
            key: [title]
            fields:
              title: String!
              \(relation): {type: Relation<Person>, column: attendees, split: ";"}
        """.write(to: folder.appendingPathComponent("dataset.yml"), atomically: true, encoding: .utf8)
        try "name\nAda\nGrace\n".write(to: folder.appendingPathComponent("people.csv"), atomically: true, encoding: .utf8)
        try "title,attendees\nMonday,Ada;Grace\n".write(to: folder.appendingPathComponent("notes.csv"), atomically: true, encoding: .utf8)
        for summary in ["Budget approved", "Budget approved unanimously"] {
            try "day,\(field)\nMonday,\(summary)\n".write(to: folder.appendingPathComponent("minutes.csv"), atomically: true, encoding: .utf8)
            try "title,attendees\nMonday,Ada;Grace\nFriday,Grace\n".write(to: folder.appendingPathComponent("notes.csv"), atomically: true, encoding: .utf8)
            let report = try await importDataset(folder.path)
            XCTAssertTrue(report.succeeded, "\(summary): \(report.errors)")
            for className in [one, two] {
                XCTAssertEqual(try rows(#"SELECT "\#(field)" FROM "\#(className)""#), [[summary]], className)
            }
        }
        XCTAssertEqual(try value("SELECT count(*) FROM information_schema.columns WHERE column_name = '\(field)' AND table_name IN ('\(one)', '\(two)')"), "2")
        XCTAssertEqual(try value(#"SELECT count(*) FROM "\#(joinTable)""#), "3")
        XCTAssertEqual(try rows(#"SELECT "className" FROM "_SCHEMA" ORDER BY 1"#), [[one], [two], ["Note"], ["Person"]])
        XCTAssertEqual(try value(#"SELECT "schema"->'fields'->'\#(relation)'->>'targetClass' FROM "_SCHEMA" WHERE "className" = 'Note'"#), "Person")
    }
}
