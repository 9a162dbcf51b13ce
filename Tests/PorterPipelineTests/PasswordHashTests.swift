import ParseModel
import ParseRules
import PorterReaders
import XCTest

@testable import PorterPipeline

/// Which password hashes an export's `_User` rows may carry: bcrypt strings libcrypt checks.
final class PasswordHashTests: XCTestCase {
    let hash = "$2a$10$G79K/V8v.SpVAroW0R52Uuhog3UHST6zTDOEiQlDVQMNq9nip2iYe"

    func testBcryptVariantsAreTaken() {
        for prefix in ["$2a$", "$2b$", "$2y$"] { XCTAssertTrue(PasswordHash.isBcrypt(prefix + hash.dropFirst(4)), prefix) }
        XCTAssertTrue(PasswordHash.isBcrypt("$2b$04$" + hash.dropFirst(7)))
        XCTAssertTrue(PasswordHash.isBcrypt("$2b$31$" + hash.dropFirst(7)))
    }

    func testOtherTextIsRefused() {
        XCTAssertFalse(PasswordHash.isBcrypt("hunter2"))
        XCTAssertFalse(PasswordHash.isBcrypt(""))
        XCTAssertFalse(PasswordHash.isBcrypt("$2x$" + hash.dropFirst(4)), "the buggy $2x$ variant")
        XCTAssertFalse(PasswordHash.isBcrypt("$2$10$" + hash.dropFirst(7)))
        XCTAssertFalse(PasswordHash.isBcrypt("$2a$03$" + hash.dropFirst(7)), "cost below 4")
        XCTAssertFalse(PasswordHash.isBcrypt("$2a$32$" + hash.dropFirst(7)), "cost above 31")
        XCTAssertFalse(PasswordHash.isBcrypt(String(hash.dropLast())), "too short")
        XCTAssertFalse(PasswordHash.isBcrypt(hash + "x"), "too long")
        XCTAssertFalse(PasswordHash.isBcrypt(String(hash.dropLast()) + "!"), "not bcrypt's base 64")
        XCTAssertFalse(
            PasswordHash.isBcrypt("$6$rounds=5000$usesomesillystri$D4IrlXatmP7rx3P3InaxBeoomnAihCKRVQP22JZ6EY47Wc6BkroIuUUBOov1i.S5KPgErtP/EN5mcO.ChWQW21"),
            "sha512-crypt")
    }

    /// A hash costing more than 12 (each step doubles a log-in's work; Parse Server makes 10) is
    /// a fault of its row, which names the cost and never shows the hash.
    func testCostlyHashesAreRefused() throws {
        XCTAssertEqual(PasswordHash.cost(of: hash), 10)
        XCTAssertNil(PasswordHash.cost(of: "hunter2"))
        func read(_ text: String) throws -> String? {
            try PasswordHash.read(SourceRecord(line: 2, content: .json(JSONObject(["bcryptPassword": .string(text)]))), keys: ["bcryptPassword"])
        }
        XCTAssertEqual(try read("$2b$12$" + hash.dropFirst(7)), "$2b$12$" + hash.dropFirst(7), "cost 12 is taken")
        XCTAssertThrowsError(try read("$2b$13$" + hash.dropFirst(7))) { error in
            let fault = error as? SystemColumns.Fault
            XCTAssertEqual(
                fault?.reason,
                "a bcrypt hash of cost 13, above the 12 taken: every log-in attempt would cost 8 times Parse Server's own "
                    + "(cost 10); leave the hash out and let the user reset the password")
            XCTAssertEqual(fault?.value, "(60 characters, not shown)")
        }
    }

    func testNotices() {
        XCTAssertTrue(
            PasswordHash.notice(hashes: 1, passwordless: 0, written: false)
                .hasPrefix("1 _User object has a password hash, and a Parse Server takes no hash over REST"))
        XCTAssertTrue(PasswordHash.notice(hashes: 2, passwordless: 0, written: true).hasPrefix("2 _User objects have password hashes, and"))
        XCTAssertTrue(PasswordHash.notice(hashes: 2, passwordless: 0, written: true).contains("random password"))
        XCTAssertTrue(PasswordHash.notice(hashes: 0, passwordless: 1, written: false).hasPrefix("1 _User object has no password at all, and"))
        XCTAssertTrue(
            PasswordHash.notice(hashes: 2, passwordless: 3, written: false)
                .hasPrefix("2 _User objects have password hashes and 3 _User objects have no password at all"))
    }
}

extension PasswordHashTests {
    /// Naming an object's uploaded files keeps everything else it carries, its password hash included.
    func testNamingUploadedFilesKeepsThePasswordHash() {
        let object = ResolvedObject(
            objectId: "u1", line: 3, fields: [FieldValue("avatar", .file(ParseFile(name: "local.png")))], acl: nil,
            passwordHash: hash)
        let named = object.naming(files: ["local.png": ParseFile(name: "abc_local.png", url: "http://x/files/app/abc_local.png")])
        XCTAssertEqual(named.passwordHash, hash)
        XCTAssertEqual(named.fields.first?.value, .file(ParseFile(name: "abc_local.png", url: "http://x/files/app/abc_local.png")))
    }
}
