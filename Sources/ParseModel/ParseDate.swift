/// A point in time with millisecond precision, as Parse stores dates (UTC, `…SSSZ`).
public struct ParseDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z, Parse's precision.
    public let millisecondsSince1970: Int64

    /// The instant `millisecondsSince1970` after the epoch.
    public init(millisecondsSince1970: Int64) { self.millisecondsSince1970 = millisecondsSince1970 }

    /// The date at midnight UTC plus the given time of day and offset (minutes east of UTC).
    public init?(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
        millisecond: Int = 0, offsetMinutes: Int = 0
    ) {
        guard (1...12).contains(month), (1...ParseDate.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
            (0...999).contains(millisecond), (1...9999).contains(year)
        else { return nil }
        let days = ParseDate.daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        self.millisecondsSince1970 = seconds * 1000 + Int64(millisecond)
    }

    /// Whether `a` is earlier than `b`.
    public static func < (a: ParseDate, b: ParseDate) -> Bool { a.millisecondsSince1970 < b.millisecondsSince1970 }

    /// ISO 8601 in UTC with milliseconds: `2024-01-31T09:30:00.000Z`.
    public var iso: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        writeISO(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the bytes of ``iso`` to `out`, without building a String.
    package func writeISO(to out: inout [UInt8]) {
        let ms = millisecondsSince1970
        let days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let msOfDay = Int(ms - days * 86_400_000)
        let (y, m, d) = ParseDate.civilFromDays(days)
        // Years outside 0...9999, which ISO dates do not hold, are written as they are.
        let fourDigits = (0...9999).contains(y)
        if !fourDigits { out += String(y).utf8 }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
            func put(_ value: Int, _ width: Int, at end: Int, then separator: UInt8) {
                var value = value
                for i in stride(from: end - 1, through: end - width, by: -1) {
                    text[i] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                }
                text[end] = separator
            }
            put(fourDigits ? y : 0, 4, at: 4, then: UInt8(ascii: "-"))
            put(m, 2, at: 7, then: UInt8(ascii: "-"))
            put(d, 2, at: 10, then: UInt8(ascii: "T"))
            put(msOfDay / 3_600_000, 2, at: 13, then: UInt8(ascii: ":"))
            put(msOfDay / 60_000 % 60, 2, at: 16, then: UInt8(ascii: ":"))
            put(msOfDay / 1000 % 60, 2, at: 19, then: UInt8(ascii: "."))
            put(msOfDay % 1000, 3, at: 23, then: UInt8(ascii: "Z"))
            out.append(contentsOf: UnsafeBufferPointer(rebasing: text[(fourDigits ? 0 : 4)...]))
        }
    }

    /// The ISO 8601 text, as ``iso``.
    public var description: String { iso }

    /// Parses ISO 8601: `YYYY-MM-DD`, optionally `THH:MM[:SS[.fff…]]` (also with a space
    /// instead of `T`) and a zone `Z`, `±HH:MM`, `±HHMM` or `±HH`; no zone means UTC.
    public init?(iso text: String) {
        if let canonical = ParseDate(canonical: text) {
            self = canonical
            return
        }
        var p = ISOScanner(Array(text.utf8))
        guard let year = p.digits(4), p.take(UInt8(ascii: "-")), let month = p.digits(2),
            p.take(UInt8(ascii: "-")), let day = p.digits(2)
        else { return nil }
        var hour = 0, minute = 0, second = 0, millisecond = 0, offset = 0
        if p.take(UInt8(ascii: "T")) || p.take(UInt8(ascii: "t")) || p.take(UInt8(ascii: " ")) {
            guard let h = p.digits(2), p.take(UInt8(ascii: ":")), let mi = p.digits(2) else { return nil }
            hour = h; minute = mi
            if p.take(UInt8(ascii: ":")) {
                guard let s = p.digits(2) else { return nil }
                second = s
                if p.take(UInt8(ascii: ".")) || p.take(UInt8(ascii: ",")) {
                    guard let fraction = p.fraction() else { return nil }
                    millisecond = fraction
                }
            }
            if p.take(UInt8(ascii: "Z")) || p.take(UInt8(ascii: "z")) {
            } else if let sign = p.sign() {
                guard let oh = p.digits(2) else { return nil }
                var om = 0
                if p.take(UInt8(ascii: ":")) {
                    guard let m = p.digits(2) else { return nil }
                    om = m
                } else if let m = p.digits(2) {
                    om = m
                }
                guard oh <= 23, om <= 59 else { return nil }
                offset = sign * (oh * 60 + om)
            }
        }
        guard p.atEnd else { return nil }
        self.init(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            millisecond: millisecond, offsetMinutes: offset)
    }

    /// The form ``iso`` writes (`2024-01-31T09:30:00.000Z`), read without copying the text:
    /// what mirrors and Parse Servers store, so most dates take this path.
    private init?(canonical text: String) {
        guard text.utf8.count == 24 else { return nil }
        var text = text
        guard let date = text.withUTF8({ ParseDate(canonicalUTF8: UnsafeRawBufferPointer($0)) }) else { return nil }
        self = date
    }

    /// The form ``iso`` writes, from its UTF-8 bytes; `nil` for any other text, which
    /// ``init(iso:)`` may still read.
    package init?(canonicalUTF8 b: UnsafeRawBufferPointer) {
        guard b.count == 24 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for i in start..<start + count {
                let digit = Int(b[i]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x2E, b[23] == 0x5A,
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), let millisecond = number(20, 3)
        else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond)
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's civil-date algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (Int(yoe + era * 400 + (m <= 2 ? 1 : 0)), Int(m), Int(d))
    }
}

/// A cursor over ASCII bytes for the ISO and pattern date parsers.
struct ISOScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Exactly `count` decimal digits.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for b in bytes[index..<index + count] {
            guard (48...57).contains(b) else { return nil }
            value = value * 10 + Int(b - 48)
        }
        index += count
        return value
    }

    /// Between `min` and `max` decimal digits.
    mutating func digits(min: Int, max: Int) -> Int? {
        var value = 0, count = 0
        while count < max, index < bytes.count, (48...57).contains(bytes[index]) {
            value = value * 10 + Int(bytes[index] - 48)
            index += 1
            count += 1
        }
        return count >= min ? value : nil
    }

    /// A decimal fraction of a second, as milliseconds (further digits are truncated).
    mutating func fraction() -> Int? {
        var ms = 0, count = 0
        while index < bytes.count, (48...57).contains(bytes[index]) {
            if count < 3 { ms = ms * 10 + Int(bytes[index] - 48) }
            count += 1
            index += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 3) { ms *= 10 }
        return ms
    }

    mutating func sign() -> Int? {
        if take(UInt8(ascii: "+")) { return 1 }
        if take(UInt8(ascii: "-")) { return -1 }
        return nil
    }
}
