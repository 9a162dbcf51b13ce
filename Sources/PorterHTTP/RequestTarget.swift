extension HTTPParser {
    /// The percent-decoded path and query pairs of a request target, pairs in the order sent.
    ///
    /// An absolute-form target (`http://host/path`) loses its scheme and authority, a fragment
    /// is dropped, and a `%` not followed by two hex digits is kept as is. In the query, `+`
    /// reads as a space and a name without `=` gets an empty value.
    static func splitTarget(_ target: String) -> (path: String, query: [(name: String, value: String)]) {
        var bytes = Array(target.utf8)[...]
        if let numberSign = bytes.firstIndex(of: ASCII.numberSign) { bytes = bytes[..<numberSign] }
        var path = bytes
        var query: ArraySlice<UInt8> = []
        if let questionMark = bytes.firstIndex(of: ASCII.questionMark) {
            path = bytes[..<questionMark]
            query = bytes[(questionMark + 1)...]
        }
        if let schemeEnd = path.firstRange(of: Array("://".utf8)), path[..<schemeEnd.lowerBound].allSatisfy(isSchemeByte) {
            let authority = path[schemeEnd.upperBound...]
            path = authority.firstIndex(of: ASCII.slash).map { authority[$0...] } ?? Array("/".utf8)[...]
        }
        let pairs = query.split(separator: ASCII.ampersand).map { pair in
            let equalsSign = pair.firstIndex(of: ASCII.equalsSign) ?? pair.endIndex
            let value = equalsSign == pair.endIndex ? [] : pair[(equalsSign + 1)...]
            return (name: percentDecode(pair[..<equalsSign], plusAsSpace: true), value: percentDecode(value, plusAsSpace: true))
        }
        return (percentDecode(path, plusAsSpace: false), pairs)
    }

    /// `bytes` with each `%XX` replaced by its byte (and `+` by a space if asked), read as UTF-8.
    static func percentDecode(_ bytes: ArraySlice<UInt8>, plusAsSpace: Bool) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == ASCII.percent, index + 2 < bytes.endIndex,
                let high = ASCII.hexValue(bytes[index + 1]), let low = ASCII.hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(plusAsSpace && byte == ASCII.plus ? ASCII.space : byte)
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// A letter, digit, `+`, `-` or `.`: what a URI scheme is made of.
    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        ASCII.isAlphanumeric(byte) || byte == ASCII.plus || byte == ASCII.hyphen || byte == ASCII.period
    }
}

extension HTTPRequest {
    /// The pairs of a query string (`a=1&b=%7B%7D`, without its `?`), decoded as a request's
    /// ``query`` is: for targets that arrive inside a body, such as a batch's sub-requests.
    package static func queryPairs(_ query: Substring) -> [(name: String, value: String)] {
        HTTPParser.splitTarget("?" + query).query
    }
}
