import Foundation
import XCTest

/// Everything a mirror holds, exactly: each class's fields as `_SCHEMA` declares them, every row
/// of every class table (objectId, createdAt, updatedAt, ACL and each field, with SQLite's
/// storage class, so `3` and `"3"` differ), and every `_Join` table's links. Two mirrors with
/// equal snapshots hold the same objects, ids, typed values, pointers and relations.
struct MirrorSnapshot: Equatable {
    /// Class → its `fields` JSON with sorted keys.
    var fields: [String: String] = [:]
    /// Table → its rows, each as `typeof:quote` texts, sorted.
    var rows: [String: [String]] = [:]

    /// Reads `url`; `leavingOut` drops columns (e.g. timestamps a server assigns).
    init(_ url: URL, leavingOut: Set<String> = []) throws {
        let mirror = try Mirror(url)
        for row in try mirror.rows("SELECT className, schema FROM _SCHEMA") {
            let json = try JSONSerialization.jsonObject(with: Data((row[1] ?? "").utf8)) as? [String: Any]
            let fields = try JSONSerialization.data(withJSONObject: json?["fields"] ?? [:], options: [.sortedKeys])
            self.fields[row[0] ?? ""] = String(decoding: fields, as: UTF8.self)
        }
        let tables = try mirror.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_Porter%' ESCAPE '\\' AND name != '_SCHEMA'")
        for table in tables.compactMap({ $0[0] }) {
            let columns = try mirror.rows("SELECT name FROM pragma_table_info('\(table.replacingOccurrences(of: "'", with: "''"))') ORDER BY name")
                .compactMap { $0[0] }.filter { !leavingOut.contains($0) }
            let select = columns.map { "'\($0)=' || typeof(\"\($0)\") || ':' || quote(\"\($0)\")" }.joined(separator: " || ' ' || ")
            rows[table] = try mirror.rows("SELECT \(select) FROM \"\(table)\"").map { $0[0] ?? "" }.sorted()
        }
    }

    /// Fails with the first difference, table by table.
    static func assertEqual(_ actual: MirrorSnapshot, _ expected: MirrorSnapshot, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.fields, expected.fields, "\(context): schemas differ", file: file, line: line)
        XCTAssertEqual(Set(actual.rows.keys), Set(expected.rows.keys), "\(context): tables differ", file: file, line: line)
        for (table, expectedRows) in expected.rows {
            guard let actualRows = actual.rows[table], actualRows != expectedRows else { continue }
            let missing = Set(expectedRows).subtracting(actualRows).sorted().prefix(3)
            let extra = Set(actualRows).subtracting(expectedRows).sorted().prefix(3)
            XCTFail("\(context): \(table) differs (\(expectedRows.count) rows expected, \(actualRows.count) found); missing \(Array(missing)), unexpected \(Array(extra))", file: file, line: line)
        }
        XCTAssertFalse(expected.rows.isEmpty, "\(context): the expected mirror is empty", file: file, line: line)
    }
}
