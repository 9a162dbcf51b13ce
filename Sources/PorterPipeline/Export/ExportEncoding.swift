import ParseModel

/// Writes values into CSV cells the way an import reads them back: numbers and booleans as
/// text, dates as ISO 8601 UTC, Bytes as base64, pointers as the target's objectId (or its
/// natural key when the export knows the keys), everything else as JSON text.
struct CSVValueEncoder {
    let keyNames: NaturalKeyNames?

    func append(_ value: ParseValue, field: String, of className: String, objectId: String, to row: inout CSVRow) throws(PorterError) {
        switch value {
        case .null: row.emptyCell()
        case .string(let text): row.cell(text)
        case .integer(let number): row.cell(String(number))
        case .double(let number): row.cell(JSONValue.double(number).serialized())
        case .boolean(let flag): row.cell(flag ? "true" : "false")
        case .date(let date): row.cell(date: date)
        case .bytes(let base64): row.cell(base64)
        case .pointer(let pointer):
            guard let keyNames else { return row.cell(pointer.objectId) }
            row.cell(try keyNames.reference(to: pointer, from: "\(className) \(objectId) \(field)"))
        default: row.cell(json: value.wireJSON)
        }
    }

    /// The cell naming an object in a join file: its objectId, or its natural key.
    func reference(_ className: String, _ objectId: String, from context: @autoclosure () -> String) throws(PorterError) -> String {
        guard let keyNames else { return objectId }
        return try keyNames.reference(to: PointerRef(className: className, objectId: objectId), from: context())
    }
}
