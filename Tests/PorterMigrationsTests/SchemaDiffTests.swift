import ParseModel
import PorterMigrations
import PorterPipeline
import PorterTestSupport
import XCTest

/// Each kind of difference between a declared and a live schema, what is not a difference
/// (Parse's own fields and indexes, permissions spelled otherwise), and the three renderings.
final class SchemaDiffTests: XCTestCase {
    /// A class from its `/schemas` JSON.
    static func schema(_ json: String) throws -> ClassSchema {
        try ClassSchema(schemaJSON: JSONParser.parse(json))
    }

    private func diff(_ declared: [String], _ live: [String]) throws -> SchemaDiff {
        SchemaDiff(declared: try declared.map(Self.schema), live: try live.map(Self.schema))
    }

    private func book(_ fields: String = #""title":{"type":"String"}"#, _ rest: String = "") -> String {
        #"{"className":"Book","fields":{\#(fields)}\#(rest)}"#
    }

    func testTheSameSchemaHasNoDifferences() throws {
        let same = try diff([book()], [book()])
        XCTAssertTrue(same.isEmpty)
        XCTAssertEqual(same.classNames, ["Book"])
        XCTAssertEqual(same.json["matches"], .bool(true))
        XCTAssertEqual(same.json["differences"], .integer(0))
        XCTAssertEqual(same.junit.cases.map(\.name), ["Book"])
        XCTAssertNil(same.junit.cases[0].failure)
    }

