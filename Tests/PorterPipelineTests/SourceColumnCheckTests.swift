import XCTest

@testable import PorterPipeline

/// The closest header name a missing column's message suggests.
final class SourceColumnCheckTests: XCTestCase {
    func testClosestNameIgnoresCaseAndSuggestsOnlyNearNames() {
        let header = ["number", "placed_at", "total", "Email"]
        XCTAssertEqual(SourceColumnCheck.closest(to: "placedat", among: header), "placed_at")
        XCTAssertEqual(SourceColumnCheck.closest(to: "placedAt", among: header), "placed_at")
        XCTAssertEqual(SourceColumnCheck.closest(to: "email", among: header), "Email")
        XCTAssertEqual(SourceColumnCheck.closest(to: "totl", among: header), "total")
        XCTAssertNil(SourceColumnCheck.closest(to: "customer", among: header), "nothing near")
        XCTAssertNil(SourceColumnCheck.closest(to: "id", among: ["name", "price"]))
        XCTAssertNil(SourceColumnCheck.closest(to: "x", among: []))
        XCTAssertEqual(SourceColumnCheck.editDistance(Array("kitten"), Array("sitting")), 3)
        XCTAssertEqual(SourceColumnCheck.editDistance([], Array("abc")), 3)
    }
}
