/// Random identifiers as Parse Server makes them (`cryptoUtils.js`), from the system's
/// cryptographic generator.
enum RandomTokens {
    private static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// 10 characters of `[A-Za-z0-9]`.
    static func objectId() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphanumerics.randomElement(using: &generator)! })
    }

    /// `r:` and 32 hex digits: a revocable session token.
    static func sessionToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return "r:" + (0..<16).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
