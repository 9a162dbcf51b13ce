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

    /// The encoded rows.
    package private(set) var bytes: [UInt8] = []
    /// Rows added so far.
    package private(set) var count = 0

    /// `PGCOPY\n\377\r\n\0`, no flags, no header extension.
    static let header: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00, 0, 0, 0, 0, 0, 0, 0, 0]
    /// The field count `-1` that ends the data.
    static let trailer: [UInt8] = [0xFF, 0xFF]

    /// Microseconds from the Unix epoch to PostgreSQL's (2000-01-01 00:00:00 UTC).
    private static let postgresEpochMicroseconds: Int64 = 946_684_800_000_000

    package init() {}

    /// No rows, the bytes' room kept for the next ones.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        count = 0
    }

    /// Starts a row of `fields` values.
    package mutating func startRow(fields: Int) {
        put(UInt16(fields))
        count += 1
    }

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
            bytes.append(contentsOf: utf8)
            return utf8.contains(0)
        }
    }

    package mutating func append(date: ParseDate) {
        put(UInt32(8))
        put(UInt64(bitPattern: date.millisecondsSince1970 * 1000 - Self.postgresEpochMicroseconds))
    }

    /// A `text[]` of one dimension (`array_recv`), or NULL.
    package mutating func append(textArray items: [String]?) {
        guard let items else { return appendNull() }
        let lengthAt = bytes.count
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
                bytes.append(contentsOf: utf8)
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
            bytes.append(flag ? 1 : 0)
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
            let lengthAt = bytes.count
            put(UInt32(0))
            bytes.append(1)
            var text = value.wireJSON.serialized()
            text.withUTF8 { bytes.append(contentsOf: $0) }
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
        let length = UInt32(bytes.count - index - 4)
        for shift in 0..<4 { bytes[index + shift] = UInt8(truncatingIfNeeded: length >> (24 - 8 * shift)) }
    }

    private mutating func put<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
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
