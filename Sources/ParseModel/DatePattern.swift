/// A date format: a pattern in the usual notation (`dd.MM.yyyy`, `yyyy-MM-dd HH:mm:ss`,
/// `dd MMM yyyy`, `MM/dd/yyyy hh:mm a`), or a Unix time (`unix`: seconds since 1970, integer or
/// decimal; `unix-ms`: milliseconds).
///
/// Pattern letters: `yyyy` `yy` `MM` `M` `dd` `d` `HH` `H` (0–23) `hh` `h` (1–12, with `a` for
/// AM/PM in any case; 12 AM is 00) `mm` `ss` `SSS`, `MMM` (Jan…Dec) and `MMMM` (January…December)
/// for English month names in any case, `XXX`/`Z` for a UTC offset, `'text'` for literal text;
/// anything else stands for itself. Dates without an offset are UTC.
package struct DatePattern: Sendable {
    enum Token: Sendable, Equatable {
        case year4, year2, month(min: Int), monthName(full: Bool), day(min: Int), hour(min: Int), hour12(min: Int), meridiem
        case minute, second, millisecond, offset
        case literal(UInt8)
    }

    enum Kind: Sendable, Equatable {
        case pattern([Token])
        /// Seconds (`unix`) or milliseconds (`unix-ms`) since 1970-01-01T00:00:00Z.
        case unix(millisecondsPerUnit: Int64)
    }

    let kind: Kind

    /// The format's spelling in a manifest.
    package let text: String

    /// Whether the format is a Unix time, which a JSON number may also hold.
    package var isUnixTime: Bool {
        if case .unix = kind { return true }
        return false
    }

    package init?(_ pattern: String) {
        text = pattern
        switch pattern {
        case "unix": kind = .unix(millisecondsPerUnit: 1000); return
        case "unix-ms": kind = .unix(millisecondsPerUnit: 1); return
        default: break
        }
        let bytes = Array(pattern.utf8)
        var tokens: [Token] = []
        var i = 0
        func run(of b: UInt8) -> Int {
            var n = 0
            while i + n < bytes.count, bytes[i + n] == b { n += 1 }
            return n
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "'") {
                guard let close = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: "'")) else { return nil }
                tokens += bytes[(i + 1)..<close].map(Token.literal)
                i = close + 1
                continue
            }
            let n = run(of: b)
            switch (Character(Unicode.Scalar(b)), n) {
            case ("y", 4): tokens.append(.year4)
            case ("y", 2): tokens.append(.year2)
            case ("M", 1...2): tokens.append(.month(min: n))
            case ("M", 3...4): tokens.append(.monthName(full: n == 4))
            case ("d", 1...2): tokens.append(.day(min: n))
            case ("H", 1...2): tokens.append(.hour(min: n))
            case ("h", 1...2): tokens.append(.hour12(min: n))
            case ("a", 1): tokens.append(.meridiem)
            case ("m", 2): tokens.append(.minute)
            case ("s", 2): tokens.append(.second)
            case ("S", 3): tokens.append(.millisecond)
            case ("X", 1...3), ("Z", 1...3): tokens.append(.offset)
            case (let c, _) where c.isLetter: return nil
            default:
                tokens += Array(repeating: Token.literal(b), count: n)
            }
            i += n
        }
        guard tokens.contains(.year4) || tokens.contains(.year2) else { return nil }
        // A 12-hour clock needs its AM/PM, and AM/PM belongs to a 12-hour clock.
        let twelveHour = tokens.contains { if case .hour12 = $0 { true } else { false } }
        guard twelveHour == tokens.contains(.meridiem) else { return nil }
        kind = .pattern(tokens)
    }

    /// The date `text` denotes, or `nil` when it does not match the format exactly.
    package func parse(_ text: String) -> ParseDate? {
        switch kind {
        case .pattern(let tokens): Self.parse(text, tokens)
        case .unix(let unit): Self.unixTime(text, millisecondsPerUnit: unit)
        }
    }

    /// English month names, January first.
    static let monthNames: [[UInt8]] = [
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december",
    ].map { Array($0.utf8) }

    private static func parse(_ text: String, _ tokens: [Token]) -> ParseDate? {
        var scanner = ISOScanner(Array(text.utf8))
        var year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0, millisecond = 0, offset = 0
        var hour12: Int?, afternoon = false
        for token in tokens {
            switch token {
            case .year4: guard let v = scanner.digits(min: 4, max: 4) else { return nil }; year = v
            case .year2: guard let v = scanner.digits(min: 2, max: 2) else { return nil }; year = v < 70 ? 2000 + v : 1900 + v
            case .month(let min): guard let v = scanner.digits(min: min, max: 2) else { return nil }; month = v
            case .monthName(let full): guard let v = scanner.monthName(full: full) else { return nil }; month = v
            case .day(let min): guard let v = scanner.digits(min: min, max: 2) else { return nil }; day = v
            case .hour(let min): guard let v = scanner.digits(min: min, max: 2) else { return nil }; hour = v
            case .hour12(let min):
                guard let v = scanner.digits(min: min, max: 2), (1...12).contains(v) else { return nil }
                hour12 = v
            case .meridiem:
                if scanner.takeLetters("am") { afternoon = false } else if scanner.takeLetters("pm") { afternoon = true } else { return nil }
            case .minute: guard let v = scanner.digits(min: 2, max: 2) else { return nil }; minute = v
            case .second: guard let v = scanner.digits(min: 2, max: 2) else { return nil }; second = v
            case .millisecond: guard let v = scanner.digits(min: 3, max: 3) else { return nil }; millisecond = v
            case .offset:
                if scanner.take(UInt8(ascii: "Z")) { offset = 0; continue }
                guard let sign = scanner.sign(), let h = scanner.digits(min: 2, max: 2) else { return nil }
                _ = scanner.take(UInt8(ascii: ":"))
                let m = scanner.digits(min: 2, max: 2) ?? 0
                offset = sign * (h * 60 + m)
            case .literal(let b): guard scanner.take(b) else { return nil }
            }
        }
        guard scanner.atEnd else { return nil }
        if let hour12 { hour = hour12 % 12 + (afternoon ? 12 : 0) }
        return ParseDate(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            millisecond: millisecond, offsetMinutes: offset)
    }

    /// `[-]digits[.digits]` in units of `millisecondsPerUnit`; digits beyond the millisecond are truncated.
    private static func unixTime(_ text: String, millisecondsPerUnit unit: Int64) -> ParseDate? {
        var scanner = ISOScanner(Array(text.utf8))
        let negative = scanner.take(UInt8(ascii: "-"))
        guard let whole = scanner.digits(min: 1, max: 15) else { return nil }
        var milliseconds = Int64(whole) * unit
        if scanner.take(UInt8(ascii: ".")) {
            guard let fraction = scanner.fraction() else { return nil }
            // `fraction` is in thousandths of the unit.
            milliseconds += Int64(fraction) * unit / 1000
        }
        guard scanner.atEnd else { return nil }
        return checked(negative ? -milliseconds : milliseconds)
    }

    /// A date within Parse's years 1–9999.
    private static func checked(_ milliseconds: Int64) -> ParseDate? {
        // 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z.
        guard (-62_135_596_800_000...253_402_300_799_999).contains(milliseconds) else { return nil }
        return ParseDate(millisecondsSince1970: milliseconds)
    }
}

