import PorterPipeline
import XCTest

final class NounTests: XCTestCase {
    /// Every noun a message counts gets its plural, and 1 keeps the singular.
    func testCountedNounsAgreeWithTheirNumber() {
        XCTAssertEqual(Noun.counted(1, "class"), "1 class")
        XCTAssertEqual(Noun.counted(2, "class"), "2 classes")
        XCTAssertEqual(Noun.counted(0, "index"), "0 indexes")
        XCTAssertEqual(Noun.counted(3, "field"), "3 fields")
        XCTAssertEqual(Noun.counted(2, "entry"), "2 entries")
        XCTAssertEqual(Noun.counted(2, "key"), "2 keys")
        XCTAssertEqual(Noun.counted(4, "unconvertible value"), "4 unconvertible values")
        XCTAssertEqual(Noun.counted(1, "difference"), "1 difference")
    }
}
