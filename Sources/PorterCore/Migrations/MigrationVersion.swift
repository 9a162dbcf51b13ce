/// The version of a migration, as Flyway spells it in a file name: `1`, `1.1`, `2_1` (an
/// underscore is a dot), `010` (leading zeros are ignored).
///
/// Versions compare numerically part by part, so `2` < `10` and `1.1` < `1.2` < `2`.
/// Missing parts count as zero: `1`, `1.0` and `1_0_0` are the same version (equal and with
/// the same hash), so two files named that way are duplicates. ``description`` is the
/// canonical spelling: dots, no leading zeros, no trailing `.0` parts.
public struct MigrationVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric parts without trailing zeros (`1.0.2.0` is `[1, 0, 2]`; `0` is `[]`).
    public let parts: [UInt64]

    /// Reads `1`, `1.1`, `2_1`; `nil` unless every part is decimal digits (and fits 64 bits).
    public init?(_ text: String) {
        var parts: [UInt64] = []
        for part in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "." || $0 == "_" }) {
            guard !part.isEmpty, part.utf8.allSatisfy({ (48...57).contains($0) }), let number = UInt64(part) else { return nil }
            parts.append(number)
        }
        while parts.last == 0 { parts.removeLast() }
        self.parts = parts
    }

    /// The parts joined by dots, trailing zeros already dropped (`1.1`); `0` for version zero.
    public var description: String {
        parts.isEmpty ? "0" : parts.map(String.init).joined(separator: ".")
    }

    /// Orders versions part by part, numerically (`1.2` < `1.10`).
    public static func < (lhs: MigrationVersion, rhs: MigrationVersion) -> Bool {
        lhs.parts.lexicographicallyPrecedes(rhs.parts)
    }
}

extension MigrationVersion {
    /// Whether the version text `a` comes before `b`: numerically when both are versions,
    /// text that is no version (a history row written by hand) after those that are.
    package static func precedes(_ a: String, _ b: String) -> Bool {
        switch (MigrationVersion(a), MigrationVersion(b)) {
        case (let x?, let y?): x < y
        case (_?, nil): true
        case (nil, _?): false
        case (nil, nil): a < b
        }
    }
}
