import Foundation
import ParseModel

/// Column text read back into Parse values, as Parse Server's `postgresObjectToParseObject`
/// (`PostgresStorageAdapter.js`) turns its rows into REST objects.
enum PostgresColumnText {
    /// The value of a column of `type` whose text (PostgreSQL's output form; Dates as
    /// ``dateSQL(_:)`` gives them) is `text`; `nil` text is `.null`.
    static func value(_ text: String?, as type: FieldType) throws(ParseValueError) -> ParseValue {
        guard let text else { return .null }
        switch type {
        case .string: return .string(text)
        case .file: return .file(ParseFile(name: text))
        case .pointer(let target): return .pointer(PointerRef(className: target, objectId: text))
        case .boolean: return .boolean(text == "true" || text == "t")
        case .number:
            if let integer = Int64(text) { return .integer(integer) }
            guard let double = Double(text) else { throw ParseValueError("not a number: \"\(text)\"") }
            return .double(double)
        case .date:
            guard let date = ParseDate(iso: text) else { throw ParseValueError("not a date: \"\(text)\"") }
            return .date(date)
        case .geoPoint:
            // x is the longitude, y the latitude.
            guard let point = try points(text).first else { throw ParseValueError("not a point: \"\(text)\"") }
            // Parse Server stores a point out of range (latitude 100): kept, as it reads it back.
            return .geoPoint(try GeoPoint(storedLatitude: point.y, longitude: point.x))
        case .polygon:
            return .polygon(
                try ParsePolygon(
                    coordinates: points(text).map { (point) throws(ParseValueError) in
                        try GeoPoint(storedLatitude: point.y, longitude: point.x)
                    }))
        case .object, .array, .bytes, .acl:
            let json: JSONValue
            do { json = try JSONParser.parse(text) } catch { throw ParseValueError("not JSON: \(error)") }
            return try ParseValue(stored: json, as: type)
        case .relation: return .null
        }
    }

    /// `(x,y)` pairs of a `point` or `polygon` text, in order.
    static func points(_ text: String) throws(ParseValueError) -> [(x: Double, y: Double)] {
        let numbers = text.split(whereSeparator: { "(),".contains($0) }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard numbers.count % 2 == 0 else { throw ParseValueError("not a list of points: \"\(text)\"") }
        var points: [(Double, Double)] = []
        for index in stride(from: 0, to: numbers.count, by: 2) {
            guard let x = Double(numbers[index]), let y = Double(numbers[index + 1]) else { throw ParseValueError("not a point: \"\(text)\"") }
            points.append((x, y))
        }
        return points
    }

    /// A Date column as SQL giving its ISO text with milliseconds in UTC, as Parse sends dates.
    static func dateSQL(_ column: String) -> String {
        #"to_char(\#(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
    }

    /// The items of a `text[]` literal (`{*,"role:a b"}`); NULL items are left out.
    static func textArray(_ text: String) -> [String] {
        var items: [String] = []
        var current = ""
        var quoted = false, inQuotes = false, escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                current.append(character)
                escaped = false
            } else if inQuotes {
                if character == "\\" { escaped = true } else if character == "\"" { inQuotes = false } else { current.append(character) }
            } else if character == "\"" {
                inQuotes = true
                quoted = true
            } else if character == "," {
                if quoted || current != "NULL" { items.append(current) }
                current = ""
                quoted = false
            } else {
                current.append(character)
            }
        }
        if text.count > 2 && (quoted || current != "NULL") { items.append(current) }
        return items
    }

    /// The ACL `_rperm` and `_wperm` make (`DatabaseController.js` `untransformObjectACL`);
    /// `nil` when both are NULL (no ACL).
    static func acl(read: String?, write: String?) -> ParseACL? {
        guard read != nil || write != nil else { return nil }
        var entries: [String: ParseACL.Permission] = [:]
        for name in read.map(textArray) ?? [] { entries[name, default: .init(read: false, write: false)].read = true }
        for name in write.map(textArray) ?? [] { entries[name, default: .init(read: false, write: false)].write = true }
        return ParseACL(entries)
    }
}
