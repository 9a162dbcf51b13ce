import ParseModel
import PorterPipeline

/// `changeType` through a temporary field, `<field>__porter_<Type>` (Parse refuses to change a
/// field's type in place, 255). The schema on entry tells how far an earlier run got:
///
/// | field | temporary field | what is left to do |
/// |---|---|---|
/// | old type | missing | check every value, add the temporary field, then as below |
/// | old type | exists | check, copy converted values into it, delete the field, then as below |
/// | missing | exists | add the field with the new type, copy the values back, delete the temporary field |
/// | new type | exists | copy the values back, delete the temporary field |
/// | new type | missing | nothing |
///
/// The check runs before the first destructive step: values that do not convert stop the
/// migration (``PorterError/Cause/invalidData``, naming them) unless `allowDataLoss`, which leaves those objects without a
/// value. The new field has no `required` or `defaultValue`.
extension OperationRunner {
    func changeType(of fieldName: String, in className: String, to type: FieldType, allowDataLoss: Bool) async throws(PorterError) -> OperationResult {
        let schema = try await existingClass(className)
        let name = "\(className).\(fieldName)"
        let temporary = SchemaField(name: Self.temporaryName(fieldName, type), type: type)
        let final = SchemaField(name: fieldName, type: type)
        let field = schema.field(named: fieldName)
        if let existing = schema.field(named: temporary.name), existing.type != type {
            throw PorterError(.invalidData, "cannot change \(name) to \(type): \(className).\(temporary.name) exists as \(existing.type)")
        }
        let temporaryExists = schema.field(named: temporary.name) != nil
        if field?.type == type && !temporaryExists { return OperationResult("\(name) is \(type) already") }
        guard field != nil || temporaryExists else {
            throw PorterError(.invalidData, "cannot change \(name) to \(type): \(className) has no field \(fieldName)")
        }
        if let field, field.type != type {
            for involved in [field.type, type] where involved == .acl || involved.isRelation {
                throw PorterError(.invalidData, "cannot change \(name) from \(field.type) to \(type): \(involved.name) fields do not convert")
            }
        }

        var schemaChanges = 0
        var dropped = 0
        if let field, field.type != type {
            let unconvertible = try await unconvertibleValues(of: field, in: className, to: type)
            if !unconvertible.isEmpty && !allowDataLoss {
                throw PorterError(
                    .invalidData,
                    "cannot change \(name) from \(field.type) to \(type): \(unconvertible.description); "
                        + "fix these values or add allowDataLoss: true to the operation to unset them")
            }
            if !temporaryExists {
                try await addTemporary(temporary, to: className)
                schemaChanges += 1
            }
            dropped = try await copyValues(of: className, from: field, to: temporary) { ValueConversion.convert($0, to: type) }.dropped
            try await deleteFields([fieldName], of: className)
            schemaChanges += 1
        }
        if field == nil || field?.type != type {
            try await changeSchema(of: className, JSONObject(["fields": Self.fieldJSON(final, of: className)]), "adding \(name) as \(type)") {
                $0?.field(named: fieldName)?.type == type
            }
            schemaChanges += 1
        }
        let copied = try await copyValues(of: className, from: temporary, to: final) { $0 }
        try await deleteFields([temporary.name], of: className)
        let loss = dropped > 0 ? "; \(Noun.counted(dropped, "unconvertible value")) unset" : ""
        return OperationResult(
            "changed \(name) to \(type) (\(Noun.counted(copied.written, "value")) converted\(loss))",
            schemaChanges: schemaChanges + 1, objectsWritten: copied.written, objectsUnchanged: copied.unchanged)
    }

    /// `pages__porter_String`, `genre__porter_Pointer_Genre`: a name a later run finds again.
    static func temporaryName(_ field: String, _ type: FieldType) -> String {
        "\(field)__porter_\(type.name)" + (type.targetClass.map { "_\($0)" } ?? "")
    }

    private func addTemporary(_ temporary: SchemaField, to className: String) async throws(PorterError) {
        try await changeSchema(of: className, JSONObject(["fields": Self.fieldJSON(temporary, of: className)]), "adding \(className).\(temporary.name)") {
            $0?.field(named: temporary.name) != nil
        }
    }

    /// The values of `field` that do not convert to `type`: how many, and the first few.
    struct Unconvertible: CustomStringConvertible {
        static let shown = 5
        var count = 0
        var examples: [String] = []
        var isEmpty: Bool { count == 0 }
        var description: String {
            let more = count > examples.count ? " and \(count - examples.count) more" : ""
            return "\(Noun.counted(count, "value")) \(count == 1 ? "does" : "do") not convert: \(examples.joined(separator: ", "))\(more)"
        }
    }

    func unconvertibleValues(of field: SchemaField, in className: String, to type: FieldType) async throws(PorterError) -> Unconvertible {
        var found = Unconvertible()
        try await pager.forEachPage(of: className, where: JSONObject([field.name: .object(JSONObject(["$exists": .bool(true)]))]), keys: [field.name]) { page in
            for object in page {
                guard let json = Self.present(object[field.name]) else { continue }
                if let value = try? ParseValue(wire: json, as: field.type), ValueConversion.convert(value, to: type) != nil { continue }
                found.count += 1
                if found.examples.count < Unconvertible.shown {
                    found.examples.append("\(className) \(object["objectId"]?.stringValue ?? "?") \(field.name) = \(json.serialized())")
                }
            }
        }
        return found
    }
}
