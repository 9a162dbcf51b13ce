import ParseModel
import PorterPipeline

/// Field specs as `/schemas` spells them: `{type, targetClass, required, defaultValue}`.
extension MigrationDecoder {
    static let fieldSpecKeys = ["type", "targetClass", "required", "defaultValue"]
    /// The types a field may be declared with (ACL is every class's own field).
    static let typeNames = ["String", "Number", "Boolean", "Date", "Object", "Array", "GeoPoint", "File", "Bytes", "Polygon", "Pointer", "Relation"]

    /// The field `name` declared by the spec keys of `spec`.
    func field(_ name: String, _ spec: JSONObject, at keyPath: String) throws(PorterError) -> SchemaField {
        let type = try fieldType(spec, at: keyPath)
        let isRelation = if case .relation = type { true } else { false }
        let required = try bool(spec, "required", at: keyPath) ?? false
        if required && isRelation { throw fail("\(keyPath).required", "a Relation cannot be required") }
        guard let json = spec["defaultValue"], json != .null else {
            return SchemaField(name: name, type: type, required: required)
        }
        if isRelation { throw fail("\(keyPath).defaultValue", "a Relation cannot have a defaultValue") }
        let value: ParseValue
        do { value = try ParseValue(wire: json, as: type) } catch {
            throw fail("\(keyPath).defaultValue", "\(json.serialized()): \(error.message)")
        }
        guard value.fieldType == type else { throw fail("\(keyPath).defaultValue", "\(json.serialized()) is not a \(type)") }
        return SchemaField(name: name, type: type, required: required, defaultValue: value)
    }

    /// The type given by `type` and `targetClass`.
    func fieldType(_ spec: JSONObject, at keyPath: String) throws(PorterError) -> FieldType {
        let name = try requiredString(spec, "type", at: keyPath)
        if name == "ACL" { throw fail("\(keyPath).type", "ACL cannot be declared: every class has its ACL field") }
        guard Self.typeNames.contains(name) else {
            throw fail("\(keyPath).type", "unknown field type \"\(name)\" (expected \(Self.typeNames.joined(separator: ", ")))")
        }
        let target = try string(spec, "targetClass", at: keyPath)
        if let target {
            guard name == "Pointer" || name == "Relation" else { throw fail("\(keyPath).targetClass", "only a Pointer or Relation has a targetClass") }
            if let problem = ParseNames.classNameProblem(target) { throw fail("\(keyPath).targetClass", problem) }
        }
        guard let type = FieldType(name: name, targetClass: target) else {
            throw fail("\(keyPath).targetClass", "is required for a \(name): the class it refers to")
        }
        return type
    }
}
