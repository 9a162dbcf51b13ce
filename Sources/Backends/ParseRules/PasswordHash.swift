/// A `_User`'s password hash as a source row carries it: a bcrypt string in modular-crypt form
/// (`$2a$10$` + 22 characters of salt + 31 of hash), as Parse.com exported it (`$2a$`) and
/// Parse Server stores it (`$2b$`); `$2y$` is the same algorithm by PHP's name.
package enum PasswordHash {
    /// The highest bcrypt cost taken, at import and at log-in. Each step doubles the work of
    /// every log-in attempt: Parse Server makes and Parse.com made cost 10 (about 80 ms here),
    /// 12 is four times that, and 31 would be some 40 hours of a core per attempt.
    package static let maximumCost = 12

    /// The cost of a bcrypt hash (the two digits after the variant), `nil` for other text.
    package static func cost(of hash: String) -> Int? {
        let bytes = Array(hash.utf8.prefix(7))
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "$"), bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$") else { return nil }
        return Int(String(decoding: bytes[4..<6], as: UTF8.self))
    }
}
