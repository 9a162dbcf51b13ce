import CCrypt
import ParseRules
import PorterCore

/// bcrypt password hashes, as Parse Server stores them in `_User._hashed_password`
/// (`$2b$10$…`, cost 10), made and checked by the system's libcrypt.
enum Passwords {
    /// A new bcrypt hash of `password` with a random salt. A password with a NUL character is
    /// 142: libcrypt reads C strings, so it would hash (and later accept) only the part before it.
    static func hash(_ password: String) throws -> String {
        guard !password.utf8.contains(0) else {
            throw APIError.parse(.validationError, "A password cannot contain the NUL character (\\u0000).")
        }
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        guard crypt_gensalt_rn("$2b$", 10, nil, 0, &setting, Int32(setting.count)) != nil else {
            throw APIError.internalFailure("libcrypt could not make a bcrypt salt")
        }
        let salt = String(decoding: setting.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let hash = crypt(password, setting: salt) else { throw APIError.internalFailure("libcrypt could not hash a password") }
        return hash
    }

    /// Whether `password` hashes to `hash`; never for a password with a NUL character, which
    /// libcrypt would cut short (see ``hash(_:)``). A hash that is not bcrypt or costs more than
    /// ``PasswordHash/maximumCost`` (an imported or pulled hash of cost 31 would take some 40 hours
    /// of a core) never matches, and takes as long as an ordinary hash does to say so: its
    /// password is checked against ``decoy`` instead.
    static func verify(_ password: String, hash: String) -> Bool {
        guard let cost = PasswordHash.cost(of: hash), cost <= PasswordHash.maximumCost else {
            _ = crypt(password, setting: decoy)
            return false
        }
        guard !password.utf8.contains(0), let computed = crypt(password, setting: hash) else { return false }
        // Compare every byte, so the time taken does not tell how much of the hash matched.
        let a = Array(computed.utf8), b = Array(hash.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// A hash of Parse Server's cost (10) of a random password, which no password matches: a
    /// log-in for a user that does not exist (or has no usable hash) is checked against it, so
    /// that it takes as long as a wrong password for a user that does, and the time of the
    /// answer does not tell which usernames and emails have accounts.
    static let decoy: String = (try? hash(RandomTokens.hex32())) ?? "$2b$10$" + String(repeating: ".", count: 53)

    /// Bytes of a password bcrypt reads; the rest never changes its hash.
    private static let bcryptKeyBytes = 72

    /// `crypt_rn` with a private work area (thread-safe) on the password's first
    /// ``bcryptKeyBytes`` bytes (libcrypt refuses passwords over 512 bytes, where Parse Server's
    /// bcrypt hashes any length by those bytes); `nil` when the setting is not a valid hash.
    private static func crypt(_ password: String, setting: String) -> String? {
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        defer { data.deallocate() }
        data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let key = password.utf8.prefix(bcryptKeyBytes).map { CChar(bitPattern: $0) } + [0]
        guard let result = crypt_rn(key, setting, data, Int32(size)) else { return nil }
        let text = String(cString: result)
        return text.hasPrefix("$2") ? text : nil
    }
}
