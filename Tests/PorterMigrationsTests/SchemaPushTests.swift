import ParseModel
import PorterMigrations
import PorterPipeline
import XCTest

/// `SchemaPush` on a mirror and on a Parse Server (a served mirror): what arrives on the target,
/// what is refused before anything is sent, and what is left alone.
final class SchemaPushTests: XCTestCase {
    private func schemas(_ json: [String]) throws -> [ClassSchema] {
        try json.map(SchemaDiffTests.schema)
    }

    /// Plans the push of `declared` onto the fixture's target and applies it.
    @discardableResult
    private func push(_ declared: [String], to fixture: TargetFixture, _ options: SchemaPushOptions = SchemaPushOptions()) throws -> SchemaPush {
        let plan = try SchemaPush(
            diff: SchemaDiff(declared: try schemas(declared), live: try blocking { try await fixture.target.api.schemas() }), options: options)
        try blocking { try await plan.apply(to: fixture.target) }
        return plan
    }

    private func live(_ className: String, on fixture: TargetFixture) throws -> ClassSchema {
        try XCTUnwrap(try blocking { try await fixture.target.api.schema(of: className) }, "\(className) on the \(fixture.kind)")
    }

    private func create(_ className: String, _ object: String, on fixture: TargetFixture) throws -> String {
        let answer = try blocking { try await fixture.target.api.send("POST", "/classes/\(className)", body: try JSONParser.parse(object)) }
        return try XCTUnwrap(answer["objectId"]?.stringValue)
    }

    private func object(_ className: String, _ objectId: String, on fixture: TargetFixture) throws -> JSONValue {
        try blocking { try await fixture.target.api.send("GET", "/classes/\(className)/\(objectId)") }
    }

