/// Counts in messages, the noun agreeing with the number: "1 field", "0 indexes", "2 classes".
package enum Noun {
    /// `count`, then `noun` in the plural unless `count` is 1: `es` after s, x, z, ch or sh,
    /// `ies` for a y after a consonant, else `s`.
    ///
    /// ```swift
    /// Noun.counted(1, "class")    // "1 class"
    /// Noun.counted(3, "index")    // "3 indexes"
    /// Noun.counted(2, "entry")    // "2 entries"
    /// Noun.counted(0, "field")    // "0 fields"
    /// ```
    package static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(count == 1 ? noun : plural(of: noun))"
    }

    private static func plural(of noun: String) -> String {
        if ["s", "x", "z", "ch", "sh"].contains(where: noun.hasSuffix) { return noun + "es" }
        if noun.hasSuffix("y"), let before = noun.dropLast().last, !"aeiou".contains(before) { return noun.dropLast() + "ies" }
        return noun + "s"
    }
}
