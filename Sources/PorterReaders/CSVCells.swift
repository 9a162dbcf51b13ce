#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A CSV row's cells as their UTF-8 bytes, in one buffer: one allocation per row, where a
/// `String` per cell and an array holding them made several. A cell becomes text only where it
/// is read as text (``text(at:)``); coercions read its bytes (``withCell(at:_:)``).
package struct CSVCells: Sendable {
    /// `count` native `Int`s, each the offset past its cell's last byte (counted from the
    /// first cell's first byte), then the cells' bytes one after the other.
    @usableFromInline let storage: [UInt8]
    /// How many cells the row has.
    @usableFromInline package let count: Int

    /// No cells.
    package init() {
        storage = []
        count = 0
    }

    /// The cells `cells`.
    package init(_ cells: [String]) {
        var ends: [Int] = []
        var bytes: [UInt8] = []
        for cell in cells {
            bytes.append(contentsOf: cell.utf8)
            ends.append(bytes.count)
        }
        self.init(ends: ends, bytes: bytes)
    }

    /// The cells ending at `ends` (offsets past each cell's last byte) in `bytes`.
    package init(ends: [Int], bytes: [UInt8]) {
        let endBytes = ends.count * MemoryLayout<Int>.stride
        count = ends.count
        guard endBytes + bytes.count > 0 else {
            storage = []
            return
        }
        storage = [UInt8](unsafeUninitializedCapacity: endBytes + bytes.count) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            ends.withUnsafeBytes { if let start = $0.baseAddress { memcpy(base, start, endBytes) } }
            bytes.withUnsafeBytes { if let start = $0.baseAddress { memcpy(base + endBytes, start, bytes.count) } }
            initialized = endBytes + bytes.count
        }
    }

    /// `body` on the bytes of the cell at `index` (`index < count`), which are valid UTF-8.
    @inlinable
    package func withCell<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        storage.withUnsafeBytes { raw in
            let width = MemoryLayout<Int>.stride
            let start = index == 0 ? 0 : raw.loadUnaligned(fromByteOffset: (index - 1) * width, as: Int.self)
            let end = raw.loadUnaligned(fromByteOffset: index * width, as: Int.self)
            let base = count * width
            return body(UnsafeRawBufferPointer(rebasing: raw[(base + start)..<(base + end)]).assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The cell at `index` (`index < count`) as text.
    @inlinable
    package func text(at index: Int) -> String {
        withCell(at: index) { String(decoding: $0, as: UTF8.self) }
    }
}
