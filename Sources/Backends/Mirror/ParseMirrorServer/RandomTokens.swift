/// Random identifiers as Parse Server makes them (`cryptoUtils.js`), from the system's
/// cryptographic generator.
enum RandomTokens {
    private static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// 10 characters of `[A-Za-z0-9]`, from two draws of the generator (one system call each,
    /// instead of one per character).
    static func objectId() -> String {
        var generator = SystemRandomNumberGenerator()
        var bits = (generator.next(), generator.next())
        return String(unsafeUninitializedCapacity: 10) { buffer in
            for i in 0..<10 {
                // 5 characters per 64-bit word; the modulo bias of 2^64 mod 62 is negligible.
                if i < 5 {
                    buffer[i] = alphanumerics[Int(bits.0 % 62)]
                    bits.0 /= 62
                } else {
                    buffer[i] = alphanumerics[Int(bits.1 % 62)]
                    bits.1 /= 62
                }
            }
            return 10
        }
    }

    /// `r:` and 32 hex digits: a revocable session token.
    static func sessionToken() -> String { "r:" + hex32() }

    /// 32 random hex digits: also the prefix that makes an uploaded file's name unique.
    static func hex32() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
