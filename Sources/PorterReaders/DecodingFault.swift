/// Bytes of a source file that are not text in its encoding: an invalid sequence, or a
/// character cut off by the end of the file.
public struct DecodingFault: Sendable, CustomStringConvertible {
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
    /// What is wrong with the bytes.
    public let kind: Kind

    /// Bytes that are no text in the encoding, a file cut inside a character, or UTF-16 without
    /// a byte order mark.
    public enum Kind: Sendable {
        /// Bytes that are no character in the encoding.
        case invalid
        /// The file ends inside a character (an odd number of bytes in UTF-16).
        case truncated
        /// `utf-16` was given and the file does not start with a byte order mark.
        case noByteOrderMark
    }

    /// The fault as messages say it (`invalid UTF-8 at byte offset 24 (0xE9)`).
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
