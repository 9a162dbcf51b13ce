import CLibZip
import Foundation
import XCTest

/// Test support: compares a mirror with the Parse export folder it was imported from, object by
/// object and link by link, reading the export's JSON itself (not through ParsePorter).
enum ExportSourceCheck {
    /// The objects of a `<Class>.json` (`{"results":[…]}` or a plain array).
    static func objects(_ file: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: file)
        // Parse.com wrote a class without objects as a file of 0 bytes.
        if data.isEmpty { return [] }
        let json = try JSONSerialization.jsonObject(with: data)
        if let list = json as? [[String: Any]] { return list }
        return try XCTUnwrap((json as? [String: Any])?["results"] as? [[String: Any]], file.lastPathComponent)
    }

    /// Every object of every `<Class>.json` of `folder` is in `mirror` with the same objectId and
    /// values (in the mirror's column encoding), no column holds a value the source lacks, and
    /// every join file's links are the mirror's join table. Returns the objects and links compared.
    /// `throughParseServer`: the mirror was written through a Parse Server's REST API, which
    /// stores a hash of the password it was given, gives a `_User` created without an ACL one
    /// of its own (`{"<objectId>": read, write}`, Parse Server 6+ with `enforcePrivateUsers`),
    /// stores a Polygon's ring closed (its first point repeated at the end), and holds no link
    /// whose owner is missing (a join row of a deleted owner is not written).
    /// `skipped`: classes the import leaves out (`_Installation`), whose files are not compared.
    @discardableResult
    static func assertMirror(
        _ mirrorURL: URL, matches folder: URL, timestamps: Bool = true, throughParseServer: Bool = false,
        skipped: Set<String> = [], file: StaticString = #filePath, line: UInt = #line
    ) throws -> (objects: Int, links: Int) {
        let mirror = try Mirror(mirrorURL)
        var objectCount = 0, linkCount = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".json") {
            let source = folder.appendingPathComponent(name)
            if name.hasPrefix("_Join") {
                let separator = name.contains(":") ? ":" : "\u{A789}"
                let parts = name.dropLast(5).components(separatedBy: separator)
                if skipped.contains(parts[2]) { continue }
                let table = "_Join:\(parts[1]):\(parts[2])"
                var rows = try objects(source)
                if throughParseServer {
                    let owners = Set(try objects(folder.appendingPathComponent("\(parts[2]).json")).compactMap { $0["objectId"] as? String })
                    rows = rows.filter { owners.contains($0["owningId"] as! String) }
                }
                let expected = Set(rows.map { [$0["owningId"] as! String, $0["relatedId"] as! String] })
                let stored = Set(try mirror.rows("SELECT owningId, relatedId FROM \"\(table)\"").map { $0.map { $0 ?? "" } })
                XCTAssertEqual(stored, expected, table, file: file, line: line)
                linkCount += stored.count
                continue
            }
            let className = String(name.dropLast(5))
            if skipped.contains(className) { continue }
            let columns = try mirror.rows("SELECT name FROM pragma_table_info('\(className)')").compactMap { $0[0] }
            XCTAssertFalse(columns.isEmpty, "\(className) has no table", file: file, line: line)
            let list = "\"" + columns.joined(separator: "\", \"") + "\""
            let sourceObjects = try objects(source)
            XCTAssertEqual(try mirror.value("SELECT count(*) FROM \"\(className)\""), "\(sourceObjects.count)", className, file: file, line: line)
            for object in sourceObjects {
                let objectId = try XCTUnwrap(object["objectId"] as? String)
                let rows = try mirror.rows("SELECT \(list) FROM \"\(className)\" WHERE objectId = '\(objectId)'")
                XCTAssertEqual(rows.count, 1, "\(className) \(objectId)", file: file, line: line)
                guard let row = rows.first else { continue }
                for (column, stored) in zip(columns, row) where timestamps || !["createdAt", "updatedAt"].contains(column) {
                    let where_ = "\(className) \(objectId) \(column)"
                    var value = object[column]
                    if throughParseServer && className == "_User" {
                        if column == "_hashed_password" { continue }
                        if column == "ACL" && (value == nil || value is NSNull) { value = [objectId: ["read": true, "write": true]] }
                    }
                    if throughParseServer, var polygon = value as? [String: Any], polygon["__type"] as? String == "Polygon",
                        let ring = polygon["coordinates"] as? [[Double]], let first = ring.first, first != ring.last
                    {
                        polygon["coordinates"] = ring + [first]
                        value = polygon
                    }
                    guard let value, !(value is NSNull) else {
                        XCTAssertNil(stored, where_, file: file, line: line)
                        continue
                    }
                    let stored = try XCTUnwrap(stored, where_, file: file, line: line)
                    XCTAssertTrue(try matches(stored, value), "\(where_): stored \(stored), source \(value)", file: file, line: line)
                }
                objectCount += 1
            }
        }
        return (objectCount, linkCount)
    }

    static func canonical(_ value: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    }

    /// Whether a mirror column's text is the source's wire value.
    static func matches(_ stored: String, _ value: Any) throws -> Bool {
        switch value {
        case let text as String: return stored == text
        case let flag as Bool where type(of: value) == Bool.self: return stored == (flag ? "1" : "0")
        case let number as NSNumber: return Double(stored) == number.doubleValue
        case let object as [String: Any] where object["__type"] as? String == "Date": return stored == object["iso"] as? String
        case let object as [String: Any] where object["__type"] as? String == "Pointer": return stored == object["objectId"] as? String
        default:
            let parsed = try JSONSerialization.jsonObject(with: Data(stored.utf8), options: .fragmentsAllowed)
            return try canonical(parsed) == canonical(value)
        }
    }
}

/// Test support: writes zip archives with libzip, noise and hostile names included.
enum ZipBuilder {
    /// Writes `entries` (stored name → bytes; a name ending in `/` is a folder) into `url`, deflated.
    static func write(_ entries: [(String, Data)], to url: URL) throws {
        var code: Int32 = 0
        let archive = try XCTUnwrap(zip_open(url.path, ZIP_CREATE | ZIP_TRUNCATE, &code), "zip_open \(code)")
        for (name, data) in entries {
            if name.hasSuffix("/") {
                XCTAssertGreaterThanOrEqual(zip_dir_add(archive, name, ZIP_FL_ENC_UTF_8), 0)
                continue
            }
            let buffer = malloc(max(data.count, 1))!
            data.copyBytes(to: buffer.assumingMemoryBound(to: UInt8.self), count: data.count)
            // libzip frees the buffer (freep 1) when the archive is written.
            let source = try XCTUnwrap(zip_source_buffer(archive, buffer, UInt64(data.count), 1))
            XCTAssertGreaterThanOrEqual(zip_file_add(archive, name, source, ZIP_FL_ENC_UTF_8), 0, name)
        }
        XCTAssertEqual(zip_close(archive), 0)
    }

    /// Each file of `folder` under `top/`, plus the noise macOS adds to an archive it makes.
    static func macOSArchive(of folder: URL, top: String, to url: URL) throws {
        var entries: [(String, Data)] = [("\(top)/", Data()), ("__MACOSX/", Data()), ("__MACOSX/\(top)/", Data())]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            entries.append(("\(top)/\(name)", try Data(contentsOf: folder.appendingPathComponent(name))))
            entries.append(("__MACOSX/\(top)/._\(name)", Data([0, 5, 22, 7, 0, 2, 0, 0])))
        }
        entries.append(("\(top)/.DS_Store", Data([0, 0, 0, 1, 66, 117, 100, 49])))
        try write(entries, to: url)
    }
}
