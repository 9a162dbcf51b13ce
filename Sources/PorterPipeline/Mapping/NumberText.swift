import ParseModel

/// Strict decimal number syntax: an optional sign, digits with an optional fraction, an
/// optional exponent. `1,5`, `12abc`, `0x10`, `inf` and `nan` are not numbers.
enum NumberText {
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

    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
}
