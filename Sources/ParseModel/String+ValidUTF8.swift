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

    /// Whether `bytes` are valid UTF-8, without making a `String` of them: ASCII is checked
    /// eight bytes at a time, other text validated in place.
    package static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index + 8 <= bytes.count {
            guard bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else {
                return isValidNonASCII(bytes)
            }
            index += 8
        }
        while index < bytes.count {
            guard bytes[index] < 0x80 else { return isValidNonASCII(bytes) }
            index += 1
        }
        return true
    }

    private static func isValidNonASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        (try? UTF8Span(validating: bytes.assumingMemoryBound(to: UInt8.self).span)) != nil
    }
}
