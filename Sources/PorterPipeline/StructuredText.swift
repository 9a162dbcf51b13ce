import ParseModel
import Yams

/// Reads the YAML or JSON text of a manifest or a migration file as one JSON tree, so both
/// spellings of a file are decoded (and checked) by the same code.
package enum StructuredText {
    /// Parses `text`: JSON when `fileName` ends in `.json`, YAML otherwise; `nil` when YAML
    /// text holds no document (empty, or only comments), which each caller words for itself.
    /// Faults are usage errors (exit 2) that start with `fileName`; JSON faults name the line
    /// (`Migrations/V1__x.json:3: invalid JSON: …`).
    package static func parse(_ text: String, fileName: String) throws(PorterError) -> JSONValue? {
        if fileName.hasSuffix(".json") {
            do {
                return try JSONParser.parse(text)
            } catch {
                throw PorterError(.usage, "\(fileName):\(error.line): invalid JSON: \(error.message)")
            }
        }
        do {
            return try Yams.compose(yaml: text).map(json(from:))
        } catch {
            throw PorterError(.usage, "\(fileName): invalid YAML: \(String(describing: error).split(separator: "\n").first ?? "")")
        }
    }

    /// YAML as a JSON tree; mapping keys are taken as text, scalars by their resolved tag.
    static func json(from node: Node) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return .null
            case .bool: return node.bool.map(JSONValue.bool) ?? .string(scalar.string)
            case .int: return Int64(scalar.string).map(JSONValue.integer) ?? node.float.map(JSONValue.double) ?? .string(scalar.string)
            case .float: return node.float.map(JSONValue.double) ?? .string(scalar.string)
            default: return .string(scalar.string)
            }
        case .mapping(let mapping):
            return .object(JSONObject(mapping.map { JSONMember($0.key.string ?? "", json(from: $0.value)) }))
        case .sequence(let sequence):
            return .array(sequence.map(json(from:)))
        case .alias:
            return .null
        }
    }
}
