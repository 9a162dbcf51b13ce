import CYaml
import ParseModel
import Yams

/// Reads the YAML or JSON text of a manifest or a migration file as one JSON tree, so both
/// spellings of a file are decoded (and checked) by the same code.
package enum StructuredText {
    /// Parses `text`: JSON when `fileName` ends in `.json`, YAML otherwise; `nil` when YAML
    /// text holds no document (empty, or only comments), which each caller words for itself.
    /// Faults are invalid requests (``PorterError/Cause/invalidRequest``) that start with `fileName`; JSON faults name the line
    /// (`Migrations/V1__x.json:3: invalid JSON: …`).
    package static func parse(_ text: String, fileName: String) throws(PorterError) -> JSONValue? {
        if fileName.hasSuffix(".json") {
            do {
                return try JSONParser.parse(text)
            } catch {
                throw PorterError(.invalidRequest, "\(fileName):\(error.line): invalid JSON: \(error.message)")
            }
        }
        try checkAliasExpansion(text, fileName: fileName)
        do {
            return try Yams.compose(yaml: text).map(json(from:))
        } catch {
            throw PorterError(.invalidRequest, "\(fileName): invalid YAML: \(String(describing: error).split(separator: "\n").first ?? "")")
        }
    }

    /// Nodes that YAML aliases (`*name`) may add to a file, their anchored nodes counted with
    /// everything under them: a "billion laughs" file of a few hundred bytes would otherwise
    /// expand to gigabytes (and hashing aliased mapping keys costs as much).
    package static let aliasNodeLimit = 100_000

    /// Counts, on libyaml's events before any tree is built, the nodes each alias stands for;
    /// past ``aliasNodeLimit`` the file is an invalid request (``PorterError/Cause/invalidRequest``). A file libyaml cannot parse
    /// is left to Yams, which words the fault.
    static func checkAliasExpansion(_ text: String, fileName: String) throws(PorterError) {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return }
        defer { yaml_parser_delete(&parser) }
        var bytes = Array(text.utf8)
        let added: Int = bytes.withUnsafeMutableBufferPointer { buffer in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            /// Nodes under each anchor (the latest of a name wins, as in YAML); open collections' counts so far.
            var anchored: [String: Int] = [:]
            var open: [(anchor: String?, nodes: Int)] = []
            var added = 0
            func close(_ anchor: String?, nodes: Int) {
                if let anchor { anchored[anchor] = nodes }
                if !open.isEmpty { open[open.count - 1].nodes = open[open.count - 1].nodes.addingSaturated(nodes) }
            }
            func name(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
                pointer.map { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
            }
            while added <= aliasNodeLimit {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else { break }
                defer { yaml_event_delete(&event) }
                switch event.type {
                case YAML_STREAM_END_EVENT:
                    return added
                case YAML_ALIAS_EVENT:
                    let nodes = name(event.data.alias.anchor).flatMap { anchored[$0] } ?? 1
                    added = added.addingSaturated(nodes)
                    close(nil, nodes: nodes)
                case YAML_SCALAR_EVENT:
                    close(name(event.data.scalar.anchor), nodes: 1)
                case YAML_SEQUENCE_START_EVENT:
                    open.append((name(event.data.sequence_start.anchor), 1))
                case YAML_MAPPING_START_EVENT:
                    open.append((name(event.data.mapping_start.anchor), 1))
                case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                    if let collection = open.popLast() { close(collection.anchor, nodes: collection.nodes) }
                default:
                    continue
                }
            }
            return added
        }
        guard added <= aliasNodeLimit else {
            throw PorterError(
                .invalidRequest,
                "\(fileName): its YAML aliases (*name) stand for more than \(aliasNodeLimit) nodes: "
                    + "refused as a possible alias bomb; write the repeated parts out, or use fewer aliases")
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

private extension Int {
    func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
