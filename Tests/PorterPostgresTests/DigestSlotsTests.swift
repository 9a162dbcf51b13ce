import XCTest

@testable import PorterPostgres

/// ``DigestSlots`` against a `Dictionary` of the same keys: values and marks kept through the
/// table's growth, missing keys missing.
final class DigestSlotsTests: XCTestCase {
    func testSlotsHoldWhatADictionaryHoldsThroughGrowth() {
        var random = SystemRandomNumberGenerator()
        // Sized for far fewer keys than go in: the table grows several times.
        var slots = DigestSlots(expected: 100)
        var expected: [UInt64: (value: UInt64, mark: UInt64)] = [:]
        for round in 0..<50_000 {
            // Keys differ in their low 62 bits (the top two are the mark's); 0 and 1 included.
            let key = round < 2 ? UInt64(round) : random.next() & (1 << 62 - 1)
            let slot = slots.insert(key)
            let value = random.next() as UInt64, mark = UInt64(round % 4)
            slots[value: slot] &+= value
            slots[mark: slot] = mark
            expected[key == 0 ? 1 : key, default: (0, 0)].value &+= value
            expected[key == 0 ? 1 : key]?.mark = mark
        }
        XCTAssertEqual(slots.count, expected.count)
        for (key, held) in expected {
            guard let slot = slots.slot(of: key) else { return XCTFail("key \(key) lost") }
            XCTAssertEqual(slots[value: slot], held.value)
            XCTAssertEqual(slots[mark: slot], held.mark)
        }
        for _ in 0..<10_000 {
            let key = random.next() & (1 << 62 - 1)
            if expected[key] == nil { XCTAssertNil(slots.slot(of: key)) }
        }
    }

    /// A copy is a value: changing it (insert, value, mark) leaves the original as it was.
    func testACopyChangedLeavesTheOriginal() {
        var original = DigestSlots(expected: 4)
        let slot = original.insert(42)
        original[value: slot] = 7
        var copy = original
        copy[value: slot] = 8
        copy[mark: slot] = 3
        _ = copy.insert(43)
        XCTAssertEqual(original[value: slot], 7)
        XCTAssertEqual(original[mark: slot], 0)
        XCTAssertNil(original.slot(of: 43))
        XCTAssertEqual(original.count, 1)
        XCTAssertEqual(copy[value: slot], 8)
        XCTAssertEqual(copy.count, 2)
    }
}
