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
}
