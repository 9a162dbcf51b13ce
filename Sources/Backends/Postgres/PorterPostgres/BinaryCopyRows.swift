import Foundation
import ParseModel

/// Rows in `COPY … FROM STDIN (FORMAT binary)`'s format (PostgreSQL's `copy.sgml`, "Binary
/// Format"; each value in its type's `_recv` form): a field count per row, then each value as
/// its length and bytes, `-1` for NULL. The server parses no text for these: numbers, dates,
/// booleans and points arrive as their bits. Used where every column's type is known: the
/// tables this import created. The file header and trailer are the stream's
/// (``PostgresConnection/stream(_:into:columns:freeze:)``).
package struct BinaryCopyRows {
    /// The type of a column, as its value is encoded.
    package enum Column: Equatable, CaseIterable {
        case text, timestamp, jsonb, boolean, float8, point, polygon, textArray

        /// The column of a field of `type` (``PostgresLayout/columnType(_:)``); `nil` for a relation or the ACL.
        package init?(_ type: FieldType) {
            switch type {
            case .string, .file, .pointer: self = .text
            case .date: self = .timestamp
            case .object, .bytes, .array: self = .jsonb
            case .boolean: self = .boolean
            case .number: self = .float8
            case .geoPoint: self = .point
            case .polygon: self = .polygon
            case .relation, .acl: return nil
            }
        }
    }

    /// What ``append(_:as:)`` made of a value.
    package enum Appended {
        case appended
        /// A text that holds a NUL character, which no PostgreSQL `text` can.
        case holdsNUL
        /// A value that does not fit its column's type (PostgreSQL would refuse its text too):
        /// the row is incomplete, not to be sent.
        case mismatch
    }

    /// The encoded rows, written in place (no `Array` bookkeeping per value); shared by copies
    /// until one of them changes.
    private var storage = ByteStorage()
    /// Rows added so far.
    package private(set) var count = 0

    /// A copy of the encoded rows.
    package var bytes: [UInt8] { withBytes { Array($0) } }

    /// Calls `body` with the encoded rows.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
    }

    /// `PGCOPY\n\377\r\n\0`, no flags, no header extension.
    static let header: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
    /// The field count `-1` that ends the data.
    static let trailer: [UInt8] = [0xFF, 0xFF]

    /// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 00:00:00 UTC).
    private static let postgresEpochMicroseconds: Int64 = 946_684_800_000_000

    /// No rows yet.
    package init() {}

    /// No rows, the bytes' room kept for the next ones.
    package mutating func removeAll() {
        if isKnownUniquelyReferenced(&storage) { storage.count = 0 } else { storage = ByteStorage() }
        count = 0
    }

    /// Starts a row of `fields` values.
    package mutating func startRow(fields: Int) {
        put(UInt16(fields))
        count += 1
    }

    /// A NULL value: the length `-1`, no bytes.
    package mutating func appendNull() { put(UInt32(bitPattern: -1)) }

    /// A text value; returns whether it holds a NUL character, which no PostgreSQL `text` can.
    @discardableResult
    package mutating func append(text: String?) -> Bool {
        guard let text else {
            appendNull()
            return false
        }
        var value = text
        return value.withUTF8 { utf8 in
            put(UInt32(utf8.count))
            put(UnsafeRawBufferPointer(utf8))
            return utf8.count > 0 && memchr(utf8.baseAddress!, 0, utf8.count) != nil
        }
    }

    /// A `timestamp with time zone` (`timestamptz_recv`): microseconds since PostgreSQL's epoch.
    package mutating func append(date: ParseDate) {
        put(UInt32(8))
        put(UInt64(bitPattern: date.millisecondsSince1970 * 1000 - Self.postgresEpochMicroseconds))
    }

    /// A `text[]` of one dimension (`array_recv`), or NULL.
    package mutating func append(textArray items: [String]?) {
        guard let items else { return appendNull() }
        let lengthAt = storage.count
        put(UInt32(0))
        // Dimensions, no NULL items, element type `text` (oid 25).
        put(UInt32(items.isEmpty ? 0 : 1))
        put(UInt32(0))
        put(UInt32(25))
        if !items.isEmpty {
            put(UInt32(items.count))
            put(UInt32(1))
        }
        for item in items {
            var item = item
            item.withUTF8 { utf8 in
                put(UInt32(utf8.count))
                put(UnsafeRawBufferPointer(utf8))
            }
        }
        setLength(at: lengthAt)
    }

    /// `value` in a column of type `column`: the form ``ParseValue/postgresText`` gives it, as
    /// that type's binary input takes it.
    package mutating func append(_ value: ParseValue?, as column: Column) -> Appended {
        guard let value, !value.isNullInColumn else {
            appendNull()
            return .appended
        }
        switch (column, value) {
        case (.text, .string(let text)): return append(text: text) ? .holdsNUL : .appended
        case (.text, .pointer(let pointer)): return append(text: pointer.objectId) ? .holdsNUL : .appended
        case (.text, .file(let file)): return append(text: file.name) ? .holdsNUL : .appended
        case (.timestamp, .date(let date)): append(date: date)
        case (.boolean, .boolean(let flag)):
            put(UInt32(1))
            put(UInt8(flag ? 1 : 0))
        case (.float8, .integer(let number)): append(float8: Double(number))
        case (.float8, .double(let number)): append(float8: number)
        case (.point, .geoPoint(let point)):
            put(UInt32(16))
            putPoint(point)
        case (.polygon, .polygon(let polygon)):
            // Parse Server closes an open ring by repeating its first point (as the text form).
            var ring = polygon.coordinates
            if let first = ring.first, first != ring.last { ring.append(first) }
            put(UInt32(4 + 16 * ring.count))
            put(UInt32(ring.count))
            for point in ring { putPoint(point) }
        case (.jsonb, .bytes), (.jsonb, .array), (.jsonb, .object), (.jsonb, .acl):
            // Version 1, then the JSON text; no raw NUL (JSON escapes it).
            let lengthAt = storage.count
            put(UInt32(0))
            put(UInt8(1))
            var text = value.wireJSON.serialized()
            text.withUTF8 { put(UnsafeRawBufferPointer($0)) }
            setLength(at: lengthAt)
        default: return .mismatch
        }
        return .appended
    }

    private mutating func append(float8 number: Double) {
        put(UInt32(8))
        put(number.bitPattern)
    }

    /// A point: x is the longitude, y the latitude.
    private mutating func putPoint(_ point: GeoPoint) {
        put(point.longitude.bitPattern)
        put(point.latitude.bitPattern)
    }

    /// Writes the length of the value that starts at `index` (after its 4 length bytes).
    private mutating func setLength(at index: Int) {
        storage.base!.storeBytes(of: UInt32(storage.count - index - 4).bigEndian, toByteOffset: index, as: UInt32.self)
    }

    private mutating func put<T: FixedWidthInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        room(size).storeBytes(of: value.bigEndian, as: T.self)
        storage.count += size
    }

    private mutating func put(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        room(bytes.count).copyMemory(from: source, byteCount: bytes.count)
        storage.count += bytes.count
    }

    /// Where the next `size` bytes go, with room for them, the storage this value's own.
    private mutating func room(_ size: Int) -> UnsafeMutableRawPointer {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy(room: size) }
        if storage.capacity - storage.count < size { storage.grow(room: size) }
        return storage.base! + storage.count
    }
}

/// The bytes of ``BinaryCopyRows``: a buffer that doubles when full.
private final class ByteStorage {
    private(set) var base: UnsafeMutableRawPointer?
    var count = 0
    private(set) var capacity = 0

    deinit { base?.deallocate() }

    /// Room for `size` more bytes at least.
    func grow(room size: Int) {
        let capacity = max(2 * capacity, count + size, 1 << 16)
        let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        if let base {
            grown.copyMemory(from: base, byteCount: count)
            base.deallocate()
        }
        (base, self.capacity) = (grown, capacity)
    }

    /// A copy of the bytes, with room for `size` more.
    func copy(room size: Int) -> ByteStorage {
        let copy = ByteStorage()
        copy.grow(room: count + size)
        if let base { copy.base!.copyMemory(from: base, byteCount: count) }
        copy.count = count
        return copy
    }
}

extension ParseValue {
    /// Whether the value is NULL in its column (``postgresText`` is `nil`).
    fileprivate var isNullInColumn: Bool {
        switch self {
        case .null, .relation: true
        default: false
        }
    }
}
