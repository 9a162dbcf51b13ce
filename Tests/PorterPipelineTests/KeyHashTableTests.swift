import XCTest

@testable import ParseModel
@testable import PorterPipeline

/// The natural-key set of the key indexes (KeyHashTable), on its own.
final class KeyHashTableTests: XCTestCase {
    private func hash(_ key: String) -> KeyHash { KeyHash(className: "Book", key: key) }

    func testInsertFindDuplicateAndRejectAcrossManyGrowths() {
        var table = KeyHashTable()
        for i in 0..<50_000 { XCTAssertNil(table.insert(hash("book \(i)"), line: i + 2)) }
        XCTAssertEqual(table.count, 50_000)
        for i in stride(from: 0, to: 50_000, by: 997) {
            XCTAssertEqual(table[hash("book \(i)")], .init(line: i + 2, rejected: false))
        }
        XCTAssertNil(table[hash("book 50000")])
        XCTAssertEqual(table.insert(hash("book 7"), line: 99), .init(line: 9, rejected: false), "a key seen before keeps its first line")
        XCTAssertEqual(table.count, 50_000)
        table.markRejected(hash("book 7"))
        table.markRejected(hash("book 7"))
        table.markRejected(hash("no such book"))
        XCTAssertEqual(table[hash("book 7")], .init(line: 9, rejected: true), "marked once, whatever the number of calls")
        XCTAssertEqual(table.count, 50_000)
    }

    func testKeysSharingTheirSlotBitsAreKeptApartByTheRestOfTheHash() {
        var table = KeyHashTable(capacity: 16)
        // Same low word (same slot, probed in a row), different high words.
        let a = KeyHash(high: 1, low: 42), b = KeyHash(high: 2, low: 42), c = KeyHash(high: 1, low: 42 + 32)
        XCTAssertNil(table.insert(a, line: 2))
        XCTAssertNil(table.insert(b, line: 3))
        XCTAssertNil(table.insert(c, line: 4))
        XCTAssertEqual(table[a]?.line, 2)
        XCTAssertEqual(table[b]?.line, 3)
        XCTAssertEqual(table[c]?.line, 4)
        XCTAssertNil(table[KeyHash(high: 3, low: 42)])
        table.markRejected(b)
        XCTAssertEqual(table[a]?.rejected, false)
        XCTAssertEqual(table[b]?.rejected, true)
    }

    func testLineZeroIsAnEntryNotAnEmptySlot() {
        var table = KeyHashTable()
        XCTAssertNil(table.insert(hash("header"), line: 0))
        XCTAssertEqual(table[hash("header")], .init(line: 0, rejected: false))
        table.markRejected(hash("header"))
        XCTAssertEqual(table[hash("header")], .init(line: 0, rejected: true))
    }
}
