import ParseModel
import PorterCore

/// PostgreSQL keeps at most 63 bytes of a name (`NAMEDATALEN` - 1) and cuts a longer one with
/// only a NOTICE: a class, a field's column, a relation's `_Join:<field>:<Class>` table or an
/// index named longer would be stored under a cut name, and two fields alike in their first 63
/// bytes would share one column (Parse Server's `addFieldIfNotExists` adds a column `IF NOT
/// EXISTS` and takes a duplicate column, 42701, as one already there). Such names are refused
/// before anything is written.
package enum PostgresIdentifiers {
    /// The longest name PostgreSQL keeps, in bytes of UTF-8.
    package static let maxBytes = 63

    /// The names too long that the classes would give the database: everything of a class
    /// `existing` lacks; of one it has, the fields it lacks (an import adds no indexes to it).
    package static func longNames(in schemas: [ClassSchema], existing: [ClassSchema] = []) -> [RefusedName] {
        schemas.flatMap { schema -> [RefusedName] in
            guard let current = existing.first(where: { $0.className == schema.className }) else { return longNames(in: schema) }
            return PostgresLayout.fields(of: schema).filter { current.field(named: $0.name) == nil }
                .compactMap { longName(of: $0, in: schema.className) }
        }
    }

    /// The names too long of a new class: its table, its columns and join tables, its indexes.
    package static func longNames(in schema: ClassSchema) -> [RefusedName] {
        var names: [RefusedName] = []
        if let refused = refusal(schema.className, "table", "give the class a shorter name") {
            names.append(RefusedName(className: schema.className, reason: refused))
        }
        names += PostgresLayout.fields(of: schema).compactMap { longName(of: $0, in: schema.className) }
        if case .object(let indexes)? = schema.indexes {
            names += indexes.keys.compactMap { longName(ofIndex: $0, in: schema.className) }
        }
        return names
    }

    /// The field's column (or a Relation's join table) when its name is too long.
    package static func longName(of field: SchemaField, in className: String) -> RefusedName? {
        let refused =
            field.type.isRelation
            ? refusal(PostgresLayout.joinTable(owner: className, field: field.name), "join table", "give the field or the class a shorter name")
            : PostgresLayout.columnType(field.type) == nil ? nil : refusal(field.name, "column", "give the field a shorter name")
        return refused.map { RefusedName(className: className, field: field.name, reason: $0) }
    }

    /// The index when its name is too long.
    package static func longName(ofIndex name: String, in className: String) -> RefusedName? {
        refusal(name, "index", "give the index a shorter name").map { RefusedName(className: className, index: name, reason: $0) }
    }

    /// Refuses the first name too long among `names`, before a change of the database's classes
    /// writes anything; the Parse error under it is the one Parse gives a bad class name (103),
    /// field name (105) or index (102).
    static func check(_ names: [RefusedName]) throws(PorterError) {
        guard let name = names.first else { return }
        let code: ParseErrorCode = name.field != nil ? .invalidKeyName : name.index != nil ? .invalidQuery : .invalidClassName
        throw PorterError(.invalidData, name.description, underlying: ParseError(code, name.description))
    }

    /// Why `identifier`, the name of a `kind`, cannot be used; `nil` when PostgreSQL keeps it whole.
    private static func refusal(_ identifier: String, _ kind: String, _ remedy: String) -> String? {
        let bytes = identifier.utf8.count
        guard bytes > maxBytes else { return nil }
        return "the \(kind) name \"\(identifier)\" is \(bytes) bytes, longer than the \(maxBytes) bytes PostgreSQL keeps of a name "
            + "(it would cut the rest, and names alike in their first \(maxBytes) bytes would become one): \(remedy)"
    }
}
