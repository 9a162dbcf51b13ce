import ParseModel

/// Compares a manifest's classes with the schema a target already has: a field whose type
/// (or target class) differs cannot be written without losing data (Parse error 255), and a
/// name the target cannot store as it is (too long for PostgreSQL) cannot be written at all.
public enum SchemaCompatibility {
    /// One ``FaultKind/schemaConflict`` per field whose type differs from the target's.
    public static func conflicts(of manifest: DatasetManifest, with targetSchemas: [ClassSchema]) -> [Diagnostic] {
        var faults: [Diagnostic] = []
        for mapping in manifest.classes {
            guard let existing = targetSchemas.first(where: { $0.className == mapping.className }) else { continue }
            for field in mapping.fields {
                guard let current = existing.field(named: field.name), current.type != field.type else { continue }
                faults.append(
                    Diagnostic(
                        .schemaConflict,
                        SourceLocation(
                            file: manifest.fileName, line: 0, className: mapping.className, fieldName: field.name,
                            keyPath: "classes.\(mapping.className).fields.\(field.name)"),
                        "conflicts with the target: \(mapping.className).\(field.name) is \(current.type) there, the manifest declares \(field.type)"))
            }
        }
        return faults
    }

    /// One ``FaultKind/schemaConflict`` per name of the manifest's classes that `sink` cannot
    /// store as it is (``ObjectSink/refusedNames(in:existing:)``), at the name's key path.
    public static func refusedNames(of manifest: DatasetManifest, by sink: ObjectSink, existing targetSchemas: [ClassSchema]) -> [Diagnostic] {
        sink.refusedNames(in: manifest.schemas, existing: targetSchemas).map { name in
            Diagnostic(
                .schemaConflict, SourceLocation(file: manifest.fileName, line: 0, className: name.className, fieldName: name.field, keyPath: name.keyPath),
                name.reason)
        }
    }
}
