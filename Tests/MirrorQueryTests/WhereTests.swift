import MirrorQuery
import ParseModel
import XCTest

/// `where` operators against the library mirror (master key, insertion order).
final class WhereTests: LibraryMirrorTestCase {
    func testEqualityByFieldType() {
        XCTAssertEqual(books(where: #"{"title":"Dune"}"#), ["b3"])
        XCTAssertEqual(books(where: #"{"year":1937}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"price":12.5}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"price":15.0}"#), ["b3"])
        XCTAssertEqual(books(where: #"{"inPrint":false}"#), ["b3", "b5", "b6"])
        XCTAssertEqual(books(where: #"{"released":{"__type":"Date","iso":"1965-08-01T00:00:00.000Z"}}"#), ["b3"])
        XCTAssertEqual(books(where: #"{"genre":{"__type":"Pointer","className":"Genre","objectId":"g2"}}"#), ["b3", "b4"])
        XCTAssertEqual(books(where: #"{"genre":{"__type":"Pointer","className":"Author","objectId":"g2"}}"#), [])
        XCTAssertEqual(books(where: #"{"objectId":"b2"}"#), ["b2"])
        XCTAssertEqual(books(where: #"{"createdAt":{"__type":"Date","iso":"2024-01-02T00:00:00.000Z"}}"#), ["b2"])
        XCTAssertEqual(books(where: #"{"price":null}"#), ["b4"])
        XCTAssertEqual(books(where: #"{"title":1937}"#), [], "a value of another type never matches")
        XCTAssertEqual(books(where: #"{"year":"1937"}"#), [])
    }

    func testEqualityOnArrayMeansMembership() {
        XCTAssertEqual(books(where: #"{"tags":"classic"}"#), ["b1", "b3"])
        XCTAssertEqual(books(where: #"{"tags":{"$eq":"magic"}}"#), ["b2"])
        XCTAssertEqual(books(where: #"{"tags":["scifi"]}"#), ["b4"], "an array value matches the whole array")
        XCTAssertEqual(books(where: #"{"tags":{"$ne":"classic"}}"#), ["b2", "b4", "b5", "b6"])
    }

    func testUnknownFieldIsAlwaysMissing() {
        XCTAssertEqual(books(where: #"{"subtitle":"x"}"#), [])
        XCTAssertEqual(books(where: #"{"subtitle":{"$exists":false}}"#), ["b1", "b2", "b3", "b4", "b5", "b6"])
        XCTAssertEqual(books(where: #"{"subtitle":{"$exists":true}}"#), [])
        XCTAssertEqual(books(where: #"{"subtitle":{"$ne":"x"}}"#).count, 6)
    }

    func testComparisons() {
        XCTAssertEqual(books(where: #"{"year":{"$gt":1968}}"#), ["b4", "b5", "b6"])
        XCTAssertEqual(books(where: #"{"year":{"$gte":1968,"$lt":1977}}"#), ["b2", "b4"])
        XCTAssertEqual(books(where: #"{"year":{"$lte":1937}}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"price":{"$lt":10}}"#), ["b2", "b6"])
        XCTAssertEqual(books(where: #"{"price":{"$gt":12.49}}"#), ["b1", "b3", "b5"])
        XCTAssertEqual(books(where: #"{"title":{"$gt":"T"}}"#), ["b1", "b4", "b5"])
        XCTAssertEqual(books(where: #"{"released":{"$lt":{"__type":"Date","iso":"1966-01-01T00:00:00Z"}}}"#), ["b1", "b3"])
        XCTAssertEqual(books(where: #"{"createdAt":{"$gte":{"__type":"Date","iso":"2024-01-05T00:00:00.000Z"}}}"#), ["b5", "b6"])
        XCTAssertEqual(books(where: #"{"updatedAt":{"$lt":{"__type":"Date","iso":"2024-01-02"}}}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"objectId":{"$gt":"b4"}}"#), ["b5", "b6"])
        XCTAssertEqual(books(where: #"{"released":{"$lt":"1966-01-01"}}"#), [], "dates compare with Date objects only")
    }

    func testNotEqualInAndExists() {
        XCTAssertEqual(books(where: #"{"title":{"$ne":"Dune"}}"#), ["b1", "b2", "b4", "b5", "b6"])
        XCTAssertEqual(books(where: #"{"price":{"$ne":12.5}}"#), ["b2", "b3", "b4", "b5", "b6"], "$ne matches missing values")
        XCTAssertEqual(books(where: #"{"year":{"$in":[1937,1965,1234]}}"#), ["b1", "b3"])
        XCTAssertEqual(books(where: #"{"year":{"$in":[]}}"#), [])
        XCTAssertEqual(books(where: #"{"price":{"$in":[12.5,null]}}"#), ["b1", "b4"])
        XCTAssertEqual(books(where: #"{"year":{"$nin":[1937,1965]}}"#), ["b2", "b4", "b5", "b6"])
        XCTAssertEqual(books(where: #"{"price":{"$nin":[12.5]}}"#), ["b2", "b3", "b4", "b5", "b6"])
        XCTAssertEqual(books(where: #"{"genre":{"$in":[{"__type":"Pointer","className":"Genre","objectId":"g3"}]}}"#), ["b6"])
        XCTAssertEqual(books(where: #"{"price":{"$exists":true}}"#), ["b1", "b2", "b3", "b5", "b6"])
        XCTAssertEqual(books(where: #"{"released":{"$exists":false}}"#), ["b4", "b6"])
    }

    func testArrayOperators() {
        XCTAssertEqual(books(where: #"{"tags":{"$all":["classic","fantasy"]}}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"tags":{"$all":[]}}"#), [])
        XCTAssertEqual(books(where: #"{"tags":{"$all":[{"$regex":"^cla"},{"$regex":"^sci"}]}}"#), ["b3"])
        XCTAssertEqual(books(where: #"{"tags":{"$in":["magic","scifi"]}}"#), ["b2", "b3", "b4"])
        XCTAssertEqual(books(where: #"{"tags":{"$nin":["classic","scifi"]}}"#), ["b2", "b5", "b6"])
        XCTAssertEqual(books(where: #"{"tags":{"$containedBy":["fantasy","magic","classic"]}}"#), ["b1", "b2", "b5"])
        XCTAssertEqual(books(where: #"{"tags":{"$gt":"s"}}"#), ["b3", "b4"], "comparisons match any element")
    }

    func testRegex() {
        XCTAssertEqual(books(where: #"{"title":{"$regex":"\\QThe H\\E"}}"#), ["b1"], "ParseSwift's containsString")
        XCTAssertEqual(books(where: #"{"title":{"$regex":"\\Q.\\E"}}"#), [], "\\Q…\\E quotes metacharacters")
        XCTAssertEqual(books(where: #"{"title":{"$regex":"^the"}}"#), [])
        XCTAssertEqual(books(where: #"{"title":{"$regex":"^the","$options":"i"}}"#), ["b1", "b4", "b5"])
        XCTAssertEqual(books(where: #"{"title":{"$regex":"^ d u n e $","$options":"xi"}}"#), ["b3"])
        XCTAssertEqual(books(where: #"{"tags":{"$regex":"^sci"}}"#), ["b3", "b4"], "on an Array field: any element")
        XCTAssertEqual(books(where: #"{"objectId":{"$regex":"[12]$"}}"#), ["b1", "b2"])
        XCTAssertEqual(books(where: #"{"year":{"$regex":"19"}}"#), [], "regexes match strings only")
        XCTAssertEqual(ids("Review", #"{"where":{"text":{"$regex":"^and"}}}"#), [])
        XCTAssertEqual(ids("Review", #"{"where":{"text":{"$regex":"^and","$options":"m"}}}"#), ["r1"])
        XCTAssertEqual(ids("Review", #"{"where":{"text":{"$regex":"Lovely.and"}}}"#), [])
        XCTAssertEqual(ids("Review", #"{"where":{"text":{"$regex":"Lovely.and","$options":"s"}}}"#), ["r1"])
        assertError(.invalidQuery, "Bad $options value for query: q") { _ = try find("Book", #"{"where":{"title":{"$regex":"a","$options":"q"}}}"#) }
        assertError(.invalidJSON, "bad regex: 5") { _ = try find("Book", #"{"where":{"title":{"$regex":5}}}"#) }
        assertError(.invalidQuery, "Invalid regular expression: (") { _ = try find("Book", #"{"where":{"title":{"$regex":"("}}}"#) }
    }

    func testDottedKeysIntoObjectFields() {
        XCTAssertEqual(books(where: #"{"info.pages":{"$gt":200}}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"info.pages":183}"#), ["b2"])
        XCTAssertEqual(books(where: #"{"info.publisher.name":"Allen & Unwin"}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"info.publisher":{"$exists":true}}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"info.publisher.name":{"$regex":"unwin","$options":"i"}}"#), ["b1"])
        XCTAssertEqual(books(where: #"{"info.pages":"183"}"#), [])
        XCTAssertEqual(books(where: #"{"title.length":3}"#), [], "dotted keys into non-Object fields are missing")
    }

    func testLogicalOperators() {
        XCTAssertEqual(books(where: #"{"$or":[{"year":1937},{"title":"Dune"}]}"#), ["b1", "b3"])
        XCTAssertEqual(books(where: #"{"$and":[{"year":{"$gt":1960}},{"inPrint":true}]}"#), ["b2", "b4"])
        XCTAssertEqual(books(where: #"{"$nor":[{"inPrint":true},{"year":2001}]}"#), ["b3", "b5"])
        XCTAssertEqual(books(where: #"{"inPrint":true,"$or":[{"tags":"magic"},{"$and":[{"year":{"$lt":1950}},{"price":12.5}]}]}"#), ["b1", "b2"])
        assertError(.invalidQuery, "Bad $or format - use an array value.") { _ = try find("Book", #"{"where":{"$or":{"year":1}}}"#) }
        assertError(.invalidQuery, "Bad $and format - use an array value.") { _ = try find("Book", #"{"where":{"$and":"x"}}"#) }
        assertError(.invalidQuery, "Bad $nor format - use an array of at least 1 value.") { _ = try find("Book", #"{"where":{"$nor":[]}}"#) }
    }

    func testRelatedToAndRelationFields() {
        let related = #"{"where":{"$relatedTo":{"object":{"__type":"Pointer","className":"Book","objectId":"%@"},"key":"authors"}}}"#
        XCTAssertEqual(ids("Author", String(format: related, "b1")), ["a1"])
        XCTAssertEqual(ids("Author", String(format: related, "b2")), ["a2"])
        XCTAssertEqual(ids("Author", String(format: related, "b4")), [])
        XCTAssertEqual(ids("Author", #"{"where":{"$relatedTo":{"object":{"__type":"Pointer","className":"Book","objectId":"b1"},"key":"nope"}}}"#), [])
        XCTAssertEqual(
            ids(
                "Author",
                #"{"where":{"name":"Tolkien","$or":[{"$relatedTo":{"object":{"__type":"Pointer","className":"Book","objectId":"b5"},"key":"authors"}}]}}"#),
            ["a1"])
        XCTAssertEqual(books(where: #"{"authors":{"__type":"Pointer","className":"Author","objectId":"a1"}}"#), ["b1", "b5"])
        XCTAssertEqual(
            books(
                where:
                    #"{"authors":{"$in":[{"__type":"Pointer","className":"Author","objectId":"a2"},{"__type":"Pointer","className":"Author","objectId":"a3"}]}}"#
            ), ["b2", "b3"])
        XCTAssertEqual(books(where: #"{"authors":{"$ne":{"__type":"Pointer","className":"Author","objectId":"a1"}}}"#), ["b2", "b3", "b4", "b6"])
        assertError(.invalidQuery, "improper usage of $relatedTo") { _ = try find("Author", #"{"where":{"$relatedTo":{"key":"authors"}}}"#) }
    }

    func testInvalidConstraints() {
        assertError(.invalidQuery, "Cannot query on ACL.") { _ = try find("Book", #"{"where":{"ACL":{"*":{"read":true}}}}"#) }
        assertError(.invalidQuery, "Cannot query on ACL.") { _ = try find("Book", #"{"where":{"$or":[{"ACL":1}]}}"#) }
        assertError(.invalidKeyName, "Invalid key name: bad-key") { _ = try find("Book", #"{"where":{"bad-key":1}}"#, access: .anonymous) }
        assertError(.invalidKeyName, "Invalid key name: $where") { _ = try find("Book", #"{"where":{"$where":"1"}}"#) }
        assertError(.invalidJSON, "bad constraint: $foo") { _ = try find("Book", #"{"where":{"year":{"$foo":1}}}"#) }
        assertError(.invalidJSON, "bad $in value") { _ = try find("Book", #"{"where":{"year":{"$in":1937}}}"#) }
        assertError(.invalidJSON, "bad $all value") { _ = try find("Book", #"{"where":{"tags":{"$all":"x"}}}"#) }
        assertError(.invalidJSON, "bad $containedBy: should be an array") { _ = try find("Book", #"{"where":{"tags":{"$containedBy":"x"}}}"#) }
        assertError(.invalidJSON, "bad $nearSphere value; should be a GeoPoint") { _ = try find("Book", #"{"where":{"info":{"$nearSphere":{}}}}"#) }
        assertError(.invalidQuery, "$relativeTime is not supported by the mirror") { _ = try find("Book", #"{"where":{"year":{"$relativeTime":"in 1 day"}}}"#) }
        XCTAssertEqual(books(where: #"{"bad-key":1}"#), [], "the master key may use any key name")
    }

    func testValuesAreBoundNotSpliced() {
        XCTAssertEqual(books(where: #"{"title":"x' OR 1=1 --"}"#), [])
        XCTAssertEqual(books(where: #"{"info.x\") OR 1=1 --":1}"#), [])
    }
}
