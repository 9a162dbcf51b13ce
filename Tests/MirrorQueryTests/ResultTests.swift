import MirrorQuery
import ParseModel
import XCTest

/// What queries return: object JSON, order, paging, count, projection and includes.
final class ResultTests: LibraryMirrorTestCase {
    func testObjectJSON() throws {
        let hobbit = try XCTUnwrap(reader.get(className: "Book", objectId: "b1", keys: nil, include: [], schemas: schemas, access: .master))
        XCTAssertEqual(
            JSONValue.object(hobbit).serialized(),
            #"""
            {"objectId":"b1","title":"The Hobbit","year":1937,"price":12.5,"inPrint":true,\#
            "released":{"__type":"Date","iso":"1937-09-21T00:00:00.000Z"},\#
            "genre":{"__type":"Pointer","className":"Genre","objectId":"g1"},"tags":["classic","fantasy"],\#
            "info":{"pages":310,"publisher":{"name":"Allen & Unwin"}},"authors":{"__type":"Relation","className":"Author"},\#
            "createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-01-01T00:00:00.000Z"}
            """#)
        let dispossessed = try XCTUnwrap(reader.get(className: "Book", objectId: "b4", keys: nil, include: [], schemas: schemas, access: .master))
        XCTAssertNil(dispossessed["price"], "null fields are omitted")
        XCTAssertNil(dispossessed["released"])
        XCTAssertEqual(dispossessed["ACL"], json(#"{"u1":{"read":true}}"#))
        XCTAssertNil(try reader.get(className: "Book", objectId: "nope", keys: nil, include: [], schemas: schemas, access: .master))
    }

    func testOrder() {
        XCTAssertEqual(ids("Book"), ["b1", "b2", "b3", "b4", "b5", "b6"], "insertion order by default")
        XCTAssertEqual(ids("Book", #"{"order":"-year"}"#), ["b6", "b5", "b4", "b2", "b3", "b1"])
        XCTAssertEqual(ids("Book", #"{"order":"inPrint,-year"}"#), ["b6", "b5", "b3", "b4", "b2", "b1"])
        XCTAssertEqual(ids("Book", #"{"order":["-inPrint","price"]}"#), ["b4", "b2", "b1", "b6", "b3", "b5"], "missing values sort first")
        XCTAssertEqual(ids("Book", #"{"order":"-createdAt"}"#), ["b6", "b5", "b4", "b3", "b2", "b1"])
        XCTAssertEqual(ids("Book", #"{"order":"-_created_at"}"#), ["b6", "b5", "b4", "b3", "b2", "b1"])
        XCTAssertEqual(ids("Book", #"{"order":"-info.pages,title"}"#), ["b1", "b2", "b3", "b6", "b4", "b5"])
        XCTAssertEqual(ids("Book", #"{"order":"nothing,-title"}"#), ["b5", "b1", "b4", "b6", "b3", "b2"], "unknown keys are dropped")
        XCTAssertEqual(ids("Book", #"{"order":"authors,-objectId"}"#), ["b6", "b5", "b4", "b3", "b2", "b1"], "relations are dropped")
        assertError(.invalidKeyName, "Invalid field name: bad-key.") { _ = try find("Book", #"{"order":"-bad-key"}"#) }
    }

    func testLimitSkipAndCount() throws {
        XCTAssertEqual(ids("Book", #"{"order":"year","limit":2}"#), ["b1", "b3"])
        XCTAssertEqual(ids("Book", #"{"order":"year","limit":"2","skip":"1"}"#), ["b3", "b2"])
        XCTAssertEqual(ids("Book", #"{"skip":5}"#), ["b6"])
        XCTAssertEqual(ids("Book", #"{"skip":10}"#), [])
        let counted = try find("Book", #"{"where":{"year":{"$gt":1950}},"limit":1,"skip":1,"count":1}"#)
        XCTAssertEqual(counted.results.map { $0["objectId"] }, [.string("b3")])
        XCTAssertEqual(counted.count, 5, "count ignores limit and skip")
        let onlyCount = try find("Book", #"{"limit":0,"count":true}"#)
        XCTAssertEqual(onlyCount.results.count, 0)
        XCTAssertEqual(onlyCount.count, 6)
        XCTAssertNil(try find("Book", #"{"count":0}"#).count)
        XCTAssertEqual(try find("Book", #"{"count":"1"}"#).count, 6)

        reader = try MirrorReader(database: database, maxLimit: 3)
        XCTAssertEqual(ids("Book", #"{"limit":1000}"#), ["b1", "b2", "b3"], "limits above maxLimit are lowered")
        XCTAssertEqual(ids("Book", #"{"limit":2}"#), ["b1", "b2"])
    }

    func testDefaultLimitIs100() throws {
        try database.execute("BEGIN")
        let insert = try database.prepare(
            "INSERT INTO Genre (objectId, createdAt, updatedAt, name) VALUES (?1, '2024-02-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z', 'x')")
        for i in 0..<150 {
            insert.bind(text: "x\(i)", at: 1)
            try insert.run()
        }
        try database.execute("COMMIT")
        XCTAssertEqual(ids("Genre").count, 100)
        XCTAssertEqual(try find("Genre", #"{"count":1}"#).count, 153)
    }

    func testKeysAndExcludeKeys() throws {
        let titled = try find("Book", #"{"where":{"objectId":"b3"},"keys":"title,year"}"#).results
        XCTAssertEqual(titled.first?.keys, ["objectId", "title", "year", "authors", "createdAt", "updatedAt", "ACL"])
        let arrayKeys = try find("Book", #"{"where":{"objectId":"b1"},"keys":["price","info.pages"]}"#).results
        XCTAssertEqual(arrayKeys.first?.keys, ["objectId", "price", "info", "authors", "createdAt", "updatedAt"])
        let excluded = try find("Book", #"{"where":{"objectId":"b1"},"excludeKeys":"tags,info,objectId"}"#).results
        XCTAssertEqual(excluded.first?.keys, ["objectId", "title", "year", "price", "inPrint", "released", "genre", "authors", "createdAt", "updatedAt"])
    }

    func testInclude() throws {
        let book = try XCTUnwrap(find("Book", #"{"where":{"objectId":"b1"},"include":"genre"}"#).results.first)
        XCTAssertEqual(
            book["genre"],
            json(
                """
                {"objectId":"g1","name":"Fantasy","createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-01-01T00:00:00.000Z",\
                "__type":"Object","className":"Genre"}
                """))
        XCTAssertEqual(book["title"], .string("The Hobbit"), "other fields stay in place")
        let all = try XCTUnwrap(find("Book", #"{"where":{"objectId":"b1"},"include":"*"}"#).results.first)
        XCTAssertEqual(all["genre"], book["genre"])

        let review = try XCTUnwrap(reader.get(className: "Review", objectId: "r1", keys: nil, include: ["book.genre"], schemas: schemas, access: .master))
        XCTAssertEqual(review["book"]?["__type"], .string("Object"))
        XCTAssertEqual(review["book"]?["title"], .string("The Hobbit"))
        XCTAssertEqual(review["book"]?["genre"]?["name"], .string("Fantasy"))
        XCTAssertEqual(review["book"]?["genre"]?["className"], .string("Genre"))

        let projected = try XCTUnwrap(find("Review", #"{"where":{"objectId":"r1"},"keys":["book.title","text"]}"#).results.first)
        XCTAssertEqual(projected["book"]?["title"], .string("The Hobbit"), "keys book.title include book")
        XCTAssertEqual(
            projected["book"].map { if case .object(let o) = $0 { o.keys } else { [] } },
            ["objectId", "title", "authors", "createdAt", "updatedAt", "__type", "className"])

        let lost = try XCTUnwrap(find("Review", #"{"where":{"objectId":"r4"},"include":"book"}"#).results.first)
        XCTAssertEqual(lost["book"], json(#"{"__type":"Pointer","className":"Book","objectId":"gone"}"#), "a missing target stays a pointer")
    }

    func testIncludeFollowsPointersInArrays() throws {
        try database.execute(
            """
            UPDATE Book SET info = '{"related":[{"__type":"Pointer","className":"Genre","objectId":"g3"},"x"]}' WHERE objectId = 'b2'
            """)
        let book = try XCTUnwrap(find("Book", #"{"where":{"objectId":"b2"},"include":"info.related"}"#).results.first)
        XCTAssertEqual(
            book["info"]?["related"],
            json(
                """
                [{"objectId":"g3","name":"Horror","createdAt":"2024-01-01T00:00:00.000Z","updatedAt":"2024-01-01T00:00:00.000Z",\
                "__type":"Object","className":"Genre"},"x"]
                """))
    }

    func testMissingClass() throws {
        let result = try find("Nothing", #"{"where":{"a":1},"count":1}"#)
        XCTAssertEqual(result.results.count, 0)
        XCTAssertEqual(result.count, 0)
    }
}
