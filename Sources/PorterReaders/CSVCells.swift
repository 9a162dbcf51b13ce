#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A CSV row's cells as their UTF-8 bytes, in a ``CSVRowBlock`` that holds many rows: a cell
/// becomes text only where it is read as text (``text(at:)``); coercions read its bytes
/// (``cell(at:)``). The reader writes its rows one after the other into blocks it reuses once
/// no row of theirs is held any more, so that reading a row allocates nothing.
package struct CSVCells: Sendable {
    /// The block holding the row; `nil` for a row without cells.
    @usableFromInline let block: CSVRowBlock?
    /// Where the row's bytes start in the block (the cells one after the other), and where the
    /// `count` native `Int`s start that give each cell's end (counted from the row's start).
    @usableFromInline let start: Int
    @usableFromInline let endsStart: Int
    /// How many cells the row has.
    @usableFromInline package let count: Int

    /// No cells.
    package init() {
        (block, start, endsStart, count) = (nil, 0, 0, 0)
    }

    /// The cells `cells`, in a block of their own.
    package init(_ cells: [String]) {
        var writer = CSVRowWriter(blockSize: cells.reduce(0) { $0 + $1.utf8.count } + cells.count * MemoryLayout<Int>.stride + 8)
        var ends: [Int] = []
        for cell in cells {
            var cell = cell
            cell.withUTF8 { writer.append(UnsafeRawBufferPointer($0)) }
            ends.append(writer.rowLength)
        }
        self = writer.completeRow(ends: ends)
    }

    /// The row of `count` cells at `start` in `block`, their ends at `endsStart`.
    init(block: CSVRowBlock, start: Int, endsStart: Int, count: Int) {
        (self.block, self.start, self.endsStart, self.count) = (block, start, endsStart, count)
    }

    /// The bytes of the cell at `index` (`index < count`), which are valid UTF-8; they stay valid
    /// as long as this value (or a copy of it, or the record holding it) is held: a function
    /// reading its parameter's cells needs no closure.
    @inlinable
    package func cell(at index: Int) -> UnsafeBufferPointer<UInt8> {
        let base = UnsafeRawPointer(block.unsafelyUnwrapped.base)
        let width = MemoryLayout<Int>.stride
        let cellStart = index == 0 ? 0 : base.loadUnaligned(fromByteOffset: endsStart + (index - 1) * width, as: Int.self)
        let cellEnd = base.loadUnaligned(fromByteOffset: endsStart + index * width, as: Int.self)
        return UnsafeBufferPointer(start: (base + start + cellStart).assumingMemoryBound(to: UInt8.self), count: cellEnd - cellStart)
    }

    /// The cell at `index` (`index < count`) as text.
    package func text(at index: Int) -> String {
        String(decoding: cell(at: index), as: UTF8.self)
    }
}

/// Memory that holds the cells of CSV rows one after the other (see ``CSVCells``), freed with
/// the last row that uses it.
package final class CSVRowBlock: @unchecked Sendable {
    /// Written only while the reader alone holds the block, read through ``CSVCells`` after.
    @usableFromInline let base: UnsafeMutableRawPointer
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: max(capacity, 1), alignment: MemoryLayout<Int>.alignment)
        base.bindMemory(to: UInt8.self, capacity: max(capacity, 1))
    }

    deinit {
        base.deallocate()
    }
}

/// Writes rows' cells into ``CSVRowBlock``s: the row under way at the end of the current block,
/// moved to a new block when it does not fit. A block the reader filled is used again once none
/// of its rows is held (the rows of a file are mostly released in the order they were read, so
/// the oldest block is the one looked at); blocks are allocated only while rows are held.
struct CSVRowWriter {
    /// Bytes of a block; a row larger than that has a block of its own.
    let blockSize: Int
    private var block: CSVRowBlock
    /// The row under way: its first byte, and the end of what is written.
    private var rowStart = 0
    private var used = 0
    /// Blocks filled before the current one, oldest first.
    private var filled: [CSVRowBlock] = []
    /// Blocks kept in ``filled`` at most; the oldest beyond them are left to their rows.
    private static let keptBlocks = 64

    init(blockSize: Int = 1 << 14) {
        self.blockSize = blockSize
        block = CSVRowBlock(capacity: blockSize)
    }

    /// Bytes of the row under way so far.
    var rowLength: Int { used - rowStart }

    /// Adds `bytes` to the row under way.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if used + bytes.count > block.capacity { moveRow(making: bytes.count) }
        memcpy(block.base + used, source, bytes.count)
        used += bytes.count
    }

    /// Ends the row under way, whose cells end at `ends` (offsets from the row's start).
    mutating func completeRow(ends: [Int]) -> CSVCells {
        let width = MemoryLayout<Int>.stride
        if ends.isEmpty {
            used = rowStart
            return CSVCells()
        }
        if (used + width - 1) / width * width + ends.count * width > block.capacity { moveRow(making: width - 1 + ends.count * width) }
        let endsStart = (used + width - 1) / width * width
        ends.withUnsafeBytes { _ = memcpy(block.base + endsStart, $0.baseAddress!, $0.count) }
        let cells = CSVCells(block: block, start: rowStart, endsStart: endsStart, count: ends.count)
        used = endsStart + ends.count * width
        rowStart = used
        return cells
    }

    /// Moves the row under way to the start of another block with room for `more` bytes after it.
    private mutating func moveRow(making more: Int) {
        let length = used - rowStart
        let next = reusableBlock(capacity: length + more) ?? CSVRowBlock(capacity: max(blockSize, length + more))
        if length > 0 { memcpy(next.base, block.base + rowStart, length) }
        if block.capacity == blockSize && rowStart > 0 {
            if filled.count == Self.keptBlocks { filled.removeFirst() }
            filled.append(block)
        }
        block = next
        rowStart = 0
        used = length
    }

    /// The oldest filled block when no row of it is held any more and it has `capacity` bytes.
    private mutating func reusableBlock(capacity: Int) -> CSVRowBlock? {
        guard capacity <= blockSize, !filled.isEmpty, isKnownUniquelyReferenced(&filled[0]) else { return nil }
        return filled.removeFirst()
    }
}
