import ParseMirrorServer
import ParseModel
import XCTest

/// Queries as ParseSwift 4.14 sends them (Docs/ParseSwift.md#queries), answered through MirrorQuery.
final class QueryTests: XCTestCase {
    private func library() throws -> TestServer {
        let server = try TestServer()
        let genre = server.create("Genre", #"{"name":"Fantasy"}"#)
        for (title, year) in [("The Hobbit", 1937), ("John Carter", 1912), ("Dune", 1965)] {
            server.create("Book", #"{"title":"\#(title)","year":\#(year),"genre":{"__type":"Pointer","className":"Genre","objectId":"\#(genre)"}}"#)
        }
        return server
    }

    func testGETWithJSONArrayParameters() throws {
        let server = try library()
        let reply = server.send(
            "GET", "/classes/Book", auth: .anonymous,
            query: [
                ("limit", "100"), ("skip", "0"), ("where", "{}"), ("order", #"["-year"]"#), ("include", #"["genre"]"#), ("keys", #"["title","genre"]"#),
            ])
        XCTAssertEqual(reply.status, 200, reply.json.serialized())
        XCTAssertEqual(reply.results.compactMap { $0["title"]?.text }, ["Dune", "The Hobbit", "John Carter"])
        XCTAssertEqual(reply.results.first?["genre"]?["name"], .string("Fantasy"))
        XCTAssertEqual(reply.results.first?["genre"]?["__type"], .string("Object"))
        XCTAssertNil(reply.results.first?["year"])
        let commaList = server.send("GET", "/classes/Book", auth: .anonymous, query: [("order", "-year,title"), ("keys", "title")])
        XCTAssertEqual(commaList.results.compactMap { $0["title"]?.text }, ["Dune", "The Hobbit", "John Carter"])
    }

    func testPOSTWithMethodGETAndCount() throws {
        let server = try library()
        let reply = server.send("POST", "/classes/Book", #"{"_method":"GET","where":{"year":{"$gt":1930}},"count":true,"limit":1}"#, auth: .anonymous)
        XCTAssertEqual(reply.status, 200, reply.json.serialized())
        XCTAssertEqual(reply.results.count, 1)
        XCTAssertEqual(reply["count"], .integer(2))
        XCTAssertEqual(try server.rows("SELECT count(*) FROM Book"), [["3"]], "a query is not a create")
    }

    func testQuotedRegex() throws {
        let server = try library()
        let reply = server.send("GET", "/classes/Book", auth: .anonymous, query: [("where", #"{"title":{"$regex":"\\Qjohn\\E","$options":"i"}}"#)])
        XCTAssertEqual(reply.results.compactMap { $0["title"]?.text }, ["John Carter"])
    }

    func testFetchWithInclude() throws {
        let server = try library()
        let id = try XCTUnwrap(server.send("GET", "/classes/Book", query: [("where", #"{"title":"Dune"}"#)]).results.first?["objectId"]?.text)
        let reply = server.send("GET", "/classes/Book/\(id)", auth: .anonymous, query: [("include", #"["genre"]"#)])
        XCTAssertEqual(reply["genre"]?["name"], .string("Fantasy"))
        XCTAssertParseError(
            server.send("GET", "/classes/Book/\(id)", query: [("where", "{}")]), status: 400, code: .invalidQuery, message: "Improper encode of parameter")
    }

    func testInvalidParameter() throws {
        let server = try library()
        XCTAssertParseError(
            server.send("GET", "/classes/Book", query: [("bogus", "1")]), status: 400, code: .invalidQuery, message: "Invalid parameter for query: bogus")
    }

    func testRelatedTo() throws {
        let server = try TestServer()
        let author = server.create("Author", #"{"name":"Tolkien"}"#)
        _ = server.create("Author", #"{"name":"Herbert"}"#)
        let book = server.create("Book", #"{"authors":{"__op":"AddRelation","objects":[{"__type":"Pointer","className":"Author","objectId":"\#(author)"}]}}"#)
        let reply = server.send(
            "GET", "/classes/Author",
            query: [
                ("where", #"{"$relatedTo":{"object":{"__type":"Pointer","className":"Book","objectId":"\#(book)"},"key":"authors"}}"#)
            ])
        XCTAssertEqual(reply.results.compactMap { $0["name"]?.text }, ["Tolkien"])
    }
}
