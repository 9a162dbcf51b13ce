#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The character encoding of a source file. Readers get every file's text as UTF-8: other
/// encodings are converted by the C library's iconv as the file is read (``TranscodingInput``).
public struct TextEncoding: Hashable, Sendable, CustomStringConvertible {
    /// The name as messages show it, in lower case (`utf-8`, `windows-1252`).
    public let name: String
    /// The name iconv knows; `nil` for `utf-16`, whose byte order the file's byte order mark gives.
    let iconvName: String?

    public static let utf8 = TextEncoding(name: "utf-8", iconvName: "UTF-8")
    /// UTF-16 whose byte order mark (FF FE or FE FF) says little- or big-endian.
    public static let utf16 = TextEncoding(name: "utf-16", iconvName: nil)
    public static let utf16LE = TextEncoding(name: "utf-16le", iconvName: "UTF-16LE")
    public static let utf16BE = TextEncoding(name: "utf-16be", iconvName: "UTF-16BE")
    public static let latin1 = TextEncoding(name: "iso-8859-1", iconvName: "ISO-8859-1")
    public static let windows1252 = TextEncoding(name: "windows-1252", iconvName: "WINDOWS-1252")

    /// The encodings named in messages that list the common ones.
    public static let common: [TextEncoding] = [.utf8, .utf16, .utf16LE, .utf16BE, .latin1, .windows1252]

    private init(name: String, iconvName: String?) {
        self.name = name
        self.iconvName = iconvName
    }

    /// The encoding a manifest names, case-insensitively: `utf-8` (`utf8`), `utf-16`,
    /// `utf-16le`, `utf-16be`, `iso-8859-1` (`latin1`, `latin-1`), `windows-1252` (`cp1252`),
    /// or any other name the C library's iconv converts from (`macintosh`, `shift_jis`, …);
    /// `nil` for a name iconv does not know.
    public init?(named spelling: String) {
        let lowered = spelling.lowercased()
        switch lowered {
        case "utf-8", "utf8": self = .utf8
        case "utf-16", "utf16": self = .utf16
        case "utf-16le", "utf16le": self = .utf16LE
        case "utf-16be", "utf16be": self = .utf16BE
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1": self = .latin1
        case "windows-1252", "cp1252": self = .windows1252
        default:
            guard !lowered.isEmpty, lowered.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { return nil }
            let converter = iconv_open("UTF-8", lowered.uppercased())
            guard converter != iconv_t(bitPattern: -1) else { return nil }
            iconv_close(converter)
            self.init(name: lowered, iconvName: lowered.uppercased())
        }
    }

    public var description: String { name }

    /// The name in prose: Unicode's encodings as Unicode spells them (`UTF-16LE`), others by ``name``.
    var shownName: String { name.hasPrefix("utf-") ? name.uppercased() : name }
}

/// Bytes of a source file that are not text in its encoding: an invalid sequence, or a
/// character cut off by the end of the file.
public struct DecodingFault: Error, Sendable, CustomStringConvertible {
    /// The encoding the file was read as.
    public let encoding: TextEncoding
    /// Whether the encoding was declared, rather than assumed (UTF-8) or taken from a byte order mark.
    public let declared: Bool
    /// The offset of the first byte that cannot be decoded, from the start of the file (0).
    public let byteOffset: Int64
    /// That byte, or `nil` when the fault is a missing byte order mark.
    public let byte: UInt8?
    /// The physical line the byte is on.
    public let line: Int
    public let kind: Kind

    public enum Kind: Sendable {
        /// Bytes that are no character in the encoding.
        case invalid
        /// The file ends inside a character (an odd number of bytes in UTF-16).
        case truncated
        /// `utf-16` was given and the file does not start with a byte order mark.
        case noByteOrderMark
    }

    public var description: String {
        let shownByte = byte.map { " (0x\(String($0, radix: 16, uppercase: true).leftPadded(to: 2)))" } ?? ""
        switch kind {
        case .invalid: return "invalid \(encoding.shownName) at byte offset \(byteOffset)\(shownByte)"
        case .truncated: return "the file ends inside a \(encoding.shownName) character at byte offset \(byteOffset)\(shownByte)"
        case .noByteOrderMark: return "UTF-16 without a byte order mark (FF FE or FE FF), so its byte order is unknown"
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
