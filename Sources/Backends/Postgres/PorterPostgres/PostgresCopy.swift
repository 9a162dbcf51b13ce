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
        let sql = "COPY \(quoted(table)) (\(columns.map(quoted).joined(separator: ", "))) FROM STDIN"
        guard let connection else { throw PorterError(.target, "\(shownURL): the connection is closed") }
        try check(PQexec(connection, sql), sql: sql, expecting: [PGRES_COPY_IN])
        let chunk = 1 << 20
        var sent = 0
        var failed = false
        rows.bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                while sent < text.count && !failed {
                    let length = min(chunk, text.count - sent)
                    failed = PQputCopyData(connection, text.baseAddress! + sent, Int32(length)) != 1
                    sent += length
                }
            }
        }
        // On a failed send the COPY is ended with an error, so that the server's reason comes back.
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

/// `name` as a PostgreSQL identifier: in double quotes, inner ones doubled. Parse's names are
/// case-sensitive (`"GameScore"`, `"_Join:likes:Post"`), so every identifier is quoted.
func quoted(_ name: String) -> String {
    "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
