#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// The text of `bytes` when they are valid UTF-8, `nil` otherwise.
    ///
    /// Same result as `String(validating:as: UTF8.self)`, which is several times slower for
    /// short strings because it is not specialized (this matters to readers making millions
    /// of cells): the bytes are decoded on the non-generic path, and any repair shows as a
    /// difference from the input.
    package init?(validUTF8 bytes: UnsafeRawBufferPointer) {
        var decoded = String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        let isUnchanged = decoded.withUTF8 { output in
            guard output.count == bytes.count else { return false }
            guard let outputStart = output.baseAddress, let inputStart = bytes.baseAddress else { return true }
            return memcmp(outputStart, inputStart, bytes.count) == 0
        }
        guard isUnchanged else { return nil }
        self = decoded
    }

    /// Whether `bytes` are valid UTF-8, without making a `String` of them (see ``utf8Validity(of:)``).
    package static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        utf8Validity(of: bytes) == 0
    }

    /// Whether `bytes` are valid UTF-8 but for a character cut off by their end (text read a
    /// chunk at a time): how many bytes of such a character end them (0 when none does), `nil`
    /// when they are not UTF-8. One pass: ASCII 32 and 8 bytes at a time, each other character
    /// checked against the well-formed byte sequences of The Unicode Standard's Table 3-7 (no
    /// overlong forms, no surrogates, nothing above U+10FFFF), as `String(validating:as:)`
    /// checks them.
    package static func utf8Validity(of bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        let high: UInt64 = 0x8080_8080_8080_8080
        func word(_ offset: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        var index = 0
        while index < count {
            if index + 32 <= count, (word(index) | word(index + 8) | word(index + 16) | word(index + 24)) & high == 0 {
                index += 32
                continue
            }
            if index + 8 <= count, word(index) & high == 0 {
                index += 8
                continue
            }
            let lead = bytes[index]
            guard lead >= 0x80 else {
                index += 1
                continue
            }
            // The sequence's length, and the range of its second byte (the others are 80...BF).
            let length: Int
            let second: ClosedRange<UInt8>
            switch lead {
            case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
            case 0xE0: (length, second) = (3, 0xA0...0xBF)
            case 0xED: (length, second) = (3, 0x80...0x9F)
            case 0xE1...0xEF: (length, second) = (3, 0x80...0xBF)
            case 0xF0: (length, second) = (4, 0x90...0xBF)
            case 0xF4: (length, second) = (4, 0x80...0x8F)
            case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
            default: return nil
            }
            let present = Swift.min(length, count - index)
            if present > 1, !second.contains(bytes[index + 1]) { return nil }
            if present > 2, bytes[index + 2] & 0xC0 != 0x80 { return nil }
            if present > 3, bytes[index + 3] & 0xC0 != 0x80 { return nil }
            guard present == length else { return present }
            index += length
        }
        return 0
    }
}
