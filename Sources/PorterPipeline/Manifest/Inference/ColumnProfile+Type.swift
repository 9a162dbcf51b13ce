import ParseModel

extension ColumnProfile {
    /// A guessed type and what it was guessed from.
    struct TypeGuess {
        let type: FieldType
        var reason: String
        /// A Date's formats; empty for ISO 8601.
        var formats: [String] = []
        /// A Number's decimal mark and thousands separator when they are not `.` and none.
        var numberFormat: NumberFormat?
    }

    /// A Date read with ``dates``' formats, or `nil` when they read not every value; `lossless`
    /// (the type that keeps the values as written) when two of the formats read a value as
    /// different dates and no value tells which is meant.
    private func formattedDates(_ counted: String, otherwise lossless: FieldType) -> TypeGuess? {
        guard !allDates, let formats = dates.formats else { return nil }
        if let (first, second) = dates.ambiguity {
            return TypeGuess(
                type: lossless,
                reason: "\(counted), all dates in format \"\(first)\" and in \"\(second)\" alike, which read some of them as different dates "
                    + "and no value tells which is meant: \(lossless), as written; give the field its type Date and format: if you know it")
        }
        let spelled = formats.map { "\"\($0)\"" }.joined(separator: ", ")
        var reason =
            formats.count == 1
            ? "\(counted), all dates in format \(spelled)"
            : "\(counted), all dates in one of the formats \(spelled), tried in that order"
        if formats.contains(where: { DatePattern($0)?.isDigitsOnly == true }) { reason += ", as the column's name says it holds dates" }
        return TypeGuess(type: .date, reason: reason, formats: formats)
    }

    /// For a Number: the formats of numbers alone that read every value as a plausible date,
    /// which a column named for dates would take.
    private var unnamedDates: String {
        guard let formats = dates.unnamedNumberFormats, let first = formats.first else { return "" }
        return "; every value also reads as a date in format \"\(first)\", taken only in a column whose name says dates (…date…, …time…, …_at): "
            + "give the field its type Date and that format if these are dates"
    }

    /// The type every value fits, as sqlite-utils' `--detect-types` decides for text (integer,
    /// else number, else text; plus true/false, ISO 8601 dates and JSON cells), or the JSON
    /// values' own type. A column named for dates that is none says which value kept it from
    /// being one.
    var typeGuess: TypeGuess {
        var guess = valuesTypeGuess
        if guess.type != .date, let value = dates.implausibleTime {
            guess.reason += "; \"\(value)\" reads as a Unix time only outside 1990–2100, so the column is taken for no dates"
        }
        return guess
    }

    private var valuesTypeGuess: TypeGuess {
        let counted = "\(filled) value\(filled == 1 ? "" : "s")" + (empty > 0 ? ", \(empty) empty" : "")
        guard filled > 0 else { return TypeGuess(type: .string, reason: "always empty: String") }
        if sawJSON {
            if jsonTypes == [.string] || (dates.namedForDates && jsonTypes.allSatisfy { $0 == .string || $0 == .number }),
                let dated = formattedDates(counted, otherwise: jsonTypes.count == 1 ? jsonTypes[0] : .string)
            {
                return dated
            }
            if jsonTypes == [.string] {
                return allDates
                    ? TypeGuess(type: .date, reason: "\(counted), all ISO 8601 dates")
                    : TypeGuess(type: .string, reason: "\(counted), all text")
            }
            let kinds = jsonTypes.map(\.description).joined(separator: ", ")
            guard jsonTypes.count == 1 else {
                return TypeGuess(
                    type: jsonTypes[0],
                    reason: "\(counted) of several JSON types (\(kinds)): values that are not \(jsonTypes[0]) will be rejected; fix the data or the type")
            }
            return TypeGuess(type: jsonTypes[0], reason: "\(counted), all JSON \(kinds) values" + (jsonTypes == [.number] ? unnamedDates : ""))
        }
        if allIntegers && leadingZero {
            return TypeGuess(type: .string, reason: "\(counted), digits with leading zeros: text, so the zeros stay")
        }
        if dates.namedForDates, allNumbers, let dated = formattedDates(counted, otherwise: .number) { return dated }
        if allIntegers { return TypeGuess(type: .number, reason: "\(counted), all integers" + unnamedDates) }
        if allNumbers { return TypeGuess(type: .number, reason: "\(counted), all numbers" + unnamedDates) }
        if allDecimalComma && sawComma {
            let format = sawPoint ? Self.decimalComma : NumberFormat(decimal: UInt8(ascii: ","), thousands: nil)
            return TypeGuess(
                type: .number, reason: "\(counted), all numbers with a decimal comma" + (sawPoint ? " and \".\" between thousands" : ""),
                numberFormat: format)
        }
        if allBooleans { return TypeGuess(type: .boolean, reason: "\(counted), all true/false") }
        if allDates { return TypeGuess(type: .date, reason: "\(counted), all ISO 8601 dates") }
        if let dated = formattedDates(counted, otherwise: .string) { return dated }
        if allObjects { return TypeGuess(type: .object, reason: "\(counted), all JSON objects") }
        if allArrays { return TypeGuess(type: .array, reason: "\(counted), all JSON arrays") }
        return TypeGuess(type: .string, reason: "\(counted), text")
    }
}
