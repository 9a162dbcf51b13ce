import ParseModel
import PorterREST
import XCTest

@testable import PorterMigrations

/// Paging by objectId and batching by 50, in steps small enough to see.
final class PagingTests: XCTestCase {
    /// `count` Author objects named "Author 0"…, created in `/batch` requests.
    private func authors(_ count: Int, on api: ParseAPI) throws {
        _ = try blocking { try await api.send("POST", "/schemas/Author", body: json(#"{"fields":{"name":{"type":"String"}}}"#)) }
        for start in stride(from: 0, to: count, by: 50) {
            let requests = (start..<min(start + 50, count)).map { #"{"method":"POST","path":"/parse/classes/Author","body":{"name":"Author \#($0)"}}"# }
            _ = try blocking { try await api.send("POST", "/batch", body: json(#"{"requests":[\#(requests.joined(separator: ","))]}"#)) }
        }
    }

    func testThePagerSeesEachMatchingObjectOnceInObjectIdOrder() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            try authors(5, on: fixture.target.api)
            let pager = ObjectPager(api: fixture.target.api, pageSize: 2)
            var pages: [[String]] = []
            try blocking {
                try await pager.forEachPage(of: "Author", where: try jsonObject(#"{"name":{"$ne":"Author 3"}}"#), keys: ["name"]) { page in
                    pages.append(page.compactMap { $0["objectId"]?.stringValue })
                }
            }
            XCTAssertEqual(pages.map(\.count), [2, 2], label)
            let ids = try fixture.rows("SELECT objectId FROM Author WHERE name <> 'Author 3' ORDER BY objectId").compactMap { $0[0] }
            XCTAssertEqual(pages.flatMap { $0 }, ids, label)

            var narrowed: [String] = []
            try blocking {
                try await pager.forEachPage(of: "Author", where: try jsonObject(#"{"objectId":{"$ne":"\#(ids[0])"}}"#), keys: []) { page in
                    narrowed += page.compactMap { $0["objectId"]?.stringValue }
                }
            }
            XCTAssertEqual(narrowed.count, 4, "\(label): a where on objectId is kept beside the paging constraint")
        }
    }

    func testDeletingWhilePagingSkipsNothing() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            try authors(7, on: fixture.target.api)
            var runner = OperationRunner(target: fixture.target, migrationsFolder: ".")
            runner.pager.pageSize = 2
            let deleted = try blocking { try await runner.apply(.deleteObjects(className: "Author", where: JSONObject())) }
            XCTAssertEqual(deleted.objectsWritten, 7, "\(label): \(deleted.summary)")
            XCTAssertEqual(try fixture.rows("SELECT count(*) FROM Author"), [["0"]], label)
        }
    }

    func testLinksToMoreThanFiftyDeletedObjectsAreAllRemoved() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            let api = fixture.target.api
            try authors(60, on: api)
            let ids = try fixture.rows("SELECT objectId FROM Author").compactMap { $0[0] }
            let pointers = ids.map { #"{"__type":"Pointer","className":"Author","objectId":"\#($0)"}"# }.joined(separator: ",")
            _ = try blocking { try await api.send("POST", "/classes/Shelf", body: json(#"{"authors":{"__op":"AddRelation","objects":[\#(pointers)]}}"#)) }
            XCTAssertEqual(try fixture.rows(#"SELECT count(*) FROM "_Join:authors:Shelf""#), [["60"]], label)
            _ = try blocking {
                try await OperationRunner(target: fixture.target, migrationsFolder: ".").apply(.deleteObjects(className: "Author", where: JSONObject()))
            }
            XCTAssertEqual(try fixture.rows(#"SELECT count(*) FROM "_Join:authors:Shelf""#), [["0"]], label)
        }
    }

    func testUpdatesGoOutInBatchesOfFifty() throws {
        for fixture in try TargetFixture.all(in: self) {
            let label = "\(fixture.kind)"
            try authors(120, on: fixture.target.api)
            let requests = { (fixture.target as? ServerTarget)?.client.requestTallies.first { $0.phase == "migrate" }?.requests ?? 0 }
            let before = requests()
            let updated = try blocking {
                try await OperationRunner(target: fixture.target, migrationsFolder: ".")
                    .apply(
                        .updateObjects(
                            className: "Author", where: try jsonObject(#"{"name":{"$ne":"Author 7"}}"#), set: try jsonObject(#"{"name":"Anonymous"}"#)))
            }
            XCTAssertEqual(updated.objectsWritten, 119, "\(label): \(updated.summary)")
            XCTAssertEqual(
                try fixture.rows("SELECT name, count(*) FROM Author GROUP BY name ORDER BY name"), [["Anonymous", "119"], ["Author 7", "1"]], label)
            if fixture.kind == .server {
                XCTAssertEqual(requests() - before, 1 + 2 + 3, "the schema, a page and the empty page after it, /batch requests of 50, 50 and 19")
            }
        }
    }
}
