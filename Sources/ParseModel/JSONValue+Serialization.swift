extension JSONValue {
    /// Compact JSON text. With `sortedKeys` object members are written in key order, which
    /// makes the text canonical (used for stored values and change detection).
    public func serialized(sortedKeys: Bool = false) -> String {
        var out = ""
        write(to: &out, sortedKeys: sortedKeys)
        return out
    }

    func write(to out: inout String, sortedKeys: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .double(let d): out += JSONValue.format(d)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out, sortedKeys: sortedKeys)
            }
            out += "]"
        case .object(let object):
            out += "{"
            let members = sortedKeys ? object.members.sorted { $0.key < $1.key } : object.members
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out, sortedKeys: sortedKeys)
            }
            out += "}"
        }
    }

    /// Shortest text that reads back as the same double; integral values print without ".0".
    static func format(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        // Most strings need no escape: append them whole.
        guard s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
