import ParseRules
import XCTest

/// ``ParseRoute``, the one reading of a method and a path below the mount path that the mirror's
/// server and the PostgreSQL backend (and both their batches) route by.
final class ParseRouteTests: XCTestCase {
    func testEachRouteIsReadFromItsMethodAndPath() {
        let routes: [(String, String, ParseRoute)] = [
            ("GET", "/serverInfo", .serverInfo),
            ("GET", "/config", .config),
            ("GET", "/schemas", .schemas(className: nil)),
            ("POST", "/schemas/Book", .schemas(className: "Book")),
            ("DELETE", "/schemas/Book", .schemas(className: "Book")),
            ("DELETE", "/purge/Book", .purge(className: "Book")),
            ("POST", "/batch", .batch),
            ("POST", "/login", .logIn),
            ("GET", "/verifyPassword", .verifyPassword),
            ("POST", "/logout", .logOut),
            ("GET", "/users/me", .currentUser),
            ("GET", "/sessions/me", .currentSession),
            ("GET", "/aggregate/Book", .aggregate(className: "Book")),
            ("GET", "/classes/Book", .query(className: "Book")),
            ("POST", "/classes/Book", .create(className: "Book")),
            ("GET", "/classes/Book/dune", .get(className: "Book", objectId: "dune")),
            ("PUT", "/classes/Book/dune", .update(className: "Book", objectId: "dune")),
            ("DELETE", "/classes/Book/dune", .delete(className: "Book", objectId: "dune")),
            ("GET", "/users", .query(className: "_User")),
            ("PUT", "/roles/r1", .update(className: "_Role", objectId: "r1")),
            ("DELETE", "/sessions/s1", .delete(className: "_Session", objectId: "s1")),
            ("POST", "/installations", .create(className: "_Installation")),
        ]
        for (method, path, route) in routes {
            XCTAssertEqual(ParseRoute(method: method, path: path), route, "\(method) \(path)")
        }
    }

    func testEmptySegmentsAndTrailingSlashesChangeNothing() {
        XCTAssertEqual(ParseRoute(method: "PUT", path: "/classes/Book/dune/"), .update(className: "Book", objectId: "dune"))
        XCTAssertEqual(ParseRoute(method: "GET", path: "//classes//Book"), .query(className: "Book"))
        XCTAssertEqual(ParseRoute(method: "POST", path: "/batch/"), .batch)
        XCTAssertEqual(ParseRoute.segments(of: "/classes//Book/"), ["classes", "Book"])
    }

    func testAMethodOrPathNoRouteAnswersIsNone() {
        let unrouted: [(String, String)] = [
            ("PATCH", "/classes/Book/dune"), ("PUT", "/classes/Book"), ("POST", "/classes/Book/dune"),
            ("GET", "/classes"), ("GET", "/classes/Book/dune/extra"), ("GET", "/batch"), ("POST", "/batch/more"),
            ("PUT", "/schemas"), ("PATCH", "/schemas/Book"), ("GET", "/functions/hello"), ("GET", "/"), ("GET", ""),
            ("GET", "/Book"), ("GET", "/users/me/more"), ("POST", "/users/me/x"), ("GET", "/purge/Book"),
        ]
        for (method, path) in unrouted {
            XCTAssertNil(ParseRoute(method: method, path: path), "\(method) \(path)")
        }
    }
}
