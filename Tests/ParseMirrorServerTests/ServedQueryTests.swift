import Foundation
import ParseMirrorServer
import ParseModel
import PorterHTTP
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sub-queries, geo, full-text and aggregate queries sent over HTTP to a served mirror.
final class ServedQueryTests: XCTestCase {
    /// ``TestServer``'s API behind a real ``HTTPServer`` on a free loopback port.
    private final class Served {
        let server: TestServer

        init() throws { server = try TestServer(overHTTP: true) }

        /// `GET path?name=value…` (values URL-encoded), as the master, anonymous or a session.
        func get(_ path: String, _ parameters: [(String, String)], auth: TestServer.Auth = .anonymous) throws -> TestServer.Reply {
            server.send("GET", path, auth: auth, query: parameters)
        }

        /// The `field` of each result of `GET /classes/<className>?where=…` plus extra parameters.
        func find(
            _ className: String, _ whereJSON: String, _ field: String = "name", auth: TestServer.Auth = .anonymous,
            _ extra: [(String, String)] = [], file: StaticString = #filePath, line: UInt = #line
        ) throws -> [String] {
            let reply = try get("/classes/\(className)", [("where", whereJSON)] + extra, auth: auth)
            XCTAssertEqual(reply.status, 200, reply.json.serialized(), file: file, line: line)
            return reply.results.compactMap { $0[field]?.text }
        }
    }

    private static func pointer(_ className: String, _ id: String) -> String {
        #"{"__type":"Pointer","className":"\#(className)","objectId":"\#(id)"}"#
    }

    // MARK: Sub-queries

