import ParseModel

/// How a source writes numbers: its decimal mark and, optionally, the separator between
/// groups of three digits (`decimal: ","` and `thousands: "."` read `1.234,50` as 1234.5).
public struct NumberFormat: Hashable, Sendable {
    /// `.` or `,`.
    public var decimal: UInt8
    /// A byte other than the decimal mark, a digit or a sign; `nil`: digits are not grouped.
    public var thousands: UInt8?

    /// `1234.5`: a decimal point and no grouping.
    public static let standard = NumberFormat(decimal: UInt8(ascii: "."), thousands: nil)

    /// A format with `decimal` as the decimal mark and `thousands` between groups of three digits.
    public init(decimal: UInt8, thousands: UInt8?) {
        self.decimal = decimal
        self.thousands = thousands
    }

    /// `decimal ",", thousands "."` as messages show it.
    var spelled: String {
        let decimalMark = "decimal \"\(Character(Unicode.Scalar(decimal)))\""
        return thousands.map { "\(decimalMark), thousands \"\(Character(Unicode.Scalar($0)))\"" } ?? decimalMark
    }
}

/// Strict decimal number syntax: an optional sign, digits with an optional fraction, an
/// optional exponent. `1,5`, `12abc`, `0x10`, `inf` and `nan` are not numbers.
enum NumberText {
    /// The number `text` writes in `format`: its decimal mark stands for the point, and its
    /// thousands separator may only split the integer digits into groups of three
    /// (`1.234.567,5`, not `1.23,5` or `1234.567`), and grouped digits take no exponent.
    /// Anything else is no number (`1,2,3`, or `1.5` when the decimal mark is `,`).
    static func parse(_ text: String, format: NumberFormat) -> ParseValue? {
        if format == .standard { return parse(text) }
        if let integer = Int64(text) { return .integer(integer) }
        var standard: [UInt8] = []
        standard.reserveCapacity(text.utf8.count)
        var inFraction = false, inExponent = false
        // Digits since the last thousands separator, and whether there was one.
        var groupDigits = 0, grouped = false
        for byte in text.utf8 {
            if isDigit(byte) {
                groupDigits += 1
            } else if byte == format.thousands, !inFraction, !inExponent {
                guard groupDigits > 0, !grouped || groupDigits == 3, grouped || groupDigits <= 3 else { return nil }
                grouped = true
                groupDigits = 0
                continue
            } else if byte == format.decimal, !inFraction, !inExponent {
                inFraction = true
                if grouped, groupDigits != 3 { return nil }
                standard.append(UInt8(ascii: "."))
                continue
            } else if byte == UInt8(ascii: ".") {
                return nil
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                if grouped { return nil }
                inExponent = true
            }
            standard.append(byte)
        }
        if grouped, !inFraction, !inExponent, groupDigits != 3 { return nil }
        return parse(String(decoding: standard, as: UTF8.self))
    }

    static func parse(_ text: String) -> ParseValue? {
        if let integer = Int64(text) { return .integer(integer) }
        var utf8 = Array(text.utf8)
        while let last = utf8.last, last == 32 || last == 9 { utf8.removeLast() }
        var start = 0
        while start < utf8.count, utf8[start] == 32 || utf8[start] == 9 { start += 1 }
        let bytes = utf8[start...]
        guard !bytes.isEmpty else { return nil }
        var i = bytes.startIndex
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
        var intDigits = 0, fracDigits = 0, isInteger = true
        while i < bytes.endIndex, isDigit(bytes[i]) { i += 1; intDigits += 1 }
        if i < bytes.endIndex, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            while i < bytes.endIndex, isDigit(bytes[i]) { i += 1; fracDigits += 1 }
        }
        guard intDigits + fracDigits > 0 else { return nil }
        if i < bytes.endIndex, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < bytes.endIndex, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
            var expDigits = 0
            while i < bytes.endIndex, isDigit(bytes[i]) { i += 1; expDigits += 1 }
            guard expDigits > 0 else { return nil }
        }
        guard i == bytes.endIndex else { return nil }
        let clean = String(decoding: bytes, as: UTF8.self)
        if isInteger, let integer = Int64(clean) { return .integer(integer) }
        guard let double = Double(clean), double.isFinite else { return nil }
        return .double(double)
    }

    /// The integer of an optional sign and 1 to 18 digits, as `Int64(text)` reads them; `nil`
    /// for anything else (which ``parse(_:)`` then reads).
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative || bytes.first == UInt8(ascii: "+") { index = 1 }
        let digits = bytes.count - index
        guard digits > 0, digits <= 18 else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- 48
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            index += 1
        }
        return negative ? -value : value
    }

    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
}
