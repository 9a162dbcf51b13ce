import ParseModel

/// Writes the `dataset.yml` that re-imports an export (`--emit-manifest`): one class per
/// exported file with its fields and key, and one `relations:` entry per join file.
struct ManifestEmitter {
    struct ClassEntry {
        let schema: ClassSchema
        let file: String
        let key: [String]
    }

    struct RelationEntry {
        let owner: String
        let field: String
        let file: String
        let ownerColumn: String
        let targetColumn: String
    }

    var classes: [ClassEntry] = []
    var relations: [RelationEntry] = []

    func yaml(format: ExportFormat) -> String {
        var lines = [
            "# Written by `parse-porter export --format \(format.rawValue) --emit-manifest`;",
            "# `parse-porter import <this folder>` reads the export back.", "version: 1", "classes:",
        ]
        for entry in classes {
            lines.append("  \(entry.schema.className):")
            lines.append("    source: \(Self.quoted(entry.file))")
            if !entry.key.isEmpty { lines.append("    key: [\(entry.key.joined(separator: ", "))]") }
            guard !entry.schema.fields.isEmpty else {
                lines.append("    fields: {}")
                continue
            }
            lines.append("    fields:")
            // A JSON object leaves out the fields it has no value for; a CSV header names every field.
            let optional = format != .csv
            for field in entry.schema.fields { lines.append("      \(field.name): \(Self.spec(field, optional: optional))") }
        }
        if !relations.isEmpty {
            lines.append("relations:")
            for relation in relations {
                lines.append(
                    "  - {owner: \(relation.owner), field: \(relation.field), source: \(Self.quoted(relation.file)), "
                        + "ownerColumn: \(relation.ownerColumn), targetColumn: \(relation.targetColumn)}")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Type`, `Type!`, or a flow mapping when the field has a default or is `optional`.
    private static func spec(_ field: SchemaField, optional: Bool) -> String {
        let type = field.type.description
        let optionalKey = optional && !field.type.isRelation ? ", optional: true" : ""
        guard let value = field.defaultValue else {
            guard !optionalKey.isEmpty else { return field.required ? type + "!" : type }
            return "{type: \(type)\(field.required ? ", required: true" : "")\(optionalKey)}"
        }
        // A default is read like a cell of the field; JSON is valid YAML flow syntax.
        let defaultJSON: JSONValue = if case .date(let date) = value { .string(date.iso) } else { value.wireJSON }
        return "{type: \(type)\(field.required ? ", required: true" : ""), default: \(defaultJSON.serialized())\(optionalKey)}"
    }

    /// A file name as a YAML string (join files hold colons).
    private static func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }
}
