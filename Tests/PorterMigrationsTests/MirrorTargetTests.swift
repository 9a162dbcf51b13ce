import Foundation
import ParseMirrorServer
import ParseModel
import PorterMigrations
import PorterPipeline
import PorterSQLite
import XCTest

final class MirrorTargetTests: XCTestCase {
    private func temporaryMirror() throws -> String {
        let folder = try temporaryFolder("porter")
        return folder.appendingPathComponent("app.sqlite").path
    }

    /// `close()` closes the connection: the file can be removed (no `-wal` or `-shm` file is
    /// left) and a mirror made anew at its path; a second `close()` does nothing, and a request
    /// after it is refused with a target error instead of reaching a closed connection.
    func testAClosedTargetLetsTheFileBeRemovedAndReopened() throws {
        let path = try temporaryMirror()
        let target = try MirrorTarget(path: path, create: true)
        try target.begin()
        _ = try blocking {
            try await target.send(
                "POST", "/schemas/Book", body: .object(JSONObject(["fields": .object(JSONObject(["title": .object(JSONObject(["type": .string("String")]))]))]))
            )
        }
        target.close()
        target.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"), "the connection is closed")
        XCTAssertThrowsError(try blocking { try await target.send("GET", "/schemas/Book") }) { error in
            guard case .failed(let failure)? = error as? ParseAPIError else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.cause, .target)
            XCTAssertTrue(failure.message.hasSuffix("the mirror was closed"), failure.message)
        }
        XCTAssertThrowsError(try target.begin()) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .target)
        }
        XCTAssertNil(try blocking { try await MirrorTarget(path: path, create: false).schema(of: "Book") }, "the open transaction was rolled back")

        try FileManager.default.removeItem(atPath: path)
        let reopened = try MirrorTarget(path: path, create: true)
        defer { reopened.close() }
        _ = try blocking { try await reopened.send("POST", "/schemas/Author", body: nil) }
        XCTAssertEqual(try blocking { try await reopened.schemas().map(\.className) }, ["Author"])
    }

    func testARolledBackUnitOfWorkLeavesTheMirrorAsItWas() throws {
        let path = try temporaryMirror()
        let target = try MirrorTarget(path: path, create: true)
        _ = try blocking {
            try await target.send(
                "POST", "/schemas/Book", body: .object(JSONObject(["fields": .object(JSONObject(["title": .object(JSONObject(["type": .string("String")]))]))]))
            )
        }
        try target.begin()
        _ = try blocking {
            try await target.send(
                "PUT", "/schemas/Book", body: .object(JSONObject(["fields": .object(JSONObject(["pages": .object(JSONObject(["type": .string("Number")]))]))])))
        }
        XCTAssertEqual(try blocking { try await target.schema(of: "Book")?.fields.map(\.name) }, ["title", "pages"])
        target.rollback()
        XCTAssertEqual(try blocking { try await target.schema(of: "Book")?.fields.map(\.name) }, ["title"])
        XCTAssertNil(try blocking { try await target.schema(of: "Author") })
    }

    func testARefusedRequestCarriesParseErrorCodeAndChangesNothing() throws {
        let target = try MirrorTarget(path: try temporaryMirror(), create: true)
        _ = try blocking {
            try await target.send(
                "POST", "/schemas/Book", body: .object(JSONObject(["fields": .object(JSONObject(["title": .object(JSONObject(["type": .string("String")]))]))]))
            )
        }
        try target.begin()
        XCTAssertThrowsError(
            try blocking {
                try await target.send(
                    "PUT", "/schemas/Book",
                    body: .object(
                        JSONObject([
                            "fields": .object(
                                JSONObject([
                                    "pages": .object(JSONObject(["type": .string("Number")])),
                                    "title": .object(JSONObject(["type": .string("Number")])),
                                ]))
                        ])))
            }
        ) { error in
            XCTAssertEqual((error as? ParseAPIError)?.code, .invalidSchemaOperation)
            // The command's error keeps the answer under it, for a library caller to match.
            let reported = (error as? ParseAPIError)?.porterError("PUT /schemas/Book")
            XCTAssertEqual(reported?.parseErrorAnswer?.status, 400)
            XCTAssertEqual(reported?.parseError?.code, .invalidSchemaOperation)
            XCTAssertEqual(reported?.cause, .target)
        }
        try target.commit()
        XCTAssertEqual(try blocking { try await target.schema(of: "Book")?.fields.map(\.name) }, ["title"])
    }

    func testReadsOutsideAUnitOfWorkDoNotWaitForAnotherProcesssWriteTransaction() throws {
        let path = try temporaryMirror()
        let target = try MirrorTarget(path: path, create: true, busyTimeout: 0.2)
        _ = try blocking {
            try await target.send(
                "POST", "/schemas/Book", body: .object(JSONObject(["fields": .object(JSONObject(["title": .object(JSONObject(["type": .string("String")]))]))]))
            )
        }
        try blocking {
            try await target.history().record(
                AppliedMigration(
                    version: "1", name: "books", checksum: "c", appliedAt: ParseDate(millisecondsSince1970: 0),
                    durationMs: 1, success: true, host: "h", error: nil))
        }
        let migration = try SQLiteDatabase(path: path, create: false)
        try migration.execute("BEGIN IMMEDIATE")
        defer { try? migration.execute("ROLLBACK") }
        let started = Date()
        XCTAssertEqual(try blocking { try await target.schemas().map(\.className) }, ["Book"])
        XCTAssertEqual(try blocking { try await target.history().entries().map(\.version) }, ["1"])
        XCTAssertNil(try blocking { try await target.migrationLock(timing: LockTiming()).holder() })
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.2, "a read waited for the writer")
        // A write does wait, and fails busy once its timeout is over.
        XCTAssertThrowsError(
            try blocking {
                try await target.send(
                    "PUT", "/schemas/Book",
                    body: .object(JSONObject(["fields": .object(JSONObject(["pages": .object(JSONObject(["type": .string("Number")]))]))])))
            })
    }
}
