import ParseModel
import ParseRules
import PorterPipeline

/// The operations on classes, fields, indexes and permissions: each compares the wanted state
/// with the live schema and sends only the difference.
extension OperationRunner {
    /// Creates the class when missing. An existing class gets the fields and indexes it lacks
    /// and the permissions when they differ; a field of another type or an index of the same
    /// name on other keys is an error caused ``PorterError/Cause/invalidData``, before anything is written. Parse's own indexes (`_id_`,
    /// ``SystemClasses/isProtectedIndex(_:of:)``) are left out: re-sending them is error 102.
    /// Permissions compare as Parse means them (``ClassLevelPermissions``).
    func createClass(_ wanted: ClassSchema) async throws(PorterError) -> OperationResult {
        let className = wanted.className
        let indexes = JSONObject(wanted.ownIndexes)
        guard let current = try await api.schema(of: className) else {
            var body = JSONObject(["className": .string(className), "fields": wanted.fieldsJSON])
            if let permissions = wanted.classLevelPermissions { body["classLevelPermissions"] = permissions }
            if !indexes.isEmpty { body["indexes"] = .object(indexes) }
            try await changeSchema("POST", of: className, body, "creating class \(className)") { schema in
                wanted.fields.allSatisfy { schema?.field(named: $0.name)?.type == $0.type }
            }
            return OperationResult(
                "created class \(className) (\(Noun.counted(wanted.fields.count, "field")), \(Noun.counted(indexes.members.count, "index")))",
                schemaChanges: 1)
        }
        var conflicts: [String] = []
        var fields = JSONObject()
        for field in wanted.fields {
            guard let existing = current.field(named: field.name) else {
                fields.members += Self.fieldJSON(field, of: className).objectMembers
                continue
            }
            if existing.type != field.type { conflicts.append("\(className).\(field.name) is \(existing.type), not \(field.type)") }
        }
        var newIndexes = JSONObject()
        for index in indexes {
            guard let keys = current.indexes?[index.key] else {
                newIndexes.members.append(index)
                continue
            }
            if keys != index.value { conflicts.append("index \(className).\(index.key) is on \(keys.serialized()), not \(index.value.serialized())") }
        }
        guard conflicts.isEmpty else {
            throw PorterError(.invalidData, "class \(className) exists and differs: \(conflicts.joined(separator: "; "))")
        }
        var body = JSONObject()
        var done: [String] = []
        if !fields.isEmpty {
            body["fields"] = .object(fields)
            done.append("added fields \(fields.keys.joined(separator: ", "))")
        }
        if !newIndexes.isEmpty {
            body["indexes"] = .object(newIndexes)
            done.append("added indexes \(newIndexes.keys.joined(separator: ", "))")
        }
        if let permissions = wanted.classLevelPermissions, ClassLevelPermissions(permissions) != ClassLevelPermissions(current.classLevelPermissions) {
            body["classLevelPermissions"] = permissions
            done.append("set its permissions")
        }
        guard !body.isEmpty else { return OperationResult("class \(className) exists as declared") }
        try await changeSchema(of: className, body, "completing class \(className)") { schema in
            fields.keys.allSatisfy { schema?.field(named: $0) != nil } && newIndexes.keys.allSatisfy { schema?.indexes?[$0] != nil }
        }
        return OperationResult("class \(className) existed: \(done.joined(separator: "; "))", schemaChanges: 1)
    }

    /// Adds the field; the same field is left alone (its `required` and `defaultValue` are
    /// updated when they differ); a field of that name with another type is an error caused ``PorterError/Cause/invalidData``.
    func addField(_ field: SchemaField, to className: String) async throws(PorterError) -> OperationResult {
        let current = try await existingClass(className)
        let name = "\(className).\(field.name)"
        if let existing = current.field(named: field.name) {
            guard existing.type == field.type else { throw PorterError(.invalidData, "\(name) exists as \(existing.type), not \(field.type)") }
            if existing == field { return OperationResult("\(name) exists") }
        }
        try await changeSchema(of: className, JSONObject(["fields": Self.fieldJSON(field, of: className)]), "adding field \(name)") {
            $0?.field(named: field.name) == field
        }
        return OperationResult(current.field(named: field.name) == nil ? "added field \(name)" : "updated the options of \(name)", schemaChanges: 1)
    }

    /// Deletes the field and its values (a Relation: its links); a missing field is left alone.
    func deleteField(_ fieldName: String, of className: String) async throws(PorterError) -> OperationResult {
        guard try await existingClass(className).field(named: fieldName) != nil else {
            return OperationResult("\(className).\(fieldName) does not exist")
        }
        try await deleteFields([fieldName], of: className)
        return OperationResult("deleted field \(className).\(fieldName)", schemaChanges: 1)
    }

    /// Deletes fields that exist (also what `renameField` and `changeType` end with).
    func deleteFields(_ names: [String], of className: String) async throws(PorterError) {
        let body = JSONObject(names.map { JSONMember($0, .object(JSONObject(["__op": .string("Delete")]))) })
        try await changeSchema(of: className, JSONObject(["fields": .object(body)]), "deleting \(className).\(names.joined(separator: ", "))") { schema in
            names.allSatisfy { schema?.field(named: $0) == nil }
        }
    }

    /// Adds the index; one of that name on the same keys is left alone, on other keys it is an error caused ``PorterError/Cause/invalidData``.
    func addIndex(_ name: String, keys: JSONValue, to className: String) async throws(PorterError) -> OperationResult {
        let current = try await existingClass(className)
        if let existing = current.indexes?[name] {
            guard existing == keys else {
                throw PorterError(.invalidData, "index \(className).\(name) exists on \(existing.serialized()), not \(keys.serialized())")
            }
            return OperationResult("index \(className).\(name) exists")
        }
        try await changeSchema(of: className, JSONObject(["indexes": .object(JSONObject([name: keys]))]), "adding index \(className).\(name)") {
            $0?.indexes?[name] == keys
        }
        return OperationResult("added index \(className).\(name)", schemaChanges: 1)
    }

    /// Drops the index; a missing one is left alone.
    func dropIndex(_ name: String, of className: String) async throws(PorterError) -> OperationResult {
        guard try await existingClass(className).indexes?[name] != nil else { return OperationResult("index \(className).\(name) does not exist") }
        try await changeSchema(
            of: className, JSONObject(["indexes": .object(JSONObject([name: .object(JSONObject(["__op": .string("Delete")]))]))]),
            "dropping index \(className).\(name)"
        ) { $0?.indexes?[name] == nil }
        return OperationResult("dropped index \(className).\(name)", schemaChanges: 1)
    }

    /// Sets the class-level permissions unless the class has them already.
    func setPermissions(_ permissions: JSONValue, of className: String) async throws(PorterError) -> OperationResult {
        guard ClassLevelPermissions(permissions) != ClassLevelPermissions(try await existingClass(className).classLevelPermissions) else {
            return OperationResult("\(className) has these permissions")
        }
        try await changeSchema(of: className, JSONObject(["classLevelPermissions": permissions]), "setting the permissions of \(className)") {
            ClassLevelPermissions(permissions) == ClassLevelPermissions($0?.classLevelPermissions)
        }
        return OperationResult("set the permissions of \(className)", schemaChanges: 1)
    }
}
