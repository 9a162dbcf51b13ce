import ParseModel

/// Compares a manifest's classes with the schema a target already has: a field whose type
/// (or target class) differs cannot be written without losing data (Parse error 255).
public enum SchemaCompatibility {
    /// One ``FaultKind/schemaConflict`` per field whose type differs from the target's.
    public static func conflicts(of manifest: DatasetManifest, with targetSchemas: [ClassSchema]) -> [Diagnostic] {
        var faults: [Diagnostic] = []
        for mapping in manifest.classes {
            guard let existing = targetSchemas.first(where: { $0.className == mapping.className }) else { continue }
            for field in mapping.fields {
                guard let current = existing.field(named: field.name), current.type != field.type else { continue }
                faults.append(Diagnostic(.schemaConflict, SourceLocation(file: manifest.fileName, line: 0, className: mapping.className, fieldName: field.name,
                                                                          keyPath: "classes.\(mapping.className).fields.\(field.name)"),
                                         "conflicts with the target: \(mapping.className).\(field.name) is \(current.type) there, the manifest declares \(field.type)"))
            }
        }
        return faults
    }
}
