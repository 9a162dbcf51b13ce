import Foundation
import XCTest

/// Everything a mirror holds, exactly: each class's `_SCHEMA` entry (its fields, or the whole
/// `/schemas` JSON), every row of every class table (objectId, createdAt, updatedAt, ACL and
/// each field, with SQLite's storage class, so `3` and `"3"` differ), and every `_Join` table's
/// links. Two mirrors with equal snapshots hold the same objects, ids, typed values, pointers
/// and relations. Bookkeeping tables (`_Porter…`) are left out.
struct MirrorSnapshot: Equatable {
    /// Class → its `fields` JSON (or its whole schema JSON), keys sorted.
    var schemas: [String: String] = [:]
    /// Table → its rows, each as `column=typeof:quote` texts, sorted.
    var rows: [String: [String]] = [:]

    /// Reads `url`. `leavingOut` drops columns (e.g. timestamps a server assigns); with
    /// `wholeSchemas` class-level permissions and indexes count too; with `droppingDanglingLinks`
    /// join rows whose owner or related object is gone are left out (a Parse Server keeps them,
    /// and no REST query returns them). `fileURLsServedBy` drops the `url` a Parse Server at that
    /// address gives every File value it returns (it stores only the name; a copy read through
    /// REST keeps the url); `droppingFileURLs` drops every File's `url` (a MongoDB layout keeps
    /// only the name, as Parse Server stores it).
    init(
        _ url: URL, leavingOut: Set<String> = [], wholeSchemas: Bool = false, droppingDanglingLinks: Bool = false,
        fileURLsServedBy server: String? = nil, droppingFileURLs: Bool = false
    ) throws {
        let mirror = try Mirror(url)
        var targets: [String: String] = [:]
        for row in try mirror.rows("SELECT className, schema FROM _SCHEMA") {
            let className = row[0] ?? ""
            let json = try JSONSerialization.jsonObject(with: Data((row[1] ?? "").utf8)) as? [String: Any] ?? [:]
            let fields = json["fields"] as? [String: Any] ?? [:]
            for case (let field, let spec as [String: Any]) in fields where spec["type"] as? String == "Relation" {
                targets["_Join:\(field):\(className)"] = spec["targetClass"] as? String
            }
            let compared = try JSONSerialization.data(withJSONObject: wholeSchemas ? json : fields, options: [.sortedKeys])
            schemas[className] = String(decoding: compared, as: UTF8.self)
        }
        let tables = try mirror.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_Porter%' ESCAPE '\\' AND name != '_SCHEMA'")
        for table in tables.compactMap({ $0[0] }) {
            let columns = try mirror.rows("SELECT name FROM pragma_table_info('\(table.replacingOccurrences(of: "'", with: "''"))') ORDER BY name")
                .compactMap { $0[0] }.filter { !leavingOut.contains($0) }
            let select = columns.map { "'\($0)=' || typeof(\"\($0)\") || ':' || quote(\"\($0)\")" }.joined(separator: " || ' ' || ")
            var sql = "SELECT \(select) FROM \"\(table)\" AS j"
            if droppingDanglingLinks, let target = targets[table], let owner = table.split(separator: ":").last {
                sql +=
                    " WHERE EXISTS (SELECT 1 FROM \"\(owner)\" o WHERE o.objectId = j.owningId) AND EXISTS (SELECT 1 FROM \"\(target)\" t WHERE t.objectId = j.relatedId)"
            }
            let servedURL = (droppingFileURLs ? "" : server.map { NSRegularExpression.escapedPattern(for: $0 + "/files/") })
                .map { try! NSRegularExpression(pattern: #",\\?"url\\?":\\?""# + $0 + #"[^"\\]*\\?""#) }
            rows[table] = try mirror.rows(sql).map { row in
                let text = row[0] ?? ""
                guard let servedURL else { return text }
                return servedURL.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
            }.sorted()
        }
    }

    /// Fails with the first difference, table by table.
    static func assertEqual(_ actual: MirrorSnapshot, _ expected: MirrorSnapshot, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(actual.schemas, expected.schemas, "\(context): schemas differ", file: file, line: line)
        XCTAssertEqual(Set(actual.rows.keys), Set(expected.rows.keys), "\(context): tables differ", file: file, line: line)
        for (table, expectedRows) in expected.rows {
            guard let actualRows = actual.rows[table], actualRows != expectedRows else { continue }
            let missing = Set(expectedRows).subtracting(actualRows).sorted().prefix(3)
            let extra = Set(actualRows).subtracting(expectedRows).sorted().prefix(3)
            XCTFail(
                "\(context): \(table) differs (\(expectedRows.count) rows expected, \(actualRows.count) found); missing \(Array(missing)), unexpected \(Array(extra))",
                file: file, line: line)
        }
        XCTAssertFalse(expected.rows.isEmpty, "\(context): the expected mirror is empty", file: file, line: line)
    }
}