extension DatePattern {
    /// Formats that dates are commonly written in, tried in this order by ``commonFormats(parsing:)``.
    package static let commonFormats = [
        "yyyy-MM-dd", "dd/MM/yyyy", "MM/dd/yyyy", "d/M/yyyy", "M/d/yyyy", "dd.MM.yyyy", "d.M.yyyy", "dd-MM-yyyy", "yyyy/MM/dd",
        "dd MMM yyyy", "d MMM yyyy", "MMM d, yyyy", "dd MMMM yyyy", "d MMMM yyyy", "MMMM d, yyyy", "dd-MMM-yyyy",
        "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "dd/MM/yyyy HH:mm:ss", "dd/MM/yyyy HH:mm",
        "MM/dd/yyyy HH:mm:ss", "MM/dd/yyyy HH:mm", "MM/dd/yyyy hh:mm a", "MM/dd/yyyy h:mm a", "M/d/yyyy h:mm a",
        "dd.MM.yyyy HH:mm:ss", "dd.MM.yyyy HH:mm", "dd MMM yyyy HH:mm", "unix", "unix-ms",
        "yyyyMMdd", "yyyyMMddHHmmss", "yyyyMM",
    ]

    /// The ``commonFormats`` that read `text` as a plausible date, most usual first: a format to
    /// suggest for a date that does not parse, or (kept while every value of a column parses) to
    /// infer for the column. A format of digits alone (``isDigitsOnly``) counts only for a
    /// plausible date: Unix times in 1990–2100, so that a small number or a `yyyyMMdd` day is not
    /// taken for one; `yyyyMMdd` and the like in 1900–2100, so that a code is not.
    package static func commonFormats(parsing text: String) -> [String] {
        commonReadings(of: text).map(\.pattern.text)
    }

    /// The patterns of ``commonFormats(parsing:)``, each with the date it reads.
    package static func commonReadings(of text: String) -> [(pattern: DatePattern, date: ParseDate)] {
        commonPatterns.compactMap { pattern in
            guard let date = pattern.parse(text) else { return nil }
            if pattern.isUnixTime { return plausibleUnixTimes.contains(date) ? (pattern, date) : nil }
            if pattern.isDigitsOnly { return plausibleDigitDates.contains(date) ? (pattern, date) : nil }
            return (pattern, date)
        }
    }

    /// A Unix time, or a pattern of numbers alone (`yyyyMMdd`): its values are integers, which
    /// could as well be counts or codes.
    package var isDigitsOnly: Bool {
        switch kind {
        case .unix: return true
        case .pattern(let tokens):
            return tokens.allSatisfy {
                switch $0 {
                case .year4, .year2, .month, .day, .hour, .minute, .second, .millisecond: true
                default: false
                }
            }
        }
    }

    private static let commonPatterns = commonFormats.map { DatePattern($0)! }
    private static let plausibleUnixTimes = ParseDate(year: 1990, month: 1, day: 1)!...ParseDate(year: 2100, month: 1, day: 1)!
    private static let plausibleDigitDates =
        ParseDate(year: 1900, month: 1, day: 1)!...ParseDate(year: 2100, month: 12, day: 31, hour: 23, minute: 59, second: 59)!
}

extension ISOScanner {
    /// An English month name (`full`) or its first three letters, in any case: 1…12.
    mutating func monthName(full: Bool) -> Int? {
        for (index, name) in DatePattern.monthNames.enumerated() where takeLetters(full ? name : Array(name.prefix(3))) {
            return index + 1
        }
        return nil
    }

    /// `letters` (lowercase ASCII) in any case.
    mutating func takeLetters(_ letters: String) -> Bool { takeLetters(Array(letters.utf8)) }

    mutating func takeLetters(_ letters: [UInt8]) -> Bool {
        guard index + letters.count <= bytes.count else { return false }
        for (offset, letter) in letters.enumerated() where bytes[index + offset] | 0x20 != letter { return false }
        index += letters.count
        return true
    }
}
