import ParseModel
import ParseRules
import PorterReaders

extension PasswordHash {
    /// The variants the system's libcrypt checks at log-in.
    static let prefixes = ["$2a$", "$2b$", "$2y$"]

    /// The hash under the first of `keys` the row has; `nil` when it has none.
    static func read(_ record: SourceRecord, keys: [String]) throws(SystemColumns.Fault) -> String? {
        for key in keys {
            switch record.cell(ColumnPath(key)) {
            case nil, .text("")?, .json(.null)?:
                continue
            case .text(let text)?, .json(.string(let text))?:
                // The value is not shown: it may be a password in plain text.
                guard isBcrypt(text) else {
                    throw SystemColumns.Fault(
                        kind: .invalidValue, column: key, value: "(\(text.count) characters, not shown)",
                        reason: "not a bcrypt password hash ($2a$, $2b$ or $2y$, a cost of 04 to 31, then 53 characters of ./A-Za-z0-9)")
                }
                if let cost = cost(of: text), cost > maximumCost {
                    throw SystemColumns.Fault(
                        kind: .invalidValue, column: key, value: "(\(text.count) characters, not shown)",
                        reason: "a bcrypt hash of cost \(cost), above the \(maximumCost) taken: every log-in attempt would cost "
                            + "\(1 << (cost - 10)) times Parse Server's own (cost 10); leave the hash out and let the user reset the password")
                }
                return text
            case .json(let other)?:
                throw SystemColumns.Fault(kind: .wrongType, column: key, value: other.kindName, reason: "a password hash must be text, not \(other.kindName)")
            }
        }
        return nil
    }

    /// Whether `text` is a bcrypt hash libcrypt can check: one of ``prefixes``, a two-digit cost
    /// from 04 to 31, `$`, and 53 characters of bcrypt's base-64 alphabet.
    static func isBcrypt(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 60, prefixes.contains(where: { text.hasPrefix($0) }), bytes[6] == UInt8(ascii: "$"),
            let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), (4...31).contains(cost)
        else { return false }
        return bytes[7...].allSatisfy { byte in
            byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}

extension PasswordHash {
    /// What happens to the users of a Parse export in a target that takes no password hashes over
    /// REST (Parse Server hashes the password it is given and has no way to set a hash,
    /// Docs/ParseServer.md#users-and-passwords): `hashes` users have one, `passwordless` have
    /// neither a hash nor `authData` (Parse Server creates no user without a password).
    static func notice(hashes: Int, passwordless: Int, written: Bool) -> String {
        var parts: [String] = []
        if hashes > 0 { parts.append("\(hashes) _User object\(hashes == 1 ? " has a password hash" : "s have password hashes")") }
        if passwordless > 0 { parts.append("\(passwordless) _User object\(passwordless == 1 ? " has" : "s have") no password at all") }
        let subject = parts.joined(separator: " and ")
        guard written else {
            return "\(subject), and a Parse Server takes no hash over REST (it only hashes a password it is given) nor a user without a password: "
                + "nothing was written. Import into a mirror to keep the hashes, or write the users without them: each then gets a random "
                + "password nobody knows and must reset it"
        }
        return "\(subject), and a Parse Server takes no hash over REST: those users are written with a random "
            + "password nobody knows, and must reset it to log in"
    }
}
