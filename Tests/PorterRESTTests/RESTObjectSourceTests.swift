import Foundation
import ParseMirrorServer
import ParseModel
import PorterPipeline
import XCTest

@testable import PorterREST

/// ``RESTObjectSource`` against a real served mirror on a free loopback port.
final class RESTObjectSourceTests: XCTestCase {
    private var server: ServedMirror!
    private var url: String { server.url }

    override func setUpWithError() throws {
        server = try ServedMirror(in: self, configuration: ParseServerConfiguration(applicationId: "app", masterKey: "mk", allowCustomObjectId: true))
    }

    private var mirrorPath: String { server.path }

    private func client(masterKey: String? = "mk", restKey: String? = nil) throws -> ParseRESTClient {
        ParseRESTClient(
            address: try ParseServerAddress(url: url, applicationId: "app", masterKey: masterKey, restAPIKey: restKey),
            timeout: 5, retry: RetryPolicy(attempts: 2, initialDelay: 0.01, maximumDelay: 0.02))
    }

    private static func itemId(_ index: Int) -> String { String(format: "i%03d", index) }
    private static func personId(_ index: Int) -> String { String(format: "p%03d", index) }
    private static func pointer(_ className: String, _ id: String) -> JSONValue {
        ParseValue.pointer(PointerRef(className: className, objectId: id)).wireJSON
    }
    private static let when = ParseDate(millisecondsSince1970: 1_700_000_000_123)

    /// `people` Persons p000…, then `items` Items i000… with `n` = index, a title, a Date, an
    /// Array, an owner Pointer, an ACL on even ones, and `friends` links to the people `links(index)` names.
    private func seed(items: Int, people: Int, links: (Int) -> [Int] = { _ in [] }) throws {
        let sender = BatchSender(client: try client(), batchSize: 50, concurrency: 2)
        let persons = (0..<people).map {
            BatchOperation(
                method: "POST", path: "/classes/Person",
                body: JSONObject([
                    "objectId": .string(Self.personId($0)), "name": .string("Person \($0)"),
                ]))
        }
        let objects = (0..<items).map { index -> BatchOperation in
            var body = JSONObject([
                "objectId": .string(Self.itemId(index)), "n": .integer(Int64(index)), "title": .string("Item \(index)"),
                "when": ParseValue.date(Self.when).wireJSON, "tags": .array([.string("t"), .integer(Int64(index))]),
            ])
            if people > 0 { body["owner"] = Self.pointer("Person", Self.personId(index % people)) }
            if index % 2 == 0 { body["ACL"] = .object(JSONObject(["*": .object(JSONObject(["read": .bool(true)]))])) }
            let related = links(index)
            if !related.isEmpty {
                body["friends"] = .object(
                    JSONObject([
                        "__op": .string("AddRelation"),
                        "objects": .array(related.map { Self.pointer("Person", Self.personId($0)) }),
                    ]))
            }
            return BatchOperation(method: "POST", path: "/classes/Item", body: body)
        }
        for result in try sender.send(persons, phase: "seed") + sender.send(objects, phase: "seed") {
            guard case .success = result else { return XCTFail("seeding failed: \(result)") }
        }
    }

    private func itemSchema(_ source: RESTObjectSource) throws -> ClassSchema {
        try XCTUnwrap(try source.schemas().first { $0.className == "Item" })
    }

