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

    /// UTF-8, the default; a byte order mark at the start is skipped.
    public static let utf8 = TextEncoding(name: "utf-8", iconvName: "UTF-8")
    /// UTF-16 whose byte order mark (FF FE or FE FF) says little- or big-endian.
    public static let utf16 = TextEncoding(name: "utf-16", iconvName: nil)
    /// UTF-16 little-endian, as Excel's "Unicode text" saves it.
    public static let utf16LE = TextEncoding(name: "utf-16le", iconvName: "UTF-16LE")
    /// UTF-16 big-endian.
    public static let utf16BE = TextEncoding(name: "utf-16be", iconvName: "UTF-16BE")
    /// ISO-8859-1 (Latin-1).
    public static let latin1 = TextEncoding(name: "iso-8859-1", iconvName: "ISO-8859-1")
    /// Windows-1252, what spreadsheet programs save in Western Europe: Latin-1 with `€` and
    /// typographic quotes in 0x80–0x9F.
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

    /// The ``name``.
    public var description: String { name }

    /// The name in prose: Unicode's encodings as Unicode spells them (`UTF-16LE`), others by ``name``.
    var shownName: String { name.hasPrefix("utf-") ? name.uppercased() : name }
}
