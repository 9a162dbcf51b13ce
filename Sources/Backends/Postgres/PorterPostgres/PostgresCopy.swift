import CLibPQ
import Foundation
import ParseModel
import PorterCore

/// Rows in `COPY … FROM STDIN`'s text format: columns split by tabs, rows ended by newlines,
/// `\N` for NULL, and backslash, tab, newline and carriage return escaped inside values.
public struct CopyRows {
    /// The encoded rows.
    public private(set) var bytes: [UInt8] = []
    /// Rows added so far.
    public private(set) var count = 0
    private var columnsInRow = 0

    /// No rows yet.
    public init() {}

    /// Adds the next column of the current row: its text, or `nil` for NULL. Returns whether
    /// the text holds a NUL character, which no PostgreSQL `text` or `jsonb` value can: such
    /// rows are not to be sent.
    @discardableResult
    public mutating func append(_ value: String?) -> Bool {
        startColumn()
        guard let value else {
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
            return false
        }
        var text = value
        return text.withUTF8 { utf8 in
            // Runs of bytes that need no escape are copied whole.
            var runStart = 0
            var holdsNUL = false
            for (index, byte) in utf8.enumerated() {
                let escaped: UInt8
                switch byte {
                case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
                case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
                case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
                case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
                case 0:
                    holdsNUL = true
                    continue
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(escaped)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
            return holdsNUL
        }
    }

    /// Adds the next column of the current row: a date as ISO 8601 text (UTC, milliseconds),
    /// written straight into the rows.
    public mutating func append(date: ParseDate) {
        startColumn()
        date.writeISO(to: &bytes)
    }

    private mutating func startColumn() {
        if columnsInRow > 0 { bytes.append(UInt8(ascii: "\t")) }
        columnsInRow += 1
    }

    /// Ends the current row.
    public mutating func endRow() {
        bytes.append(UInt8(ascii: "\n"))
        columnsInRow = 0
        count += 1
    }
}

extension PostgresConnection {
    /// Sends `rows` by `COPY "table" ("column", …) FROM STDIN` (text format); returns how many
    /// rows the server took. A bad row fails the whole COPY (and the transaction it is in).
    @discardableResult
    public func copy(into table: String, columns: [String], _ rows: CopyRows) throws(PorterError) -> Int {
        try endStream()
        let sql = "COPY \(quoted(table)) (\(columns.map(quoted).joined(separator: ", "))) FROM STDIN"
        guard let connection else { throw PorterError(.target, "\(shownURL): the connection is closed") }
        try check(PQexec(connection, sql), sql: sql, expecting: [PGRES_COPY_IN])
        let failed = !rows.bytes.withUnsafeBytes { send($0, on: connection) }
        return try endCopy(sql: sql, failed: failed, on: connection)
    }

    /// Sends `rows` by a binary `COPY "table" ("column", …) FROM STDIN` left open: the next
    /// rows for the same table and columns go into the same COPY, so that the server takes
    /// them in while the client makes the next ones; any other statement on the connection
    /// ends it first (``endStream()``), and a failed COPY fails that statement. With `freeze`
    /// the rows are written frozen (`COPY … FREEZE`): only for a table created or emptied in
    /// this transaction.
    package func stream(_ rows: BinaryCopyRows, into table: String, columns: [String], freeze: Bool) throws(PorterError) {
        if let open = openStream, open.table != table || open.columns != columns { try endStream() }
        guard let connection else { throw PorterError(.target, "\(shownURL): the connection is closed") }
        if openStream == nil {
            let sql = "COPY \(quoted(table)) (\(columns.map(quoted).joined(separator: ", "))) FROM STDIN (FORMAT binary\(freeze ? ", FREEZE" : ""))"
            try check(PQexec(connection, sql), sql: sql, expecting: [PGRES_COPY_IN])
            openStream = CopyStream(table: table, columns: columns, sql: sql)
            guard BinaryCopyRows.header.withUnsafeBytes({ send($0, on: connection) }) else { return try failStream() }
        }
        guard rows.withBytes({ send($0, on: connection) }) else { return try failStream() }
    }

    /// Ends the COPY ``stream(_:into:columns:freeze:)`` left open, if any; returns how many
    /// rows it took. Throws the server's reason when the COPY failed.
    @discardableResult
    package func endStream() throws(PorterError) -> Int {
        guard let open = openStream, let connection else { return 0 }
        openStream = nil
        let failed = !BinaryCopyRows.trailer.withUnsafeBytes { send($0, on: connection) }
        return try endCopy(sql: open.sql, failed: failed, on: connection)
    }

    /// Ends the open COPY, if any, with an error: none of its rows are written.
    func abandonStream() {
        guard openStream != nil, let connection else { return }
        openStream = nil
        _ = PQputCopyEnd(connection, "abandoned: the import is rolled back")
        while let result = PQgetResult(connection) { PQclear(result) }
    }

    private func failStream() throws(PorterError) {
        if let open = openStream, let connection {
            openStream = nil
            _ = try endCopy(sql: open.sql, failed: true, on: connection)
        }
        throw PorterError(.target, "\(shownURL): the rows could not be sent")
    }

    /// Sends COPY data in chunks of 1 MB; `false` when libpq could not.
    private func send(_ bytes: UnsafeRawBufferPointer, on connection: OpaquePointer) -> Bool {
        let chunk = 1 << 20
        var sent = 0
        guard let data = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else { return true }
        while sent < bytes.count {
            let length = min(chunk, bytes.count - sent)
            guard PQputCopyData(connection, data + sent, Int32(length)) == 1 else { return false }
            sent += length
        }
        return true
    }

    /// Ends a COPY (with an error when the rows could not be sent, so that the server's reason
    /// comes back) and returns how many rows the server took.
    private func endCopy(sql: String, failed: Bool, on connection: OpaquePointer) throws(PorterError) -> Int {
        _ = PQputCopyEnd(connection, failed ? "the client could not send the rows" : nil)
        var taken = 0
        var failure: PorterError?
        while let result = PQgetResult(connection) {
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                taken = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if failure == nil {
                failure = self.failure(result, sql: sql)
            }
            PQclear(result)
        }
        if let failure { throw failure }
        return taken
    }
}

extension PostgresConnection {
    /// Runs `sql`, a `COPY … TO STDOUT (FORMAT binary)`, and calls `body` with each row it
    /// gives, read in place in libpq's buffer (valid only during the call). When `body`
    /// throws, the rest of the rows are read and dropped, and its error is thrown.
    package func copyOut(_ sql: String, _ body: (BinaryCopyRow) throws(PorterError) -> Void) throws(PorterError) {
        try endStream()
        guard let connection else { throw PorterError(.target, "\(shownURL): the connection is closed") }
        try check(PQexec(connection, sql), sql: sql, expecting: [PGRES_COPY_OUT])
        var row = BinaryCopyRow()
        var failure: PorterError?
        var inHeader = true
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = PQgetCopyData(connection, &buffer, 0)
            guard length >= 0, let buffer else { break }
            defer { PQfreemem(buffer) }
            guard failure == nil else { continue }
            var data = UnsafeRawBufferPointer(start: buffer, count: Int(length))
            if inHeader {
                inHeader = false
                guard let start = BinaryCopyRow.afterHeader(data) else {
                    failure = PorterError(.target, "\(shownURL): COPY did not start with the binary header: \(sql)")
                    continue
                }
                data = UnsafeRawBufferPointer(rebasing: data[start...])
            }
            do throws(PorterError) {
                var offset = 0
                while offset < data.count {
                    guard let next = row.read(data, at: offset) else {
                        throw PorterError(.target, "\(shownURL): a COPY row this reading cannot take: \(sql)")
                    }
                    if row.isTrailer { break }
                    try body(row)
                    offset = next
                }
            } catch {
                failure = error
            }
        }
        while let result = PQgetResult(connection) {
            if failure == nil && PQresultStatus(result) != PGRES_COMMAND_OK { failure = self.failure(result, sql: sql) }
            PQclear(result)
        }
        if let failure { throw failure }
    }
}

/// One row of a binary `COPY … TO STDOUT` (PostgreSQL's `copy.sgml`, "Binary Format"): a
/// field count, then each field as its length (`-1` for NULL) and its bytes in its type's
/// `_send` form.
package struct BinaryCopyRow {
    private var data = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Where each field's length starts in ``data``.
    private var starts: [Int] = []
    /// Whether the row is the field count `-1` that ends the data.
    fileprivate private(set) var isTrailer = false

    /// The fields in the row.
    package var count: Int { starts.count }

    /// The bytes of field `index`; `nil` for NULL.
    package subscript(index: Int) -> UnsafeRawBufferPointer? {
        let start = starts[index]
        let length = Int32(bitPattern: data.loadUnaligned(fromByteOffset: start, as: UInt32.self).bigEndian)
        return length < 0 ? nil : UnsafeRawBufferPointer(rebasing: data[start + 4..<start + 4 + Int(length)])
    }

    /// Fields `range` as they came, each with its length: the bytes ``BinaryCopyRows`` makes of the same values.
    package func encoded(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        guard let first = range.first else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let end = range.upperBound < starts.count ? starts[range.upperBound] : data.count
        return UnsafeRawBufferPointer(rebasing: data[starts[first]..<end])
    }

    /// Reads the row that starts at `offset`; returns where the next starts, `nil` when the
    /// bytes do not hold a whole row.
    fileprivate mutating func read(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        guard offset + 2 <= bytes.count else { return nil }
        let fields = Int16(bitPattern: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self).bigEndian)
        isTrailer = fields == -1
        starts.removeAll(keepingCapacity: true)
        var position = offset + 2
        guard fields >= 0 else { return position }
        for _ in 0..<fields {
            guard position + 4 <= bytes.count else { return nil }
            starts.append(position)
            let length = Int32(bitPattern: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).bigEndian)
            position += 4 + max(0, Int(length))
            guard position <= bytes.count else { return nil }
        }
        data = UnsafeRawBufferPointer(rebasing: bytes[..<position])
        return position
    }

    /// Where the rows start after the header at the start of `bytes`: the signature, the
    /// flags and the header extension; `nil` when the bytes do not start with one.
    fileprivate static func afterHeader(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let signature = BinaryCopyRows.header.prefix(11)
        guard bytes.count >= 19, bytes.prefix(11).elementsEqual(signature) else { return nil }
        let extensionLength = Int(bytes.loadUnaligned(fromByteOffset: 15, as: UInt32.self).bigEndian)
        return bytes.count >= 19 + extensionLength ? 19 + extensionLength : nil
    }
}

/// A COPY a ``PostgresConnection`` keeps open for more rows.
struct CopyStream {
    let table: String
    let columns: [String]
    let sql: String
}

/// `name` as a PostgreSQL identifier: in double quotes, inner ones doubled. Parse's names are
/// case-sensitive (`"GameScore"`, `"_Join:likes:Post"`), so every identifier is quoted.
func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
