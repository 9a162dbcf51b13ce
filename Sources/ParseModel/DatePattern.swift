
/// A date pattern in the usual notation (`dd.MM.yyyy`, `yyyy-MM-dd HH:mm:ss`, `MM/dd/yy`):
/// `yyyy` `yy` `MM` `M` `dd` `d` `HH` `H` `mm` `ss` `SSS`, `XXX`/`Z` for a UTC offset,
/// `'text'` for literal text; anything else stands for itself. Dates without an offset are UTC.
public struct DatePattern: Sendable {
    enum Token: Sendable, Equatable {
        case year4, year2, month(min: Int), day(min: Int), hour(min: Int), minute, second, millisecond, offset
        case literal(UInt8)
    }

    let tokens: [Token]

    public init?(_ pattern: String) {
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
            case ("d", 1...2): tokens.append(.day(min: n))
            case ("H", 1...2): tokens.append(.hour(min: n))
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
        self.tokens = tokens
    }

    /// The date `text` denotes, or `nil` when it does not match the pattern exactly.
    public func parse(_ text: String) -> ParseDate? {
        var scanner = ISOScanner(Array(text.utf8))
        var year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0, millisecond = 0, offset = 0
        for token in tokens {
            switch token {
            case .year4: guard let v = scanner.digits(min: 4, max: 4) else { return nil }; year = v
            case .year2: guard let v = scanner.digits(min: 2, max: 2) else { return nil }; year = v < 70 ? 2000 + v : 1900 + v
            case .month(let min): guard let v = scanner.digits(min: min, max: 2) else { return nil }; month = v
            case .day(let min): guard let v = scanner.digits(min: min, max: 2) else { return nil }; day = v
            case .hour(let min): guard let v = scanner.digits(min: min, max: 2) else { return nil }; hour = v
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
        return ParseDate(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                         millisecond: millisecond, offsetMinutes: offset)
    }
}
