extension JSONValue {
    /// JSON text for people to read and review in diffs: arrays and objects nested less than
    /// `expandedLevels` deep put each element on its own line, indented by two spaces; deeper
    /// ones, and empty ones, stay on one line (`{"type": "String", "required": true}`). Members
    /// keep their order, so equal values always print the same text.
    package func prettyPrinted(expandedLevels: Int) -> String {
        var out: [UInt8] = []
        writePretty(to: &out, depth: 0, expandedLevels: expandedLevels)
        return String(decoding: out, as: UTF8.self)
    }

    private func writePretty(to out: inout [UInt8], depth: Int, expandedLevels: Int) {
        let expanded = depth < expandedLevels
        switch self {
        case .array(let items) where !items.isEmpty:
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                Self.separate(i, expanded: expanded, depth: depth, out: &out)
                item.writePretty(to: &out, depth: depth + 1, expandedLevels: expandedLevels)
            }
            Self.close(UInt8(ascii: "]"), expanded: expanded, depth: depth, out: &out)
        case .object(let object) where !object.isEmpty:
            out.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                Self.separate(i, expanded: expanded, depth: depth, out: &out)
                Self.writeString(member.key, to: &out)
                out += ": ".utf8
                member.value.writePretty(to: &out, depth: depth + 1, expandedLevels: expandedLevels)
            }
            Self.close(UInt8(ascii: "}"), expanded: expanded, depth: depth, out: &out)
        default:
            write(to: &out)
        }
    }

    private static func separate(_ index: Int, expanded: Bool, depth: Int, out: inout [UInt8]) {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        if expanded {
            out.append(UInt8(ascii: "\n"))
            out += [UInt8](repeating: UInt8(ascii: " "), count: 2 * (depth + 1))
        } else if index > 0 {
            out.append(UInt8(ascii: " "))
        }
    }

    private static func close(_ bracket: UInt8, expanded: Bool, depth: Int, out: inout [UInt8]) {
        if expanded {
            out.append(UInt8(ascii: "\n"))
            out += [UInt8](repeating: UInt8(ascii: " "), count: 2 * depth)
        }
        out.append(bracket)
    }
}
