/// The bytes the parsers look for.
enum ASCII {
    static let tab: UInt8 = 0x09
    static let lineFeed: UInt8 = 0x0A
    static let carriageReturn: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let plus: UInt8 = 0x2B
    static let percent: UInt8 = 0x25
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let zero: UInt8 = 0x30
    static let slash: UInt8 = 0x2F
    static let questionMark: UInt8 = 0x3F
    static let equalsSign: UInt8 = 0x3D
    static let ampersand: UInt8 = 0x26
    static let numberSign: UInt8 = 0x23
    static let hyphen: UInt8 = 0x2D
    static let period: UInt8 = 0x2E
    static let digits: ClosedRange<UInt8> = 0x30...0x39

    static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// `bytes` without leading and trailing spaces and tabs.
    static func trimmingBlanks(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else {
            return []
        }
        return bytes[first...last]
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool { digits ~= byte || (0x41...0x5A) ~= byte || (0x61...0x7A) ~= byte }

    /// The value of a hexadecimal digit, either case.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case digits: byte - zero
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingASCIISpaces: String {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}
