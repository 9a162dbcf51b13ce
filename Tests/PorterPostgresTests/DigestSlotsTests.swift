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
}