    func testSchemasAsTheServerListsThemWithPermissionsAndIndexes() throws {
        try seed(items: 1, people: 1, links: { _ in [0] })
        let permissions =
            #"{"find":{"*":true},"count":{"*":true},"get":{"*":true},"create":{},"update":{},"delete":{},"addField":{},"protectedFields":{"*":[]}}"#
        let change = try JSONParser.parse(#"{"classLevelPermissions":\#(permissions),"indexes":{"title_1":{"title":1}}}"#)
        _ = try client().sendBlocking("PUT", "/schemas/Item", body: change, phase: "setup")
        let schema = try itemSchema(RESTObjectSource(client: try client()))
        XCTAssertEqual(schema.field(named: "n")?.type, .number)
        XCTAssertEqual(schema.field(named: "owner")?.type, .pointer(targetClass: "Person"))
        XCTAssertEqual(schema.field(named: "friends")?.type, .relation(targetClass: "Person"))
        XCTAssertEqual(schema.classLevelPermissions, try JSONParser.parse(permissions))
        XCTAssertEqual(schema.indexes?["title_1"], try JSONParser.parse(#"{"title":1}"#))
        XCTAssertEqual(schema.storedFields.map(\.name), ["n", "title", "when", "tags", "owner"])
    }

    func testSchemasNeedTheMasterKey() throws {
        let source = RESTObjectSource(client: try client(masterKey: nil, restKey: "rest"))
        XCTAssertThrowsError(try source.schemas()) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .target)
            XCTAssertTrue((error as? PorterError)?.message.contains("needs the master key") ?? false, "\(error)")
        }
    }

    /// 35 objects in pages of 10: four queries, each object once, every value typed as the schema says.
    func testObjectsArePagedByObjectIdAcrossPages() throws {
        try seed(items: 35, people: 3)
        let client = try client()
        let source = RESTObjectSource(client: client, concurrency: 2, pageSize: 10)
        let schema = try itemSchema(source)
        var pages: [[StoredObject]] = []
        try source.readObjects(of: schema, matching: nil) { pages.append($0) }
        XCTAssertEqual(pages.map(\.count), [10, 10, 10, 5])
        let objects = pages.flatMap { $0 }
        XCTAssertEqual(objects.map(\.objectId), (0..<35).map(Self.itemId))
        XCTAssertEqual(client.requestTallies.first { $0.phase == "read Item" }?.requests, 4)
        let seventh = objects[7]
        XCTAssertEqual(
            seventh.values,
            [
                .integer(7), .string("Item 7"), .date(Self.when), .array([.string("t"), .integer(7)]),
                .pointer(PointerRef(className: "Person", objectId: "p001")),
            ])
        XCTAssertNil(seventh.acl)
        XCTAssertEqual(objects[8].acl, ParseACL(["*": .init(read: true, write: false)]))
        let stored = try client.sendBlocking("GET", "/classes/Item/i007", phase: "check")
        XCTAssertEqual(seventh.createdAt?.iso, stored["createdAt"].flatMap { if case .string(let s) = $0 { s } else { nil } })
        XCTAssertEqual(seventh.updatedAt?.iso, stored["updatedAt"].flatMap { if case .string(let s) = $0 { s } else { nil } })
    }

    /// The caller's `where` holds on every page, also when it constrains the objectId itself.
    func testWhereFiltersCombineWithPaging() throws {
        try seed(items: 35, people: 0)
        let source = RESTObjectSource(client: try client(), concurrency: 2, pageSize: 10)
        let schema = try itemSchema(source)
        func ids(_ constraints: JSONObject?) throws -> [String] {
            var found: [String] = []
            try source.readObjects(of: schema, matching: constraints) { found += $0.map(\.objectId) }
            return found
        }
        let atLeast12 = try JSONParser.parse(#"{"n":{"$gte":12}}"#)
        guard case .object(let byNumber) = atLeast12 else { return XCTFail() }
        XCTAssertEqual(try ids(byNumber), (12..<35).map(Self.itemId))
        XCTAssertEqual(try source.count(of: schema, matching: byNumber), 23)
        XCTAssertEqual(try source.count(of: schema, matching: nil), 35)
        let chosen = stride(from: 1, to: 35, by: 2).map(Self.itemId)
        let byId = JSONObject(["objectId": .object(JSONObject(["$in": .array(chosen.map(JSONValue.string))]))])
        XCTAssertEqual(try ids(byId), chosen, "the objectId constraint and the paging one both hold ($and)")
        XCTAssertEqual(
            RESTReader.constraints(byId, after: "i005"),
            JSONObject(["$and": .array([.object(byId), .object(JSONObject(["objectId": .object(JSONObject(["$gt": .string("i005")]))]))])]))
    }

    func testObjectIdsAndTheNewestUpdate() throws {
        try seed(items: 25, people: 0)
        let client = try client()
        let source = RESTObjectSource(client: client, concurrency: 2, pageSize: 10)
        var pages: [[String]] = []
        try source.readObjectIds(of: "Item") { pages.append($0) }
        XCTAssertEqual(pages.map(\.count), [10, 10, 5])
        XCTAssertEqual(pages.flatMap { $0 }, (0..<25).map(Self.itemId))
        Thread.sleep(forTimeInterval: 0.01)
        let updated = try client.sendBlocking("PUT", "/classes/Item/i004", body: .object(JSONObject(["title": .string("changed")])), phase: "setup")
        guard case .string(let updatedAt)? = updated["updatedAt"] else { return XCTFail("no updatedAt") }
        XCTAssertEqual(try source.newestUpdate(of: "Item")?.iso, updatedAt)
        XCTAssertNil(try source.newestUpdate(of: "Nothing"))
    }

    /// 60 owners (more than one /batch request of 50), one with 25 links (three pages of 10).
    func testLinksOfManyOwnersSortedAndPagedPerOwner() throws {
        let links: (Int) -> [Int] = { index in index == 0 ? Array(0..<25) : index % 3 == 0 ? [] : [index % 30, (index * 7) % 30] }
        try seed(items: 60, people: 30, links: links)
        let client = try client()
        let source = RESTObjectSource(client: client, concurrency: 3, pageSize: 10)
        let found = try source.links(owner: "Item", field: "friends", targetClass: "Person", ownerIds: (0..<60).reversed().map(Self.itemId))
        let expected = (0..<60).flatMap { index in Set(links(index)).sorted().map { RelationLink(owningId: Self.itemId(index), relatedId: Self.personId($0)) } }
        XCTAssertEqual(found, expected)
        // 60 first pages in two /batch requests, then two more pages for the owner with 25 links.
        XCTAssertEqual(client.requestTallies.first { $0.phase == "read Item.friends" }, RequestTally(phase: "read Item.friends", requests: 4, operations: 62))
    }

    /// A stored value the schema's type does not allow is an error naming class, object, field and value.
    func testAValueOfAnotherTypeIsAnErrorNamingIt() throws {
        try seed(items: 3, people: 0)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", mirrorPath, #"UPDATE Item SET tags = '{"a":1}' WHERE objectId = 'i001'"#]
        try sqlite.run()
        sqlite.waitUntilExit()
        XCTAssertEqual(sqlite.terminationStatus, 0)
        let source = RESTObjectSource(client: try client())
        XCTAssertThrowsError(try source.readObjects(of: try itemSchema(source), matching: nil) { _ in }) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .target)
            XCTAssertTrue((error as? PorterError)?.message.contains(#"Item i001: field tags: value {"a":1}: the schema says Array"#) ?? false, "\(error)")
        }
    }

    func testAnUnreachableServerIsATargetError() throws {
        server.stop()
        XCTAssertThrowsError(try RESTObjectSource(client: try client()).schemas()) { error in
            XCTAssertEqual((error as? PorterError)?.cause, .target)
            XCTAssertTrue((error as? PorterError)?.message.contains("connection refused") ?? false, "\(error)")
        }
    }
}
