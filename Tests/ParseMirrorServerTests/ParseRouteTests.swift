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

    /// Hostile requests: what the route reads from them, exactly, so that nothing is decoded
    /// twice, resolved or widened before the routes' own checks (class names, ACLs) see it.
    func testHostileMethodsAndPathsAreReadLiterally() {
        // Methods match exactly, as Parse Server's router matches them.
        for method in ["get", "Get", "GET ", " GET", "", "G\u{0}ET", "HEAD", "OPTIONS", "CONNECT"] {
            XCTAssertNil(ParseRoute(method: method, path: "/classes/Book"), "\(method.debugDescription)")
        }
        // Dot segments are names, never resolved: they reach the class-name and objectId checks.
        XCTAssertEqual(ParseRoute(method: "GET", path: "/classes/Book/.."), .get(className: "Book", objectId: ".."))
        XCTAssertEqual(ParseRoute(method: "GET", path: "/classes/../_User"), .get(className: "..", objectId: "_User"))
        XCTAssertNil(ParseRoute(method: "GET", path: "/classes/Book/../../users/me"))
        XCTAssertNil(ParseRoute(method: "DELETE", path: "/purge/../schemas"))
        // The path arrives percent-decoded once (by the HTTP layer); the route decodes nothing again.
        XCTAssertEqual(ParseRoute(method: "GET", path: "/classes/%5FUser"), .query(className: "%5FUser"))
        XCTAssertEqual(ParseRoute(method: "GET", path: "/users/%6De"), .get(className: "_User", objectId: "%6De"))
        XCTAssertNil(ParseRoute(method: "GET", path: "/%63lasses/Book"))
        // Only `GET /users/me` is the caller's own user; another object id, or `me` on a write, is
        // the object of that id, left to the ACL checks.
        XCTAssertEqual(ParseRoute(method: "GET", path: "/users/someoneElse"), .get(className: "_User", objectId: "someoneElse"))
        XCTAssertEqual(ParseRoute(method: "PUT", path: "/users/me"), .update(className: "_User", objectId: "me"))
        XCTAssertEqual(ParseRoute(method: "DELETE", path: "/sessions/me"), .delete(className: "_Session", objectId: "me"))
        XCTAssertEqual(ParseRoute(method: "GET", path: "/users/ME"), .get(className: "_User", objectId: "ME"))
        // Empty, slash-only, and huge paths: no route, or the one route, never a crash.
        for path in ["", "/", "///", String(repeating: "/", count: 100_000)] {
            XCTAssertNil(ParseRoute(method: "GET", path: path), "\(path.prefix(8))")
        }
        XCTAssertNil(ParseRoute(method: "GET", path: String(repeating: "/classes", count: 50_000)))
        let longName = String(repeating: "B", count: 1_000_000)
        XCTAssertEqual(ParseRoute(method: "GET", path: "/classes/" + longName), .query(className: longName))
    }
}
