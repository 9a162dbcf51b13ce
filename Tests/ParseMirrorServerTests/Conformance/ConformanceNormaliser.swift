import Foundation
import ParseModel

/// The corpus's normalisation (its README, "Normalisation"), for one scenario: server-assigned
/// objectIds become `{{id:N}}` in order of first appearance, ISO dates `<date>`, session tokens
/// `<token>`, file names and URLs `<file>`; strings the scenario's requests hold are literals and
/// stay; a GET's `results` without `order` are sorted by their canonical JSON.
final class ConformanceNormaliser {
    private let literalText: String
    /// Server-assigned objectIds and their placeholders, in order of first appearance.
    private var ids: [(id: String, placeholder: String)] = []
    private var placeholders: [String: String] = [:]

    init(literalText: String) {
        self.literalText = literalText
    }

    func isLiteral(_ text: String) -> Bool { literalText.contains(text) }

    /// `body`, the answer to `step`, normalised; numbers the objectIds it shows first.
    func normalise(_ body: JSONValue, for step: ConformanceCorpus.Step, query: [String: String]) -> JSONValue {
        var body = body
        if step.path.hasPrefix("/files/"), step.method == "POST", case .object(var object) = body {
            for index in object.members.indices where ["name", "url"].contains(object.members[index].key) {
                object.members[index].value = .string("<file>")
            }
            body = .object(object)
        }
        if let keep = step.keepClasses, case .object(var object) = body, case .array(let results)? = object["results"] {
            object["results"] = .array(
                results.filter { result in
                    guard case .object = result, let name = result["className"]?.stringValue else { return false }
                    return keep.contains(name)
                })
            body = .object(object)
        }
        if step.method == "GET", query["order"] == nil, case .object(var object) = body, case .array(let results)? = object["results"] {
            let keyed = results.enumerated().map {
                (key: Self.canonical(replace($0.element, unknownAsPlaceholder: true)), offset: $0.offset, value: $0.element)
            }
            let sorted = keyed.sorted { a, b in
                a.key == b.key ? a.offset < b.offset : a.key.utf8.lexicographicallyPrecedes(b.key.utf8)
            }
            object["results"] = .array(sorted.map(\.value))
            body = .object(object)
        }
        register(body)
        return replace(body, unknownAsPlaceholder: false)
    }

    /// Numbers every `objectId` value that is not a literal and not numbered yet, in document order.
    private func register(_ json: JSONValue) {
        switch json {
        case .object(let object):
            for member in object.members {
                if member.key == "objectId", case .string(let id) = member.value, !id.isEmpty, !isLiteral(id), placeholders[id] == nil {
                    let placeholder = "{{id:\(ids.count + 1)}}"
                    ids.append((id, placeholder))
                    placeholders[id] = placeholder
                }
                register(member.value)
            }
        case .array(let items): items.forEach(register)
        default: break
        }
    }

    private func replace(_ json: JSONValue, key: String? = nil, unknownAsPlaceholder: Bool) -> JSONValue {
        switch json {
        case .object(let object):
            let isFile = object["__type"] == .string("File")
            return .object(
                JSONObject(
                    object.members.map { member in
                        if isFile && (member.key == "name" || member.key == "url") { return JSONMember(member.key, .string("<file>")) }
                        let name = isFile ? member.key : placeholders[member.key] ?? member.key
                        return JSONMember(name, replace(member.value, key: member.key, unknownAsPlaceholder: unknownAsPlaceholder))
                    }))
        case .array(let items):
            return .array(items.map { replace($0, unknownAsPlaceholder: unknownAsPlaceholder) })
        case .string(let text):
            if key == "sessionToken" { return .string("<token>") }
            if let placeholder = placeholders[text] { return .string(placeholder) }
            if key == "objectId" && unknownAsPlaceholder && !isLiteral(text) { return .string("{{id:?}}") }
            if Self.isISODate(text) && !isLiteral(text) { return .string("<date>") }
            var replaced = text
            for (id, placeholder) in ids where id.count >= 8 && replaced.contains(id) {
                replaced = replaced.replacingOccurrences(of: id, with: placeholder)
            }
            return .string(replaced)
        default:
            return json
        }
    }

    /// `2024-01-02T03:04:05.678Z` (fraction optional), the reference's `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`.
    static func isISODate(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let pattern = Array("dddd-dd-ddTdd:dd:dd".utf8)
        guard bytes.count >= pattern.count + 1, bytes.last == UInt8(ascii: "Z") else { return false }
        for (byte, expected) in zip(bytes, pattern) {
            if expected == UInt8(ascii: "d") { guard (48...57).contains(byte) else { return false } } else if byte != expected { return false }
        }
        let rest = bytes[pattern.count..<(bytes.count - 1)]
        guard !rest.isEmpty else { return true }
        return rest.first == UInt8(ascii: ".") && rest.count > 1 && rest.dropFirst().allSatisfy { (48...57).contains($0) }
    }

    /// Python's `json.dumps(value, sort_keys=True)`: `", "` and `": "` separators, keys sorted,
    /// everything outside printable ASCII escaped; the reference sorts unordered results by it.
    static func canonical(_ json: JSONValue) -> String {
        switch json {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .double(let number): return number == number.rounded() && abs(number) < 1e16 ? String(Int64(number)) + ".0" : "\(number)"
        case .string(let text): return quoted(text)
        case .array(let items): return "[" + items.map(canonical).joined(separator: ", ") + "]"
        case .object(let object):
            var latest: [String: JSONValue] = [:]
            for member in object.members { latest[member.key] = member.value }
            let keys = latest.keys.sorted { $0.unicodeScalars.map(\.value).lexicographicallyPrecedes($1.unicodeScalars.map(\.value)) }
            return "{" + keys.map { quoted($0) + ": " + canonical(latest[$0]!) }.joined(separator: ", ") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for unit in text.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(unit)!)
            default: out += String(format: "\\u%04x", unit)
            }
        }
        return out + "\""
    }
}
