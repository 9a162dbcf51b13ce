import ParseModel

extension ColumnProfile {
    /// A guessed type and what it was guessed from.
    struct TypeGuess {
        let type: FieldType
        let reason: String
        /// A Date's formats; empty for ISO 8601.
        var formats: [String] = []
        /// A Number's decimal mark and thousands separator when they are not `.` and none.
        var numberFormat: NumberFormat?
    }

    /// A Date read with ``dates``' formats, or `nil` when they read not every value.
    private func formattedDates(_ counted: String) -> TypeGuess? {
        guard !allDates, let formats = dates.formats else { return nil }
        let spelled = formats.map { "\"\($0)\"" }.joined(separator: ", ")
        let reason = formats.count == 1 ? "\(counted), all dates in format \(spelled)"
                                        : "\(counted), all dates in one of the formats \(spelled), tried in that order"
        return TypeGuess(type: .date, reason: reason, formats: formats)
    }

    /// The type every value fits, as sqlite-utils' `--detect-types` decides for text (integer,
    /// else number, else text; plus true/false, ISO 8601 dates and JSON cells), or the JSON
    /// values' own type.
    var typeGuess: TypeGuess {
        let counted = "\(filled) value\(filled == 1 ? "" : "s")" + (empty > 0 ? ", \(empty) empty" : "")
        guard filled > 0 else { return TypeGuess(type: .string, reason: "always empty: String") }
        if sawJSON {
            if jsonTypes == [.string] || (dates.unixByName && jsonTypes.allSatisfy { $0 == .string || $0 == .number }),
               let dated = formattedDates(counted) {
                return dated
            }
            if jsonTypes == [.string] {
                return allDates ? TypeGuess(type: .date, reason: "\(counted), all ISO 8601 dates")
                                : TypeGuess(type: .string, reason: "\(counted), all text")
            }
            let kinds = jsonTypes.map(\.description).joined(separator: ", ")
            guard jsonTypes.count == 1 else {
                return TypeGuess(type: jsonTypes[0], reason: "\(counted) of several JSON types (\(kinds)): values that are not \(jsonTypes[0]) will be rejected; fix the data or the type")
            }
            return TypeGuess(type: jsonTypes[0], reason: "\(counted), all JSON \(kinds) values")
        }
        if allIntegers && leadingZero {
            return TypeGuess(type: .string, reason: "\(counted), digits with leading zeros: text, so the zeros stay")
        }
        if dates.unixByName, allNumbers, let dated = formattedDates(counted) { return dated }
        if allIntegers { return TypeGuess(type: .number, reason: "\(counted), all integers") }
        if allNumbers { return TypeGuess(type: .number, reason: "\(counted), all numbers") }
        if allDecimalComma && sawComma {
            let format = sawPoint ? Self.decimalComma : NumberFormat(decimal: UInt8(ascii: ","), thousands: nil)
            return TypeGuess(type: .number, reason: "\(counted), all numbers with a decimal comma" + (sawPoint ? " and \".\" between thousands" : ""),
                             numberFormat: format)
        }
        if allBooleans { return TypeGuess(type: .boolean, reason: "\(counted), all true/false") }
        if allDates { return TypeGuess(type: .date, reason: "\(counted), all ISO 8601 dates") }
        if let dated = formattedDates(counted) { return dated }
        if allObjects { return TypeGuess(type: .object, reason: "\(counted), all JSON objects") }
        if allArrays { return TypeGuess(type: .array, reason: "\(counted), all JSON arrays") }
        return TypeGuess(type: .string, reason: "\(counted), text")
    }
}