    func testInQueryAndNotInQuerySeeOnlyWhatTheCallerMayRead() throws {
        let served = try Served()
        let server = served.server
        let alice = server.signUp("alice")
        let open = server.create("Post", #"{"title":"open","hot":true}"#)
        let secret = server.create("Post", #"{"title":"secret","hot":true,"ACL":{"\#(alice.id)":{"read":true}}}"#)
        let cold = server.create("Post", #"{"title":"cold","hot":false}"#)
        server.create("Comment", #"{"name":"on open","post":\#(Self.pointer("Post", open))}"#)
        server.create("Comment", #"{"name":"on secret","post":\#(Self.pointer("Post", secret))}"#)
        server.create("Comment", #"{"name":"on cold","post":\#(Self.pointer("Post", cold))}"#)
        server.create("Comment", #"{"name":"loose"}"#)
        let hot = #"{"post":{"$inQuery":{"className":"Post","where":{"hot":true}}}}"#
        XCTAssertEqual(try served.find("Comment", hot), ["on open"], "the secret post must not be found through $inQuery")
        XCTAssertEqual(try served.find("Comment", hot, auth: .session(alice.token)), ["on open", "on secret"])
        XCTAssertEqual(try served.find("Comment", hot, auth: .master), ["on open", "on secret"])
        let notHot = #"{"post":{"$notInQuery":{"className":"Post","where":{"hot":true}}}}"#
        XCTAssertEqual(try served.find("Comment", notHot), ["on secret", "on cold", "loose"])
        XCTAssertEqual(try served.find("Comment", notHot, auth: .session(alice.token)), ["on cold", "loose"])
        // A pointer field of another target class never matches.
        XCTAssertEqual(try served.find("Comment", #"{"post":{"$inQuery":{"className":"Comment","where":{}}}}"#, auth: .master), [])
    }

    func testSubqueryObeysTheClassLevelFindPermission() throws {
        let served = try Served()
        let server = served.server
        let post = server.create("Post", #"{"title":"p"}"#)
        server.create("Comment", #"{"name":"c","post":\#(Self.pointer("Post", post)),"author":"p"}"#)
        let clp = #"{"classLevelPermissions":{"find":{"role:Staff":true},"get":{"*":true},"count":{},"create":{},"update":{},"delete":{},"addField":{}}}"#
        XCTAssertEqual(server.send("PUT", "/schemas/Post", clp).status, 200)
        XCTAssertParseError(
            try served.get("/classes/Comment", [("where", #"{"post":{"$inQuery":{"className":"Post","where":{}}}}"#)]),
            status: 400, code: .operationForbidden, message: "Permission denied for action find on class Post.")
        XCTAssertParseError(
            try served.get("/classes/Comment", [("where", #"{"author":{"$select":{"query":{"className":"Post","where":{}},"key":"title"}}}"#)]),
            status: 400, code: .operationForbidden)
        XCTAssertParseError(
            try served.get("/classes/Comment", [("where", #"{"post":{"$inQuery":{"className":"Nowhere","where":{}}}}"#)]),
            status: 400, code: .operationForbidden, message: "This user is not allowed to access non-existent class: Nowhere")
        XCTAssertEqual(try served.find("Comment", #"{"post":{"$inQuery":{"className":"Post","where":{}}}}"#, auth: .master), ["c"])
    }

    func testSelectAndDontSelect() throws {
        let served = try Served()
        let server = served.server
        server.create("Team", #"{"city":"Oslo","winPct":0.7}"#)
        server.create("Team", #"{"city":"Bergen","winPct":0.2}"#)
        server.create("Team", #"{"city":"Lima","winPct":0.9,"ACL":{}}"#)
        for (name, town) in [("ann", "Oslo"), ("bo", "Bergen"), ("cy", "Lima"), ("di", "Oslo")] {
            server.create("Player", #"{"name":"\#(name)","hometown":"\#(town)","towns":["\#(town)","Rome"]}"#)
        }
        let winners = #"{"query":{"className":"Team","where":{"winPct":{"$gt":0.5}}},"key":"city"}"#
        XCTAssertEqual(try served.find("Player", #"{"hometown":{"$select":\#(winners)}}"#), ["ann", "di"], "Lima's team is master-only")
        XCTAssertEqual(try served.find("Player", #"{"hometown":{"$select":\#(winners)}}"#, auth: .master), ["ann", "cy", "di"])
        XCTAssertEqual(try served.find("Player", #"{"hometown":{"$dontSelect":\#(winners)}}"#), ["bo", "cy"])
        XCTAssertEqual(try served.find("Player", #"{"towns":{"$select":\#(winners)}}"#), ["ann", "di"], "an Array field holding a selected value")
        XCTAssertParseError(
            try served.get("/classes/Player", [("where", #"{"hometown":{"$select":{"query":{"className":"Team"},"key":"city","x":1}}}"#)]),
            status: 400, code: .invalidQuery, message: "improper usage of $select")
    }

    // MARK: Geo

    private func places() throws -> Served {
        let served = try Served()
        for (name, lat, lng) in [
            ("Oslo", 59.91, 10.75), ("Stockholm", 59.33, 18.07), ("Copenhagen", 55.68, 12.57), ("Paris", 48.86, 2.35), ("Sydney", -33.87, 151.21),
        ] {
            served.server.create("Place", #"{"name":"\#(name)","at":{"__type":"GeoPoint","latitude":\#(lat),"longitude":\#(lng)}}"#)
        }
        served.server.create("Place", #"{"name":"Nowhere"}"#)
        return served
    }

    func testNearSphereSortsByDistanceAndLimitsIt() throws {
        let served = try places()
        let oslo = #"{"__type":"GeoPoint","latitude":59.91,"longitude":10.75}"#
        XCTAssertEqual(try served.find("Place", #"{"at":{"$nearSphere":\#(oslo)}}"#), ["Oslo", "Stockholm", "Copenhagen", "Paris", "Sydney"])
        // From Oslo: Stockholm is about 417 km (259 mi), Copenhagen 483 km (300 mi), Paris 1343 km (0.21 radians).
        XCTAssertEqual(try served.find("Place", #"{"at":{"$nearSphere":\#(oslo),"$maxDistanceInKilometers":500}}"#), ["Oslo", "Stockholm", "Copenhagen"])
        XCTAssertEqual(try served.find("Place", #"{"at":{"$nearSphere":\#(oslo),"$maxDistanceInMiles":280}}"#), ["Oslo", "Stockholm"])
        XCTAssertEqual(try served.find("Place", #"{"at":{"$nearSphere":\#(oslo),"$maxDistanceInRadians":0.01}}"#), ["Oslo"])
        XCTAssertEqual(
            try served.find("Place", #"{"at":{"$nearSphere":\#(oslo),"$maxDistance":0.25}}"#, "name", auth: .anonymous, [("order", "name")]),
            ["Copenhagen", "Oslo", "Paris", "Stockholm"], "an explicit order wins over distance")
    }

    func testWithinBoxPolygonAndCenterSphere() throws {
        let served = try places()
        let box = #"{"at":{"$within":{"$box":[{"__type":"GeoPoint","latitude":55,"longitude":5},{"__type":"GeoPoint","latitude":60,"longitude":15}]}}}"#
        XCTAssertEqual(try served.find("Place", box), ["Oslo", "Copenhagen"])
        let polygon =
            #"[{"__type":"GeoPoint","latitude":50,"longitude":0},{"__type":"GeoPoint","latitude":62,"longitude":10},{"__type":"GeoPoint","latitude":50,"longitude":20}]"#
        XCTAssertEqual(try served.find("Place", #"{"at":{"$geoWithin":{"$polygon":\#(polygon)}}}"#), ["Oslo", "Copenhagen"])
        // Pairs are [longitude, latitude], as Parse Server reads them; a vertex on the boundary is inside.
        XCTAssertEqual(
            try served.find("Place", #"{"at":{"$geoWithin":{"$polygon":[[2.35,48.86],[20,48],[20,60],[2.35,60]]}}}"#),
            ["Oslo", "Stockholm", "Copenhagen", "Paris"])
        let sphere = #"{"at":{"$geoWithin":{"$centerSphere":[{"__type":"GeoPoint","latitude":59.91,"longitude":10.75},0.08]}}}"#
        XCTAssertEqual(try served.find("Place", sphere), ["Oslo", "Stockholm", "Copenhagen"])
    }

    func testGeoIntersectsFindsPolygonsHoldingThePoint() throws {
        let served = try Served()
        served.server.create("Area", #"{"name":"square","shape":{"__type":"Polygon","coordinates":[[0,0],[0,10],[10,10],[10,0]]}}"#)
        served.server.create("Area", #"{"name":"far","shape":{"__type":"Polygon","coordinates":[[40,40],[40,50],[50,50]]}}"#)
        served.server.create("Area", #"{"name":"none"}"#)
        XCTAssertEqual(try served.find("Area", #"{"shape":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":5,"longitude":5}}}}"#), ["square"])
        XCTAssertEqual(
            try served.find("Area", #"{"shape":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":10,"longitude":3}}}}"#), ["square"], "edge")
        XCTAssertEqual(try served.find("Area", #"{"shape":{"$geoIntersects":{"$point":{"__type":"GeoPoint","latitude":20,"longitude":20}}}}"#), [])
    }

    func testHostileGeoOperandsAreParseErrors() throws {
        let served = try places()
        let point = { (lat: String, lng: String) in #"{"__type":"GeoPoint","latitude":\#(lat),"longitude":\#(lng)}"# }
        let huge = "[" + (0..<1001).map { i in "[\(Double(i % 180) - 90),\(Double(i % 90) - 45)]" }.joined(separator: ",") + "]"
        let cases: [(String, String)] = [
            (#"{"at":{"$nearSphere":\#(point("91", "0"))}}"#, "GeoPoint latitude out of bounds: 91 > 90.0."),
            (#"{"at":{"$nearSphere":\#(point("0", "-180.5"))}}"#, "GeoPoint longitude out of bounds: -180.5 < -180.0."),
            (#"{"at":{"$nearSphere":\#(point("\"x\"", "0"))}}"#, "GeoPoint latitude and longitude must be valid numbers"),
            (#"{"at":{"$nearSphere":\#(point("0", "0")),"$maxDistance":-1}}"#, "bad $maxDistance value; should be a number not below 0"),
            (
                #"{"at":{"$nearSphere":\#(point("0", "0")),"$maxDistanceInKilometers":"far"}}"#,
                "bad $maxDistanceInKilometers value; should be a number not below 0"
            ),
            (#"{"at":{"$nearSphere":[0,0]}}"#, "bad $nearSphere value; should be a GeoPoint"),
            (#"{"at":{"$within":{"$box":[\#(point("0", "0"))]}}}"#, "malformatted $within arg"),
            (#"{"at":{"$within":{"$box":[\#(point("0", "0")),\#(point("100", "0"))]}}}"#, "GeoPoint latitude out of bounds: 100 > 90.0."),
            (#"{"at":{"$geoWithin":{"$centerSphere":[\#(point("0", "0")),-0.1]}}}"#, "bad $geoWithin value; $centerSphere distance invalid"),
            (#"{"at":{"$geoWithin":{"$centerSphere":5}}}"#, "bad $geoWithin value; $centerSphere should be an array of Parse.GeoPoint and distance"),
            (#"{"at":{"$geoWithin":{"$polygon":[[0,0],[1,1]]}}}"#, "bad $geoWithin value; $polygon should contain at least 3 GeoPoints"),
            (#"{"at":{"$geoWithin":{"$polygon":[[0,0],[1,1],[200,1]]}}}"#, "GeoPoint longitude out of bounds: 200 > 180.0."),
            (#"{"at":{"$geoWithin":{"$polygon":[[0,0],[1,1],"x"]}}}"#, "bad $geoWithin value"),
            (#"{"at":{"$geoWithin":{"$polygon":\#(huge)}}}"#, "bad $geoWithin value; $polygon has 1001 points, more than 1000"),
            (
                #"{"at":{"$geoWithin":{"$polygon":{"__type":"Polygon","coordinates":[[0,0]]}}}}"#,
                "bad $geoWithin value; Polygon.coordinates should contain at least 3 lon/lat pairs"
            ),
            (#"{"at":{"$geoWithin":{}}}"#, "bad $geoWithin value"),
            (#"{"at":{"$geoIntersects":{"$point":\#(point("-90.01", "0"))}}}"#, "GeoPoint latitude out of bounds: -90.01 < -90.0."),
        ]
        for (query, message) in cases {
            XCTAssertParseError(try served.get("/classes/Place", [("where", query)]), status: 400, code: .invalidJSON, message: message)
        }
    }

    // MARK: Full text

    func testTextSearchWithScoreStaysCurrentAfterWrites() throws {
        let served = try Served()
        let server = served.server
        server.create("Note", #"{"name":"coffee","body":"Coffee with milk, coffee beans and more coffee"}"#)
        let tea = server.create("Note", #"{"name":"tea","body":"A cup of green tea"}"#)
        server.create("Note", #"{"name":"cafe","body":"The Café serves coffee"}"#)
        server.create("Note", #"{"name":"private","body":"secret coffee","ACL":{}}"#)
        let search = { (term: String) in #"{"body":{"$text":{"$search":{"$term":"\#(term)"}}}}"# }
        XCTAssertEqual(try served.find("Note", search("coffee")), ["coffee", "cafe"])
        XCTAssertEqual(try served.find("Note", search("cafe")), ["cafe"], "diacritics are ignored by default")
        XCTAssertEqual(try served.find("Note", search("cups")), ["tea"], "English stemming")
        XCTAssertEqual(try served.find("Note", search("tea -green")), [])
        XCTAssertEqual(try served.find("Note", search(#"\"green tea\" milk"#)), ["tea"])
        let scored = try served.get("/classes/Note", [("where", search("coffee")), ("order", "$score"), ("keys", "$score,name")])
        XCTAssertEqual(scored.results.compactMap { $0["name"]?.text }, ["coffee", "cafe"], "the note saying coffee three times ranks first")
        guard case .double(let score)? = scored.results.first?["score"] else { return XCTFail("no score: \(scored.json.serialized())") }
        XCTAssertGreaterThan(score, 0)
        XCTAssertNil(scored.results.first?["body"])
        // The index follows writes.
        XCTAssertEqual(server.send("PUT", "/classes/Note/\(tea)", #"{"body":"Tea, then coffee"}"#).status, 200)
        XCTAssertEqual(try served.find("Note", search("coffee")), ["coffee", "tea", "cafe"])
        XCTAssertEqual(server.send("DELETE", "/classes/Note/\(tea)").status, 200)
        XCTAssertEqual(try served.find("Note", search("coffee")), ["coffee", "cafe"])
        XCTAssertEqual(try served.find("Note", search("\\\" AND NOT * ( \\\"")), [], "FTS5 syntax in a term is only text")
        XCTAssertParseError(
            try served.get("/classes/Note", [("where", #"{"body":{"$text":{"$search":"coffee"}}}"#)]),
            status: 400, code: .invalidJSON, message: "bad $text: $search, should be object")
        XCTAssertParseError(
            try served.get("/classes/Note", [("where", #"{"body":{"$text":{"$search":{"$term":"a","$caseSensitive":true}}}}"#)]),
            status: 400, code: .invalidJSON, message: "bad $text: $caseSensitive not supported, please use $regex or create a separate lower case column.")
        XCTAssertParseError(
            try served.get("/classes/Note", [("where", #"{"body":{"$text":{"$search":{"$term":"a","$language":3}}}}"#)]),
            status: 400, code: .invalidJSON, message: "bad $text: $language, should be string")
    }

    // MARK: Aggregate

    func testAggregate() throws {
        let served = try Served()
        for (name, genre, pages) in [("a", "sf", 100), ("b", "sf", 300), ("c", "crime", 200), ("d", "poetry", 50)] {
            served.server.create("Book", #"{"name":"\#(name)","genre":"\#(genre)","pages":\#(pages)}"#)
        }
        let pipeline =
            #"[{"$match":{"pages":{"$gt":60}}},{"$group":{"_id":"$genre","total":{"$sum":"$pages"},"n":{"$sum":1},"avg":{"$avg":"$pages"},"names":{"$push":"$name"}}},{"$sort":{"total":-1}}]"#
        let reply = try served.get("/aggregate/Book", [("pipeline", pipeline)], auth: .master)
        XCTAssertEqual(reply.status, 200, reply.json.serialized())
        XCTAssertEqual(
            reply.json,
            .parse(
                #"{"results":[{"objectId":"sf","total":400,"n":2,"avg":200,"names":["a","b"]},{"objectId":"crime","total":200,"n":1,"avg":200,"names":["c"]}]}"#
            ))
        let stageKeys = try served.get("/aggregate/Book", [("$group", #"{"_id":null,"most":{"$max":"$pages"}}"#)], auth: .master)
        XCTAssertEqual(stageKeys.json, .parse(#"{"results":[{"objectId":null,"most":300}]}"#))
        let projected = try served.get(
            "/aggregate/Book", [("pipeline", #"[{"$sort":{"pages":1}},{"$skip":1},{"$limit":2},{"$project":{"name":1,"objectId":0}}]"#)], auth: .master)
        XCTAssertEqual(projected.json, .parse(#"{"results":[{"name":"a"},{"name":"c"}]}"#))
        let counted = try served.get("/aggregate/Book", [("pipeline", #"[{"$match":{"genre":"sf"}},{"$count":"books"}]"#)], auth: .master)
        XCTAssertEqual(counted.json, .parse(#"{"results":[{"books":2}]}"#))
        XCTAssertParseError(
            try served.get("/aggregate/Book", [("pipeline", #"[{"$group":{"_id":null}}]"#)]), status: 403, code: nil,
            message: "unauthorized: master key is required")
        let bad: [(String, String)] = [
            (
                #"[{"$lookup":{"from":"x"}}]"#,
                "Unsupported aggregate stage '$lookup'; the mirror runs $match, $group, $project, $sort, $limit, $skip and $count."
            ),
            (#"[{"$group":{"total":{"$sum":1}}}]"#, "Invalid parameter for query: group. Missing key _id"),
            (#"[{"$group":{"_id":null,"objectId":{"$sum":1}}}]"#, "Cannot use 'objectId' in aggregation stage $group."),
            (
                #"[{"$group":{"_id":null,"x":{"$median":"$pages"}}}]"#,
                "Invalid accumulator for x in $group; use one of $addToSet, $avg, $first, $last, $max, $min, $push, $sum."
            ),
            (#"[{"$limit":-1}]"#, "$limit must be a positive integer."),
            (#"[{"$sort":{"pages":2}}]"#, "$sort values must be 1 or -1."),
            (#"[{"$match":{},"$limit":1}]"#, "Pipeline stages should only have one key but found $match, $limit."),
            (#"[{"group":{}}]"#, "Invalid aggregate stage 'group'."),
            (#"[{"$group":{"_id":{"$year":"$createdAt"}}}]"#, #"Unsupported aggregate expression {"$year":"$createdAt"}; use "$field" or a literal."#),
        ]
        for (pipeline, message) in bad {
            XCTAssertParseError(try served.get("/aggregate/Book", [("pipeline", pipeline)], auth: .master), status: 400, code: .invalidQuery, message: message)
        }
        // A constant $sum past Int64 is a Double, not a crash (the server answers afterwards).
        let huge = try served.get("/aggregate/Book", [("pipeline", #"[{"$group":{"_id":null,"n":{"$sum":4611686018427387904}}}]"#)], auth: .master)
        XCTAssertEqual(huge.json, .parse(#"{"results":[{"objectId":null,"n":18446744073709551616}]}"#), huge.json.serialized())
        XCTAssertEqual(try served.get("/aggregate/Book", [("pipeline", #"[{"$count":"n"}]"#)], auth: .master).json, .parse(#"{"results":[{"n":4}]}"#))
        // distinct is refused, not ignored (which would answer every object).
        XCTAssertParseError(
            try served.get("/aggregate/Book", [("distinct", "genre")], auth: .master), status: 400, code: .invalidQuery,
            message: "distinct is not supported by the mirror.")
    }
}
