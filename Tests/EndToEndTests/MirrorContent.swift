import CSQLite
import Foundation
import XCTest

/// A mirror's data with every objectId replaced by its object's natural key: what two imports
/// of one dataset must agree on, whatever ids (and timestamps) each target assigned.
struct MirrorContent: Equatable, CustomStringConvertible {
    /// Class → natural key text → field → value text (pointers as the target's key text).
    var objects: [String: [String: [String: String]]] = [:]
    /// `_Join:<field>:<Class>` → (owner key, related key) pairs.
    var links: [String: Set<[String]>] = [:]

    /// Reads `url`; `keys` names each class's natural-key fields (none: the objectId is the key).
    init(_ url: URL, keys: [String: [String]]) throws {
        let mirror = try Mirror(url)
        var schemas: [String: [String: Any]] = [:]
        for row in try mirror.rows("SELECT className, schema FROM _SCHEMA") {
            guard let name = row[0], !name.hasPrefix("_"), let text = row[1],
                let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let fields = json["fields"] as? [String: Any]
            else { continue }
            schemas[name] = fields
        }
        var keyTexts: [String: [String: String]] = [:]
        func keyText(_ className: String, _ objectId: String) throws -> String {
            if keyTexts[className] == nil {
                var map: [String: String] = [:]
                let fields = schemas[className] ?? [:]
                let key = keys[className] ?? []
                let columns = (["objectId"] + key).map { "\"\($0)\"" }.joined(separator: ", ")
                for row in try mirror.rows("SELECT \(columns) FROM \"\(className)\"") {
                    guard let id = row[0] else { continue }
                    var parts: [String] = []
                    for (index, name) in key.enumerated() {
                        let value = row[index + 1] ?? "∅"
                        if let spec = fields[name] as? [String: Any], spec["type"] as? String == "Pointer", let target = spec["targetClass"] as? String,
                            target != className
                        {
                            parts.append(try keyText(target, value))
                        } else {
                            parts.append(value)
                        }
                    }
                    map[id] = key.isEmpty ? id : parts.joined(separator: "|")
                }
                keyTexts[className] = map
            }
            return keyTexts[className]?[objectId] ?? "missing:\(objectId)"
        }
        for (className, fields) in schemas {
            let names = fields.keys.filter { !["objectId", "createdAt", "updatedAt"].contains($0) }.sorted()
            let stored = names.filter { (fields[$0] as? [String: Any])?["type"] as? String != "Relation" }
            let columns = (["objectId"] + stored).map { "\"\($0)\"" }.joined(separator: ", ")
            var rows: [String: [String: String]] = [:]
            for row in try mirror.rows("SELECT \(columns) FROM \"\(className)\"") {
                var values: [String: String] = [:]
                for (index, name) in stored.enumerated() {
                    guard let value = row[index + 1] else { continue }
                    let spec = fields[name] as? [String: Any]
                    if spec?["type"] as? String == "Pointer", let target = spec?["targetClass"] as? String {
                        values[name] = try keyText(target, value)
                    } else {
                        values[name] = value
                    }
                }
                rows[try keyText(className, row[0]!)] = values
            }
            objects[className] = rows
            for name in names where (fields[name] as? [String: Any])?["type"] as? String == "Relation" {
                let target = (fields[name] as? [String: Any])?["targetClass"] as? String ?? ""
                let table = "_Join:\(name):\(className)"
                var pairs = Set<[String]>()
                for row in try mirror.rows("SELECT owningId, relatedId FROM \"\(table)\"") {
                    pairs.insert([try keyText(className, row[0] ?? ""), try keyText(target, row[1] ?? "")])
                }
                links[table] = pairs
            }
        }
    }

    /// The content with every Polygon's ring closed (its first point repeated at the end), as
    /// Parse Server stores a Polygon: what a dataset written through its REST API holds.
    func withPolygonRingsClosed() -> MirrorContent {
        var closed = self
        closed.objects = objects.mapValues { $0.mapValues { $0.mapValues(Self.closingRing) } }
        return closed
    }

    /// `{"__type":"Polygon","coordinates":[p1,…,pn]}` with `,p1` added when `pn` differs from `p1`.
    private static func closingRing(_ text: String) -> String {
        let prefix = #"{"__type":"Polygon","coordinates":["#
        guard text.hasPrefix(prefix), text.hasSuffix("]}"),
            let points = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["coordinates"] as? [[Double]],
            let first = points.first, first != points.last,
            let end = text.dropFirst(prefix.count).firstIndex(of: "]")
        else { return text }
        let firstText = text[text.index(text.startIndex, offsetBy: prefix.count)...end]
        return String(text.dropLast(2)) + "," + firstText + "]}"
    }

    var objectCount: Int { objects.values.map(\.count).reduce(0, +) }
    var linkCount: Int { links.values.map(\.count).reduce(0, +) }

    var description: String { "\(objects.count) classes, \(objectCount) objects, \(linkCount) links" }

    /// The first few differences, for a readable failure.
    func differences(from other: MirrorContent) -> [String] {
        var found: [String] = []
        for className in Set(objects.keys).union(other.objects.keys).sorted() {
            let mine = objects[className] ?? [:], theirs = other.objects[className] ?? [:]
            for key in Set(mine.keys).union(theirs.keys).sorted() where mine[key] != theirs[key] {
                found.append("\(className)[\(key)]: \(mine[key].map { "\($0)" } ?? "absent") ≠ \(theirs[key].map { "\($0)" } ?? "absent")")
            }
        }
        for table in Set(links.keys).union(other.links.keys).sorted() where links[table] != other.links[table] {
            found.append("\(table): \(links[table]?.count ?? 0) links ≠ \(other.links[table]?.count ?? 0)")
        }
        return Array(found.prefix(10))
    }
}
