import Foundation
import ParseModel
import PorterReaders

/// Turns a field's source cell(s) into its value: the coercion rules of one Parse type,
/// the field's `null` tokens, enum `values`, `split`, `format` and `default`.
package final class FieldCoercer: Sendable {
    package let field: FieldMapping
    /// The source column; a GeoPoint read from two columns: its latitude's. Properties of their
    /// own, not an array's elements, so that a record's cell is looked up without copying them.
    let columnPath: ColumnPath
    /// A GeoPoint's longitude column, when it is read from two.
    let longitudePath: ColumnPath?
    /// The columns of a Pointer read from several, one per part of its target's key; empty otherwise.
    let keyPartPaths: [ColumnPath]
    /// The field's date formats, tried in order; empty means ISO 8601.
    let datePatterns: [DatePattern]
    /// Where a message tells the user to add a date format: `classes.Order.fields.placedAt`.
    let manifestPath: String
    let references: ReferenceParser?
    /// The folder the paths of an uploading File field start from: the source file's.
    let sourceDirectory: String
    /// Whether a CSV cell is coerced from its bytes (``value(in:column:)``): the field reads one
    /// column, without enum `values` or an upload.
    let readsBytes: Bool
    /// Whether a JSON record's member is coerced from its token (``value(in:column:)``): the field
    /// reads bytes, and its type reads a JSON string as it reads a CSV cell's text (or it is a
    /// Pointer or Relation whose target's key is one String: a string is a key).
    let readsJSONTokens: Bool
    /// The field's `null` tokens as bytes, when all are ASCII (else they are compared as text).
    let asciiNullTokens: [[UInt8]]?

    /// - Parameters:
    ///   - references: how to read references to the field's target class (Pointer and Relation fields).
    ///   - sourceDirectory: the folder of the source file, for the paths of an uploading File field.
    ///   - className: the field's class, named where a message suggests a change to the manifest.
    init(field: FieldMapping, references: ReferenceParser?, sourceDirectory: String = ".", className: String? = nil) {
        self.field = field
        self.sourceDirectory = sourceDirectory
        self.columnPath = ColumnPath(field.columns?.first ?? field.column)
        self.longitudePath = field.type == .geoPoint ? field.columns.flatMap { $0.count > 1 ? ColumnPath($0[1]) : nil } : nil
        self.keyPartPaths = field.type.targetClass != nil ? (field.columns ?? []).map(ColumnPath.init) : []
        self.datePatterns = field.formats.compactMap(DatePattern.init)
        self.manifestPath = className.map { "classes.\($0).fields.\(field.name)" } ?? field.name
        self.references = references
        self.readsBytes = longitudePath == nil && keyPartPaths.isEmpty && field.values == nil && !field.upload
        self.readsJSONTokens = readsBytes && (references?.keyIsOneString == true || [.string, .number, .boolean, .date, .bytes].contains(field.type))
        self.asciiNullTokens = field.nullTokens.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } } ? field.nullTokens.map { Array($0.utf8) } : nil
    }

    /// What a missing or null cell gives.
    private var nullValue: MappedValue {
        if case .relation = field.type { return .relation([]) }
        return .value(field.defaultValue ?? .null)
    }

    /// A Relation's references are appended to `store` and the value names them (``MappedValue/links(_:)``).
    private func coerce(bytes: UnsafeBufferPointer<UInt8>, references store: inout [ObjectReference]) -> Result<MappedValue, CoercionError> {
        if bytes.isEmpty || isNullToken(bytes) { return .success(nullValue) }
        switch field.type {
        case .string:
            return .success(.value(.string(String(decoding: bytes, as: UTF8.self))))
        case .number where field.numberFormat == .standard:
            if let integer = NumberText.integer(bytes) { return .success(.value(.integer(integer))) }
        case .boolean:
            if let boolean = Self.boolean(bytes) { return .success(.value(.boolean(boolean))) }
        case .pointer where references!.keyIsOneString && bytes[0] != UInt8(ascii: "{"):
            return .success(.pointer(references!.reference(keyBytes: bytes)))
        case .relation where references!.keyIsOneString && field.split?.utf8.count == 1:
            // Each part becomes a reference as it is found, in the store: no array of the parts, none of the references.
            let start = store.count
            do throws(CoercionError) {
                try CellText.forEachPart(of: bytes, by: field.split!.utf8.first!) { part throws(CoercionError) in
                    try references!.add(keyPart: part, to: &store, from: start)
                }
            } catch {
                store.removeSubrange(start...)
                return .failure(error)
            }
            return .success(.links(start..<store.count))
        default:
            break
        }
        do { return .success(try coerce(.text(String(decoding: bytes, as: UTF8.self)))) } catch { return .failure(error) }
    }

    /// A JSON record's member coerced from its token as ``coerce(_:)`` coerces its `JSONValue`;
    /// `nil` where the value is read as a `JSONValue` (an empty or escaped string, a number that
    /// is not an integer of up to 18 digits, an object, an array, a value of another kind than the field's).
    private func value(in fields: JSONFields, references store: inout [ObjectReference]) -> Result<MappedValue, CoercionError>? {
        guard let member = fields.index(of: columnPath.name, isASCII: columnPath.isASCII) else {
            return columnPath.components.count > 1 ? nil : .success(nullValue)
        }
        return fields.withValue(at: member) { token -> Result<MappedValue, CoercionError>? in
            switch token[0] {
            case UInt8(ascii: "n"):
                return .success(nullValue)
            case UInt8(ascii: "\""):
                let text = UnsafeBufferPointer(rebasing: token[1..<token.count - 1])
                guard !text.isEmpty, !text.contains(UInt8(ascii: "\\")) else { return nil }
                // A JSON string is one key, even where it starts with `{` or holds the split
                // separator; one of the field's `null` tokens is no key.
                if field.type.targetClass != nil, isNullToken(text) { return .success(nullValue) }
                switch field.type {
                case .pointer: return .success(.pointer(references!.reference(keyBytes: text)))
                case .relation:
                    store.append(references!.reference(keyBytes: text))
                    return .success(.links(store.count - 1..<store.count))
                default: return coerce(bytes: text, references: &store)
                }
            case UInt8(ascii: "["):
                if case .relation = field.type { return relation(keys: token, into: &store) }
                return nil
            case UInt8(ascii: "t") where field.type == .boolean, UInt8(ascii: "f") where field.type == .boolean:
                return .success(.value(.boolean(token[0] == UInt8(ascii: "t"))))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if field.type == .number, let integer = NumberText.integer(token) { return .success(.value(.integer(integer))) }
                // 0 and 1 are booleans in JSON as in CSV.
                if field.type == .boolean, token.count == 1, token[0] <= UInt8(ascii: "1") { return .success(.value(.boolean(token[0] == UInt8(ascii: "1")))) }
                return nil
            default:
                return nil
            }
        }
    }

    /// A Relation's JSON array of strings, each a key of the target (duplicates once), appended
    /// to `store`; `nil` when an item is not a string, or is empty or escaped (pointer JSON in a
    /// string has escapes), and then `store` is left as it was.
    private func relation(keys array: UnsafeBufferPointer<UInt8>, into store: inout [ObjectReference]) -> Result<MappedValue, CoercionError>? {
        let start = store.count
        let outcome = relation(keys: array, from: start, into: &store)
        if case .success? = outcome { return outcome }
        store.removeSubrange(start...)
        return outcome
    }

    private func relation(keys array: UnsafeBufferPointer<UInt8>, from start: Int, into store: inout [ObjectReference]) -> Result<
        MappedValue, CoercionError
    >? {
        var cursor = CheckedJSONCursor(array)
        if cursor.skipWhitespace() == UInt8(ascii: "]") { return .success(.links(start..<start)) }
        while true {
            guard let key = cursor.plainString(), !key.isEmpty else { return nil }
            do { try references!.add(keyPart: key, to: &store, from: start) } catch { return .failure(error) }
            switch cursor.skipWhitespace() {
            case UInt8(ascii: ","): cursor.advance()
            case UInt8(ascii: "]"): return .success(.links(start..<store.count))
            default: return nil
            }
        }
    }

    private func isNullToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !field.nullTokens.isEmpty else { return false }
        if let tokens = asciiNullTokens {
            if tokens.contains(where: { token in
                token.count == bytes.count && token.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
            }) {
                return true
            }
            // Text with other characters may still equal an ASCII token canonically (K and the Kelvin sign).
            guard bytes.contains(where: { $0 >= 0x80 }) else { return false }
        }
        return field.nullTokens.contains(String(decoding: bytes, as: UTF8.self))
    }

    /// An ASCII boolean word as ``plainValue(_:)`` reads it (any case); `nil` for anything else.
    private static func boolean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard bytes.count <= 5 else { return nil }
        var word: UInt64 = 0
        for byte in bytes {
            guard byte < 0x80 else { return nil }
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            word = word << 8 | UInt64(lower)
        }
        func packed(_ text: StaticString) -> UInt64 {
            text.withUTF8Buffer { $0.reduce(0) { $0 << 8 | UInt64($1) } }
        }
        switch word {
        case packed("true"), packed("yes"), packed("1"), packed("t"), packed("y"): return true
        case packed("false"), packed("no"), packed("0"), packed("f"), packed("n"): return false
        default: return nil
        }
    }

    /// The field's value in `record`; a missing or null cell gives the default, else null.
    /// Required fields are checked by the caller, which knows the location. `column`: where the
    /// field's column is in a CSV record's header (-1: not there), found by name when `nil`.
    ///
    /// A CSV cell is coerced from its bytes where the type allows it (``readsBytes``), and so is
    /// a JSON file's value (``readsJSONTokens``), without a `String` for a value not kept as text.
    /// A Relation's references read so are appended to `store`, and the value names them there
    /// (``MappedValue/links(_:)``); others come in the value (``MappedValue/relation(_:)``).
    func value(in record: SourceRecord, column: Int? = nil, references store: inout [ObjectReference]) throws(CoercionError) -> MappedValue {
        if readsBytes, let header = record.csvHeader {
            let column = column ?? header.index(of: columnPath.name) ?? -1
            guard column >= 0, column < record.csvRow.count else { return nullValue }
            return try coerce(bytes: record.csvRow.cell(at: column), references: &store).get()
        }
        if readsJSONTokens, let fields = record.jsonFields, let value = value(in: fields, references: &store) { return try value.get() }
        if let columns = field.columns, let longitudePath {
            let lat = record.cell(columnPath), lng = record.cell(longitudePath)
            if isNull(lat) && isNull(lng) { return .value(field.defaultValue ?? .null) }
            guard let latitude = number(lat)?.numberValue else { throw CoercionError(.notANumber, "latitude is not a number", column: columns[0]) }
            guard let longitude = number(lng)?.numberValue else { throw CoercionError(.notANumber, "longitude is not a number", column: columns[1]) }
            guard (-90.0...90.0).contains(latitude) else {
                throw CoercionError(.invalidValue, "latitude \(latitude) is out of range -90...90", column: columns[0])
            }
            do { return .value(.geoPoint(try GeoPoint(latitude: latitude, longitude: longitude))) } catch {
                throw CoercionError(.invalidValue, error.message, column: columns[1])
            }
        }
        if !keyPartPaths.isEmpty { return try keyParts(in: record) }
        let cell = record.cell(columnPath)
        if isNull(cell) {
            if case .relation = field.type { return .relation([]) }
            return .value(field.defaultValue ?? .null)
        }
        return try coerce(cell!)
    }

    /// A Pointer read from several columns: the parts of its target's key, one per column; no
    /// part means no reference, some parts but not all a fault.
    private func keyParts(in record: SourceRecord) throws(CoercionError) -> MappedValue {
        let cells = keyPartPaths.map { record.cell($0) }
        let missing = cells.indices.filter { isNull(cells[$0]) }
        if missing.count == cells.count { return .value(field.defaultValue ?? .null) }
        if let first = missing.first {
            let given = cells.indices.filter { !missing.contains($0) }.map { keyPartPaths[$0].name }
            throw CoercionError(
                .malformedReference,
                "\(given.joined(separator: ", ")) \(given.count == 1 ? "is" : "are") given but \(keyPartPaths[first].name) is empty: a reference to \(field.type.targetClass!) needs every part of its key",
                column: keyPartPaths[first].name)
        }
        return .pointer(try references!.reference(parts: cells.map { $0! }))
    }

    /// Per cell of every record: a field without `null` tokens hashes no text.
    func isNull(_ cell: SourceCell?) -> Bool {
        switch cell {
        case nil, .json(.null)?: return true
        case .text(let text)?: return text.isEmpty || (!field.nullTokens.isEmpty && field.nullTokens.contains(text))
        case .json(.string(let text))?: return !field.nullTokens.isEmpty && field.nullTokens.contains(text)
        default: return false
        }
    }

    func coerce(_ cell: SourceCell) throws(CoercionError) -> MappedValue {
        if let values = field.values { return .value(try enumValue(cell, values)) }
        if field.upload {
            switch cell {
            case .text(let path), .json(.string(let path)): return .upload(try LocalFile.read(path, relativeTo: sourceDirectory))
            case .json(let json): throw CoercionError(.wrongType, "expected the path of a file, got \(json.kindName)")
            }
        }
        switch field.type {
        case .pointer:
            return .pointer(try references!.reference(cell))
        case .relation:
            return .relation(try references!.references(cell, split: field.split))
        default:
            return .value(try plainValue(cell))
        }
    }

    func enumValue(_ cell: SourceCell, _ values: [String: ParseValue]) throws(CoercionError) -> ParseValue {
        let text: String
        switch cell {
        case .text(let t), .json(.string(let t)): text = t
        case .json(let json):
            if let stored = try? ParseValue(wire: json), values.values.contains(stored) { return stored }
            text = json.serialized()
        }
        if let stored = values[text] ?? values.first(where: { $0.key.lowercased() == text.lowercased() })?.value {
            return stored
        }
        if let stored = try? plainValue(cell), values.values.contains(stored) { return stored }
        throw CoercionError(.notAnAllowedValue, "not one of \(values.keys.sorted { values[$0]!.sortKey < values[$1]!.sortKey }.joined(separator: ", "))")
    }

    func plainValue(_ cell: SourceCell) throws(CoercionError) -> ParseValue {
        switch field.type {
        case .string:
            switch cell {
            case .text(let t), .json(.string(let t)): return .string(t)
            case .json(let json): throw CoercionError(.wrongType, "expected a String, got \(json.kindName)")
            }
        case .number:
            guard let value = number(cell) else {
                throw CoercionError(.notANumber, field.numberFormat == .standard ? "not a number" : "not a number with \(field.numberFormat.spelled)")
            }
            return value
        case .boolean:
            switch cell {
            case .json(.bool(let b)): return .boolean(b)
            case .json(.integer(0)): return .boolean(false)
            case .json(.integer(1)): return .boolean(true)
            case .text(let t), .json(.string(let t)):
                switch t.lowercased() {
                case "true", "yes", "1", "t", "y": return .boolean(true)
                case "false", "no", "0", "f", "n": return .boolean(false)
                default: break
                }
            default: break
            }
            throw CoercionError(.notABoolean, "not a boolean (true/false, yes/no, 1/0, t/f, y/n)")
        case .date:
            return .date(try date(cell))
        case .array:
            if case .text(let t) = cell, let separator = field.split {
                return .array(CellText.split(t, by: separator).filter { !$0.isEmpty }.map(ParseValue.string))
            }
            let json = try jsonValue(cell)
            guard case .array = json else { throw CoercionError(.wrongType, "expected a JSON array, got \(json.kindName)") }
            return try wire(json)
        case .object:
            let json = try jsonValue(cell)
            guard case .object = json else { throw CoercionError(.wrongType, "expected a JSON object, got \(json.kindName)") }
            let value = try wire(json)
            guard case .object = value else {
                throw CoercionError(.wrongType, "expected a plain JSON object, got a \(value.fieldType?.description ?? "value")")
            }
            return value
        case .geoPoint:
            let json = try jsonValue(cell)
            if case .array(let pair) = json, pair.count == 2, let lat = pair[0].doubleValue, let lng = pair[1].doubleValue {
                do { return .geoPoint(try GeoPoint(latitude: lat, longitude: lng)) } catch { throw CoercionError(.invalidValue, error.message) }
            }
            guard case .object(var object) = json else { throw CoercionError(.wrongType, "expected a GeoPoint as {\"latitude\":…,\"longitude\":…}") }
            object["__type"] = .string("GeoPoint")
            return try typed(.object(object), .geoPoint)
        case .polygon:
            let json = try jsonValue(cell)
            if case .array(let pairs) = json {
                do { return .polygon(try ParsePolygon(wireCoordinates: pairs)) } catch { throw CoercionError(.invalidValue, error.message) }
            }
            return try typed(json, .polygon)
        case .file:
            switch cell {
            case .text(let t) where !t.hasPrefix("{"), .json(.string(let t)):
                return .file(ParseFile(name: t))
            default:
                guard case .object(var object) = try jsonValue(cell) else { throw CoercionError(.wrongType, "expected a file name or a File object") }
                object["__type"] = .string("File")
                return try typed(.object(object), .file)
            }
        case .bytes:
            switch cell {
            case .text(let t), .json(.string(let t)):
                guard Base64.isValid(t) else { throw CoercionError(.invalidValue, "not valid base64") }
                return .bytes(base64: t)
            case .json(let json):
                return try typed(json, .bytes)
            }
        case .acl:
            guard case .object(let object) = try jsonValue(cell) else { throw CoercionError(.wrongType, "invalid ACL: expected a JSON object") }
            do { return .acl(try ParseACL(wire: object)) } catch { throw CoercionError(.invalidValue, error.message) }
        case .pointer, .relation:
            preconditionFailure("references are coerced by ReferenceParser")
        }
    }

    func number(_ cell: SourceCell?) -> ParseValue? {
        switch cell {
        case .json(.integer(let i))?: return .integer(i)
        case .json(.double(let d))?: return .double(d)
        case .text(let t)?, .json(.string(let t))?: return NumberText.parse(t, format: field.numberFormat)
        default: return nil
        }
    }

    func date(_ cell: SourceCell) throws(CoercionError) -> ParseDate {
        switch cell {
        case .text(let t), .json(.string(let t)):
            return try date(t)
        // A day written as a number (`20240906`, format yyyyMMdd) reads as its digits.
        case .json(.integer(let number)) where datePatterns.contains(where: \.isDigitsOnly):
            return try date(String(number))
        case .json(let number) where number.doubleValue != nil && datePatterns.contains(where: \.isUnixTime):
            return try date(number.serialized())
        case .json(let json):
            guard case .date(let date) = try typed(json, .date) else { throw CoercionError(.notADate, "not a date") }
            return date
        }
    }

    /// The date `text` denotes in the first of the field's formats that reads it (ISO 8601 without
    /// any); a fault suggests a common format that would read it.
    func date(_ text: String) throws(CoercionError) -> ParseDate {
        guard !datePatterns.isEmpty else {
            guard let date = ParseDate(iso: text) else {
                throw CoercionError(.notADate, "not a date (ISO 8601, e.g. 2024-01-31 or 2024-01-31T09:30:00Z)" + formatHint(text, adding: "add format: "))
            }
            return date
        }
        for pattern in datePatterns {
            if let date = pattern.parse(text) { return date }
        }
        let formats = field.formats.map { "\"\($0)\"" }.joined(separator: " or ")
        throw CoercionError(.notADate, "not a date in format \(formats)" + formatHint(text, adding: "add "))
    }

    /// `; add format: "dd/MM/yyyy" to classes.Order.fields.placedAt` when a common format reads `text`.
    func formatHint(_ text: String, adding verb: String) -> String {
        let usable = DatePattern.commonFormats(parsing: text).filter { !field.formats.contains($0) }
        guard let first = usable.first, let date = DatePattern(first)?.parse(text) else { return "" }
        // Another reading of the text (01/03/2024 as 3 January), not a looser spelling of the same date.
        let other = usable.first { DatePattern($0)?.parse(text) != date }
        let formats =
            other.map { "\"\(first)\" (reads it as \(date.iso.prefix(10))) or \"\($0)\" (\(DatePattern($0)!.parse(text)!.iso.prefix(10)))" }
            ?? "\"\(first)\""
        let place = field.formats.isEmpty ? "to \(manifestPath)" : "to the format list of \(manifestPath)"
        return "; \(verb)\(formats) \(place)"
    }

    /// The cell as JSON: a JSON source value as is, CSV text parsed as JSON.
    func jsonValue(_ cell: SourceCell) throws(CoercionError) -> JSONValue {
        switch cell {
        case .json(let json): return json
        case .text(let text):
            do { return try JSONParser.parse(text) } catch { throw CoercionError(.badJSON, "invalid JSON: \(error.message)") }
        }
    }

    func wire(_ json: JSONValue) throws(CoercionError) -> ParseValue {
        do { return try ParseValue(wire: json) } catch { throw CoercionError(.invalidValue, error.message) }
    }

    func typed(_ json: JSONValue, _ type: FieldType) throws(CoercionError) -> ParseValue {
        let value = try wire(json)
        guard value.fieldType == type else { throw CoercionError(.wrongType, "expected a \(type), got \(value.fieldType?.description ?? "null")") }
        return value
    }
}

extension ParseValue {
    /// A Number as a Double.
    var numberValue: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// Orders enum values for messages (numbers numerically, else by their text).
    var sortKey: Double {
        switch self {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: 0
        }
    }
}