    func testCreatesClassesWithFieldsPermissionsAndIndexesAndARepushIsANoOp() throws {
        let declared = [
            #"{"className":"Genre","fields":{"objectId":{"type":"String"},"name":{"type":"String","required":true}}}"#,
            #"""
            {"className":"Book","fields":{"title":{"type":"String","required":true,"defaultValue":"Untitled"},
             "genre":{"type":"Pointer","targetClass":"Genre"},"pages":{"type":"Number"}},
             "classLevelPermissions":{"find":{"*":true},"get":{"*":true,"role:Staff":true}},
             "indexes":{"_id_":{"_id":1},"title_1":{"title":1}}}
            """#,
            #"{"className":"_User","fields":{"username":{"type":"String"},"nickname":{"type":"String"}},"indexes":{"username_1":{"username":1}}}"#,
        ]
        for fixture in try TargetFixture.all(in: self) {
            let plan = try push(declared, to: fixture)
            XCTAssertEqual(plan.classes.map(\.className), ["Book", "Genre", "_User"])
            XCTAssertEqual(
                plan.classes.flatMap(\.requests).map { "\($0.method) \($0.path)" }, ["POST /schemas/Book", "POST /schemas/Genre", "POST /schemas/_User"])
            let sent = plan.classes.flatMap(\.requests).map { $0.body.serialized() }.joined()
            for own in ["_id_", "username_1", "\"username\"", "objectId"] { XCTAssertFalse(sent.contains(own), "\(own) sent to the \(fixture.kind): \(sent)") }

            let book = try live("Book", on: fixture)
            XCTAssertEqual(
                book.fields,
                [
                    SchemaField(name: "title", type: .string, required: true, defaultValue: .string("Untitled")),
                    SchemaField(name: "genre", type: .pointer(targetClass: "Genre")), SchemaField(name: "pages", type: .number),
                ],
                "\(fixture.kind)")
            XCTAssertEqual(book.classLevelPermissions?["get"], try JSONParser.parse(#"{"*":true,"role:Staff":true}"#), "\(fixture.kind)")
            XCTAssertEqual(book.classLevelPermissions?["create"], .object(JSONObject()), "\(fixture.kind): omitted means master key only")
            XCTAssertEqual(book.indexes, try JSONParser.parse(#"{"title_1":{"title":1}}"#), "\(fixture.kind)")
            XCTAssertEqual(try live("Genre", on: fixture).fields, [SchemaField(name: "name", type: .string, required: true)])
            XCTAssertEqual(try live("Genre", on: fixture).classLevelPermissions, ClassSchema.defaultCLP, "\(fixture.kind): no CLP in the file, Parse's default")
            let user = try live("_User", on: fixture)
            XCTAssertEqual(user.field(named: "nickname")?.type, .string)
            XCTAssertNil(user.indexes?["username_1"], "\(fixture.kind): Parse's own index is not pushed")

            XCTAssertTrue(SchemaDiff(declared: try schemas(declared), live: try blocking { try await fixture.target.api.schemas() }).isEmpty, "\(fixture.kind)")
            let again = try push(declared, to: fixture)
            XCTAssertEqual(again.requestCount, 0, "\(fixture.kind)")
            XCTAssertTrue(again.classes.isEmpty, "\(fixture.kind)")
        }
    }

    func testATypeChangeIsRefusedBeforeAnythingIsSent() throws {
        for fixture in try TargetFixture.all(in: self) {
            try push([#"{"className":"Book","fields":{"pages":{"type":"String"},"shelf":{"type":"Pointer","targetClass":"Shelf"}}}"#], to: fixture)
            let id = try create("Book", #"{"pages":"300"}"#, on: fixture)
            let declared = [
                #"{"className":"Book","fields":{"pages":{"type":"Number"},"shelf":{"type":"Pointer","targetClass":"Room"},"title":{"type":"String"}}}"#,
                #"{"className":"Author","fields":{"name":{"type":"String"}}}"#,
            ]
            XCTAssertThrowsError(try push(declared, to: fixture)) { error in
                let error = error as? PorterError
                XCTAssertEqual(error?.cause, .invalidData)
                XCTAssertEqual(
                    error?.message,
                    """
                    refused: Parse cannot change the type of a field in place, and these fields differ:
                      Book.pages: String → Number
                      Book.shelf: Pointer<Shelf> → Pointer<Room>
                    Recreating modified fields (SchemaPushOptions.recreateModifiedFields) deletes each and adds it again with the new type: its values are lost. Nothing was changed.
                    """)
            }
            XCTAssertEqual(try live("Book", on: fixture).fields.map(\.name), ["pages", "shelf"], "\(fixture.kind): no field added")
            XCTAssertEqual(try live("Book", on: fixture).field(named: "pages")?.type, .string)
            XCTAssertNil(try blocking { try await fixture.target.api.schema(of: "Author") }, "\(fixture.kind): no class created")
            XCTAssertEqual(try object("Book", id, on: fixture)["pages"], .string("300"))
        }
    }

    func testRecreateModifiedFieldsDeletesAndAddsTheFieldAgain() throws {
        for fixture in try TargetFixture.all(in: self) {
            try push([#"{"className":"Book","fields":{"pages":{"type":"String"},"title":{"type":"String"}},"indexes":{"pages_1":{"pages":1}}}"#], to: fixture)
            let id = try create("Book", #"{"pages":"300","title":"Dune"}"#, on: fixture)
            let declared = [
                #"{"className":"Book","fields":{"pages":{"type":"Number","required":true},"title":{"type":"String"}},"indexes":{"pages_1":{"pages":1}}}"#
            ]
            let plan = try push(declared, to: fixture, SchemaPushOptions(recreateModifiedFields: true))
            XCTAssertEqual(plan.classes.first?.changes, ["~ field pages: String → Number, required (deleted and added again: its values are lost)"])
            XCTAssertEqual(try live("Book", on: fixture).field(named: "pages"), SchemaField(name: "pages", type: .number, required: true), "\(fixture.kind)")
            let book = try object("Book", id, on: fixture)
            XCTAssertNil(book["pages"], "\(fixture.kind): the old values are gone")
            XCTAssertEqual(book["title"], .string("Dune"))
            XCTAssertTrue(SchemaDiff(declared: try schemas(declared), live: try blocking { try await fixture.target.api.schemas() }).isEmpty, "\(fixture.kind)")
        }
    }

    func testExtraFieldsAreDeletedOnlyWithTheFlag() throws {
        for fixture in try TargetFixture.all(in: self) {
            try push([#"{"className":"Book","fields":{"title":{"type":"String"},"subtitle":{"type":"String"}}}"#], to: fixture)
            let id = try create("Book", #"{"title":"Dune","subtitle":"Book One"}"#, on: fixture)
            let declared = [#"{"className":"Book","fields":{"title":{"type":"String"}}}"#]
            let kept = try push(declared, to: fixture)
            XCTAssertEqual(kept.requestCount, 0)
            XCTAssertEqual(kept.classes.first?.kept, ["- field subtitle: String (not in the file; deleting extra fields deletes it)"])
            XCTAssertEqual(try object("Book", id, on: fixture)["subtitle"], .string("Book One"), "\(fixture.kind)")

            let deleted = try push(declared, to: fixture, SchemaPushOptions(deleteExtraFields: true))
            XCTAssertEqual(deleted.classes.first?.changes, ["- field subtitle: String (deleted with its values)"])
            XCTAssertEqual(try live("Book", on: fixture).fields.map(\.name), ["title"], "\(fixture.kind)")
            XCTAssertNil(try object("Book", id, on: fixture)["subtitle"], "\(fixture.kind)")
        }
    }

    func testOptionsPermissionsAndIndexesOfAnExistingClassAreMadeToMatch() throws {
        for fixture in try TargetFixture.all(in: self) {
            try push(
                [#"{"className":"Book","fields":{"title":{"type":"String"},"year":{"type":"Number"}},"indexes":{"year_1":{"year":1},"old":{"title":1}}}"#],
                to: fixture)
            let declared = [
                #"""
                {"className":"Book","fields":{"title":{"type":"String","required":true,"defaultValue":"n/a"},"year":{"type":"Number"}},
                 "classLevelPermissions":{"find":{"*":true},"protectedFields":{"*":["year"]}},
                 "indexes":{"year_1":{"year":-1},"title_1":{"title":1}}}
                """#
            ]
            let plan = try push(declared, to: fixture)
            XCTAssertEqual(
                plan.classes.first?.requests.map(\.body),
                [
                    try JSONParser.parse(#"{"indexes":{"old":{"__op":"Delete"},"year_1":{"__op":"Delete"}}}"#),
                    try JSONParser.parse(
                        #"""
                        {"classLevelPermissions":{"find":{"*":true},"protectedFields":{"*":["year"]}},
                         "fields":{"title":{"type":"String","required":true,"defaultValue":"n/a"}},"indexes":{"title_1":{"title":1},"year_1":{"year":-1}}}
                        """#),
                ])
            let book = try live("Book", on: fixture)
            XCTAssertEqual(book.field(named: "title"), SchemaField(name: "title", type: .string, required: true, defaultValue: .string("n/a")))
            XCTAssertEqual(book.indexes?["year_1"], try JSONParser.parse(#"{"year":-1}"#), "\(fixture.kind)")
            XCTAssertEqual(book.indexes?["title_1"], try JSONParser.parse(#"{"title":1}"#))
            XCTAssertNil(book.indexes?["old"])
            XCTAssertEqual(book.classLevelPermissions?["find"], try JSONParser.parse(#"{"*":true}"#))
            XCTAssertEqual(book.classLevelPermissions?["get"], .object(JSONObject()))
            XCTAssertEqual(book.classLevelPermissions?["protectedFields"], try JSONParser.parse(#"{"*":["year"]}"#))
            XCTAssertEqual(try push(declared, to: fixture).requestCount, 0, "\(fixture.kind)")
        }
    }

    func testClassesOnlyOnTheTargetAreLeftAlone() throws {
        for fixture in try TargetFixture.all(in: self) {
            try push([#"{"className":"Legacy","fields":{"note":{"type":"String"}}}"#], to: fixture)
            let id = try create("Legacy", #"{"note":"keep me"}"#, on: fixture)
            let plan = try push([#"{"className":"Book","fields":{"title":{"type":"String"}}}"#], to: fixture, SchemaPushOptions(deleteExtraFields: true))
            XCTAssertEqual(plan.classes.map(\.className), ["Book", "Legacy"])
            XCTAssertEqual(plan.classes.last?.kept, ["- class: 1 field, 0 indexes (only on the target: push leaves it alone)"])
            XCTAssertEqual(plan.classes.last?.requests, [])
            XCTAssertEqual(try object("Legacy", id, on: fixture)["note"], .string("keep me"), "\(fixture.kind)")
        }
    }

    /// A request the target refuses ends the push: a mirror rolls back everything, a Parse Server
    /// keeps what came before, and the message says to push again.
    func testARefusedRequestOnAMirrorChangesNothing() throws {
        for fixture in try TargetFixture.all(in: self) {
            let declared = [
                #"{"className":"Author","fields":{"name":{"type":"String"}}}"#,
                #"{"className":"Book","fields":{"title":{"type":"String"}},"indexes":{"nope_1":{"nope":1}}}"#,
            ]
            XCTAssertThrowsError(try push(declared, to: fixture)) { error in
                let error = error as? PorterError
                XCTAssertEqual(error?.cause, .target)
                XCTAssertEqual(
                    error?.message.hasPrefix("Book: POST /schemas/Book: Parse error 102: Field nope does not exist, cannot add index."), true,
                    error?.message ?? "")
                XCTAssertEqual(error?.message.contains("push again to finish"), fixture.kind == .server, error?.message ?? "")
            }
            XCTAssertEqual(try blocking { try await fixture.target.api.schema(of: "Author") } != nil, fixture.kind == .server, "\(fixture.kind)")
            XCTAssertNil(try blocking { try await fixture.target.api.schema(of: "Book") })
        }
    }
}
