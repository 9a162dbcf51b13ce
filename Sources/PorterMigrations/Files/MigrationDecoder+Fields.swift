import ParseModel
import PorterPipeline

/// Field specs as `/schemas` spells them: `{type, targetClass, required, defaultValue}`, read
/// by ``SchemaEntryReader`` as in a schema file, with two rules of a migration file's own.
extension MigrationDecoder {
    static let fieldSpecKeys = ["type", "targetClass", "required", "defaultValue"]

    /// The field `name` declared by the spec keys of `spec`.
    func field(_ name: String, _ spec: JSONObject, at keyPath: String) throws(PorterError) -> SchemaField {
        try checkDeclarable(spec, at: keyPath)
        return try entryReader.field(name, .object(spec), at: keyPath)
    }

    /// The type given by `type` and `targetClass`.
    func fieldType(_ spec: JSONObject, at keyPath: String) throws(PorterError) -> FieldType {
        try checkDeclarable(spec, at: keyPath)
        return try entryReader.type(of: spec, at: keyPath)
    }

    private var entryReader: SchemaEntryReader {
        SchemaEntryReader { [self] keyPath, reason in fail(keyPath, reason) }
    }

    /// What a migration file refuses and `/schemas` lets through: ACL as a declared type (every
    /// class has its ACL field), and a `targetClass` on a type other than Pointer and Relation.
    private func checkDeclarable(_ spec: JSONObject, at keyPath: String) throws(PorterError) {
        guard case .string(let name)? = spec["type"] else { return }
        if name == "ACL" { throw fail("\(keyPath).type", "ACL cannot be declared: every class has its ACL field") }
        if FieldType(name: name, targetClass: nil) != nil, let target = spec["targetClass"], target != .null {
            throw fail("\(keyPath).targetClass", "only a Pointer or Relation has a targetClass")
        }
    }
}
