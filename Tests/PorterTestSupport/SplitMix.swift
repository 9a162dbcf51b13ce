/// SplitMix64: a small seeded generator for the tests' fuzzing and fault injection, so that a
/// failing run replays from its seed.
public struct SplitMix: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<n`.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// One of `items`, which must not be empty.
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// A number in `0..<1`.
    public mutating func nextDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
