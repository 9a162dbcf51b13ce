import ParseModel

/// How a type change (`changeType`) converts each stored value to the field's new type.
///
/// | From \ To | String | Number | Boolean | Date | Object | Array | Pointer<T> |
/// |---|---|---|---|---|---|---|---|
/// | String | — | numeric text (JSON number syntax) | `"true"`/`"false"` | ISO 8601 | JSON text of an object | JSON text of an array | the text as objectId of T |
/// | Number | JSON number text | — | `0`/`1` | – | – | – | – |
/// | Boolean | `"true"`/`"false"` | `0`/`1` | — | – | – | – | – |
/// | Date | ISO 8601 (`…SSSZ`) | – | – | — | – | – | – |
/// | Object | JSON text | – | – | – | — | – | – |
/// | Array | JSON text | – | – | – | – | — | – |
/// | Pointer | its objectId | – | – | – | – | – | same class only |
///
/// Every other pair (GeoPoint, File, Bytes, Polygon, ACL, Relation, Pointers of another
/// class) does not convert: ``convert(_:to:)`` answers `nil`, and the migration refuses the
/// change unless it allows data loss.
public enum ValueConversion {
    /// `value` as a value of `type`; the value itself when it already has that type, `nil` when
    /// it does not convert (see the table above).
    ///
    /// ```swift
    /// ValueConversion.convert(.string("412"), to: .number)        // .integer(412)
    /// ValueConversion.convert(.integer(412), to: .string)         // .string("412")
    /// ValueConversion.convert(.string("four"), to: .number)       // nil
    /// ```
    public static func convert(_ value: ParseValue, to type: FieldType) -> ParseValue? {
        if value.fieldType == type { return value }
        switch (value, type) {
        case (.integer, .string), (.double, .string), (.object, .string), (.array, .string):
            return .string(value.wireJSON.serialized(sortedKeys: true))
        case (.boolean(let flag), .string): return .string(flag ? "true" : "false")
        case (.date(let date), .string): return .string(date.iso)
        case (.pointer(let pointer), .string): return .string(pointer.objectId)
        case (.string(let text), .number): return number(text)
        case (.string("true"), .boolean): return .boolean(true)
        case (.string("false"), .boolean): return .boolean(false)
        case (.string(let text), .date): return ParseDate(iso: text).map(ParseValue.date)
        case (.string(let text), .object), (.string(let text), .array): return json(text, as: type)
        case (.string(let objectId), .pointer(let targetClass)) where !objectId.isEmpty:
            return .pointer(PointerRef(className: targetClass, objectId: objectId))
        case (.integer(0), .boolean): return .boolean(false)
        case (.integer(1), .boolean): return .boolean(true)
        case (.double(let number), .boolean) where number == 0 || number == 1: return .boolean(number == 1)
        case (.boolean(let flag), .number): return .integer(flag ? 1 : 0)
        default: return nil
        }
    }

    /// Numeric text: a JSON number, possibly with surrounding blanks (`"12"`, `"-3.5"`, `"1e3"`).
    private static func number(_ text: String) -> ParseValue? {
        switch try? JSONParser.parse(text) {
        case .integer(let integer)?: .integer(integer)
        case .double(let double)?: .double(double)
        default: nil
        }
    }

    /// JSON text holding a value of `type` (an object or an array).
    private static func json(_ text: String, as type: FieldType) -> ParseValue? {
        guard let parsed = try? JSONParser.parse(text), let value = try? ParseValue(wire: parsed) else { return nil }
        return value.fieldType == type ? value : nil
    }
}