    func testClassesAddedAndRemoved() throws {
        let result = try diff(
            [book(), #"{"className":"Loan","fields":{"due":{"type":"Date"}},"indexes":{"due_1":{"due":1}}}"#],
            [book(), #"{"className":"Legacy","fields":{"a":{"type":"String"},"b":{"type":"Number"}}}"#])
        XCTAssertEqual(result.classes.map(\.className), ["Legacy", "Loan"])
        XCTAssertEqual(result.classes.map(\.change), [.removed, .added])
        XCTAssertEqual(result.classNames, ["Book", "Legacy", "Loan"])
        XCTAssertEqual(result.count, 2)
        XCTAssertEqual(
            result.text,
            """
            Legacy
              - class: 2 fields, 0 indexes
            Loan
              + class: 1 field, 1 index
            """)
    }

    func testFieldsAddedRemovedAndChangedInEachOption() throws {
        let declared = book(
            #"""
            "title":{"type":"String","required":true},"pages":{"type":"Number"},"genre":{"type":"Pointer","targetClass":"Genre"},
            "year":{"type":"String"},"format":{"type":"String","defaultValue":"paperback"},"added":{"type":"Boolean"}
            """#)
        let live = book(
            #"""
            "title":{"type":"String"},"pages":{"type":"Number"},"genre":{"type":"Pointer","targetClass":"Shelf"},
            "year":{"type":"Number"},"format":{"type":"String","defaultValue":"hardcover"},"subtitle":{"type":"String"}
            """#)
        let fields = try XCTUnwrap(try diff([declared], [live]).classes.first).fields
        XCTAssertEqual(fields.map(\.name), ["added", "format", "genre", "subtitle", "title", "year"])
        XCTAssertEqual(fields.map(\.change), [.added, .changed, .changed, .removed, .changed, .changed])
        XCTAssertEqual(fields.map(\.changesType), [false, false, true, false, false, true])
        XCTAssertEqual(fields.first { $0.name == "format" }?.declared?.defaultValue, .string("paperback"))
        XCTAssertEqual(fields.first { $0.name == "format" }?.live?.defaultValue, .string("hardcover"))
        XCTAssertEqual(
            try diff([declared], [live]).text,
            """
            Book
              + field added: Boolean
              ~ field format: String, default "hardcover" → String, default "paperback"
              ~ field genre: Pointer<Shelf> → Pointer<Genre>
              - field subtitle: String
              ~ field title: String → String, required
              ~ field year: Number → String
            """)
    }

    func testADefaultOfTwoEqualsTwoPointZero() throws {
        let declared = try Self.schema(book(#""copies":{"type":"Number","defaultValue":2}"#))
        var live = declared
        live.fields[0].defaultValue = .double(2)
        XCTAssertTrue(SchemaDiff(declared: [declared], live: [live]).isEmpty)
    }

    func testParseOwnFieldsAndProtectedIndexesAreNoDifference() throws {
        let declaredUser = #"{"className":"_User","fields":{"nickname":{"type":"String"}},"indexes":{"nickname_1":{"nickname":1}}}"#
        let liveUser = #"""
            {"className":"_User","fields":{"username":{"type":"String"},"password":{"type":"String"},"email":{"type":"String"},
             "emailVerified":{"type":"Boolean"},"authData":{"type":"Object"},"nickname":{"type":"String"}},
             "indexes":{"_id_":{"_id":1},"username_1":{"username":1},"email_1":{"email":1},"case_insensitive_username":{"username":1},
                        "case_insensitive_email":{"email":1},"nickname_1":{"nickname":1}}}
            """#
        let liveRole =
            #"{"className":"_Role","fields":{"name":{"type":"String"},"users":{"type":"Relation","targetClass":"_User"},"roles":{"type":"Relation","targetClass":"_Role"}},"indexes":{"_id_":{"_id":1},"name_1":{"name":1}}}"#
        let declaredBook = book(#""title":{"type":"String"}"#, #","indexes":{"_id_":{"title":-1}}"#)
        XCTAssertTrue(try diff([declaredUser, #"{"className":"_Role"}"#, declaredBook], [liveUser, liveRole, book()]).isEmpty)
        XCTAssertTrue(
            try diff([book(), #"{"className":"PorterMigrations","fields":{"version":{"type":"String"}}}"#], [book()]).isEmpty,
            "migrate's bookkeeping classes are never compared")
        let onBook = try diff([book()], [book(#""title":{"type":"String"}"#, #","indexes":{"username_1":{"title":1}}"#)])
        XCTAssertEqual(onBook.classes.first?.indexes.map(\.name), ["username_1"], "username_1 is Parse's own on _User only")
    }

    func testIndexesAddedRemovedAndChangedWithKeyOrder() throws {
        let declared = book(
            #""title":{"type":"String"},"year":{"type":"Number"}"#,
            #","indexes":{"title_1":{"title":1},"both":{"title":1,"year":-1},"year_1":{"year":1}}"#)
        let live = book(
            #""title":{"type":"String"},"year":{"type":"Number"}"#,
            #","indexes":{"title_1":{"title":1.0},"both":{"year":-1,"title":1},"old":{"year":-1}}"#)
        let indexes = try XCTUnwrap(try diff([declared], [live]).classes.first).indexes
        XCTAssertEqual(indexes.map(\.name), ["both", "old", "year_1"], "1.0 is 1; a compound index's key order matters")
        XCTAssertEqual(indexes.map(\.change), [.changed, .removed, .added])
        XCTAssertEqual(
            try diff([declared], [live]).lines(of: try XCTUnwrap(try diff([declared], [live]).classes.first)),
            [
                #"~ index both: {"year": -1, "title": 1} → {"title": 1, "year": -1}"#,
                #"- index old: {"year": -1}"#,
                #"+ index year_1: {"year": 1}"#,
            ])
    }

    func testPermissionsAreComparedAsParseMeansThem() throws {
        let full =
            #","classLevelPermissions":{"find":{"*":true},"count":{"*":true},"get":{"*":true},"create":{"*":true},"update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}}"#
        XCTAssertTrue(try diff([book()], [book(#""title":{"type":"String"}"#, full)]).isEmpty, "a missing CLP is Parse's default")
        let partial = #","classLevelPermissions":{"find":{"role:Staff":true,"*":true},"get":{"*":true}}"#
        let spelledOut =
            #","classLevelPermissions":{"find":{"*":true,"role:Staff":true},"count":{},"get":{"*":true},"create":{},"update":{},"delete":{},"addField":{},"protectedFields":{}}"#
        XCTAssertTrue(
            try diff([book(#""title":{"type":"String"}"#, partial)], [book(#""title":{"type":"String"}"#, spelledOut)]).isEmpty,
            "an omitted operation is {}, entries in any order, an empty protectedFields entry protects nothing")
        let changed = try diff([book(#""title":{"type":"String"}"#, partial)], [book(#""title":{"type":"String"}"#, full)])
        let permissions = try XCTUnwrap(changed.classes.first).classLevelPermissions
        XCTAssertEqual(permissions.map(\.name), ["find", "count", "create", "update", "delete", "addField"])
        XCTAssertEqual(permissions.first?.declared, try JSONParser.parse(#"{"*":true,"role:Staff":true}"#))
        XCTAssertEqual(permissions.first?.live, try JSONParser.parse(#"{"*":true}"#))
        XCTAssertEqual(
            changed.lines(of: try XCTUnwrap(changed.classes.first)).first, #"~ classLevelPermissions.find: {"*": true} → {"*": true, "role:Staff": true}"#)
    }

    /// The JSON shape Docs/Schemas.md documents, key for key. (`protectedFields` is no
    /// difference: `{"*": []}` protects nothing, as `{}` does.)
    func testJSONShape() throws {
        let result = try diff(
            [
                book(#""title":{"type":"String"},"pages":{"type":"Number"}"#, #","classLevelPermissions":{"find":{"*":true}}"#),
                #"{"className":"Loan","fields":{}}"#,
            ],
            [book(#""title":{"type":"String"}"#, #","indexes":{"title_1":{"title":1}}"#)])
        XCTAssertEqual(
            result.json.serialized(),
            #"""
            {"matches":false,"differences":9,"classes":[\#
            {"className":"Book","change":"changed","declared":null,"live":null,\#
            "fields":[{"name":"pages","change":"added","declared":{"type":"Number"},"live":null}],\#
            "indexes":[{"name":"title_1","change":"removed","declared":null,"live":{"title":1}}],\#
            "classLevelPermissions":[\#
            {"name":"count","change":"changed","declared":{},"live":{"*":true}},\#
            {"name":"get","change":"changed","declared":{},"live":{"*":true}},\#
            {"name":"create","change":"changed","declared":{},"live":{"*":true}},\#
            {"name":"update","change":"changed","declared":{},"live":{"*":true}},\#
            {"name":"delete","change":"changed","declared":{},"live":{"*":true}},\#
            {"name":"addField","change":"changed","declared":{},"live":{"*":true}}]},\#
            {"className":"Loan","change":"added",\#
            "declared":{"className":"Loan","fields":{"objectId":{"type":"String"},"createdAt":{"type":"Date"},"updatedAt":{"type":"Date"},"ACL":{"type":"ACL"}},\#
            "classLevelPermissions":{"find":{"*":true},"count":{"*":true},"get":{"*":true},"create":{"*":true},"update":{"*":true},"delete":{"*":true},"addField":{"*":true},"protectedFields":{"*":[]}}},\#
            "live":null,"fields":[],"indexes":[],"classLevelPermissions":[]}]}
            """#)
    }

    func testJUnitHasACaseForEveryClassAndEscapesXML() throws {
        let result = try diff(
            [book(#""title":{"type":"String","defaultValue":"<b> & \"quoted\"\u0001"}"#), #"{"className":"Genre"}"#],
            [book(), #"{"className":"Genre"}"#, #"{"className":"Shelf"}"#])
        let report = result.junit
        XCTAssertEqual(report.suiteName, "schema check")
        XCTAssertEqual(report.cases.map(\.name), ["Book", "Genre", "Shelf"])
        XCTAssertEqual(report.cases.map { $0.failure?.message }, ["1 difference", nil, "1 difference"])
        XCTAssertTrue(report.xml.contains(#"<testsuite name="schema check" tests="3" failures="2">"#), report.xml)
        XCTAssertTrue(
            report.xml.contains(#"~ field title: String → String, default &quot;&lt;b&gt; &amp; \&quot;quoted\&quot;\u0001&quot;</failure>"#), report.xml)
    }
}

/// Compound indexes as a Parse Server on PostgreSQL lists them: its `_SCHEMA` keeps `indexes`
/// as `jsonb`, which puts shorter keys first, so `/schemas` loses the order of an index's keys
/// (the PostgreSQL index keeps it). Recorded from Parse Server 7.1.0 after pushing
/// `pushed-schema.json` (`Fixtures/parse-server-7.1.0/compound-index`).
final class JSONBIndexOrderTests: XCTestCase {
    private let folder = PackageFolders.fixtures.appendingPathComponent("parse-server-7.1.0/compound-index")

    private func recorded() throws -> (declared: [ClassSchema], live: [ClassSchema]) {
        let declared = try SchemaDocument.read(folder.appendingPathComponent("pushed-schema.json").path).classes
        let live = try ClassSchema(schemaJSON: JSONParser.parse(bytes: Array(Data(contentsOf: folder.appendingPathComponent("get-schemas-Tune.json")))))
        return (declared, [live])
    }

    /// Against the server's answer, check found two changed indexes for ever and every push
    /// dropped and rebuilt them; told that the keys come in jsonb's order, they match.
    func testAServersJSONBOrderMatchesTheDeclaredOrder() throws {
        let (declared, live) = try recorded()
        let strict = SchemaDiff(declared: declared, live: live)
        XCTAssertEqual(strict.classes.first?.indexes.map(\.name), ["by_artist_title", "by_title_year"])
        let diff = SchemaDiff(declared: declared, live: live, liveIndexKeysInJSONBOrder: true)
        XCTAssertTrue(diff.isEmpty, diff.text)
        XCTAssertEqual(try SchemaPush(diff: diff, options: SchemaPushOptions()).requestCount, 0)
    }

    /// A real difference is still one: other keys, other kinds, or an order that is not jsonb's.
    func testOtherKeysStillDiffer() throws {
        let declared = try SchemaDiffTests.schema(#"{"className":"Tune","indexes":{"i":{"title":1,"year":1}}}"#)
        for live in [#"{"year":1,"title":-1}"#, #"{"year":1,"artist":1}"#, #"{"year":1}"#, #"{"title":1,"year":1,"artist":1}"#] {
            let server = try SchemaDiffTests.schema(#"{"className":"Tune","indexes":{"i":\#(live)}}"#)
            XCTAssertFalse(SchemaDiff(declared: [declared], live: [server], liveIndexKeysInJSONBOrder: true).isEmpty, live)
        }
        // Keys not in jsonb's order were kept as the index has them (Parse Server on MongoDB): the order counts.
        let mongo = try SchemaDiffTests.schema(#"{"className":"Tune","indexes":{"i":{"title":1,"year":1}}}"#)
        let swapped = try SchemaDiffTests.schema(#"{"className":"Tune","indexes":{"i":{"year":1,"title":1}}}"#)
        XCTAssertFalse(SchemaDiff(declared: [swapped], live: [mongo], liveIndexKeysInJSONBOrder: true).isEmpty)
    }

    /// `jsonbOrder` puts keys as the recorded `_SCHEMA` row has them.
    func testJSONBOrderIsPostgreSQLs() throws {
        let row = try JSONParser.parse(bytes: Array(Data(contentsOf: folder.appendingPathComponent("_SCHEMA-Tune-indexes.json"))))
        guard case .object(let indexes) = row else { return XCTFail("\(row)") }
        for index in indexes {
            guard case .object(let keys) = index.value else { continue }
            let names = keys.members.map(\.key)
            XCTAssertEqual(IndexKeys.jsonbOrder(names.reversed()), names)
        }
        XCTAssertEqual(IndexKeys.jsonbOrder(["bb", "a", "ab", "é", "z"]), ["a", "z", "ab", "bb", "é"])
    }
}
