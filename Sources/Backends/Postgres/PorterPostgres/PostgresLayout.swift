import ParseModel

/// Parse Server's PostgreSQL layout (`src/Adapters/Storage/Postgres/PostgresStorageAdapter.js`):
/// a `_SCHEMA` table of each class's schema in the adapter's form, one table per class with a
/// column per field, `_Join:<field>:<Class>` tables for relations, and the unique indexes Parse
/// Server makes on `_User` and `_Role`.
package enum PostgresLayout {
    /// `_ensureSchemaCollectionExists`: the table of class schemas.
    static let schemaTableSQL =
        #"CREATE TABLE IF NOT EXISTS "_SCHEMA" ("className" varChar(120), "schema" jsonb, "isParseClass" bool, PRIMARY KEY ("className"))"#

    /// Columns every class has besides its fields: ACLs become `_rperm`/`_wperm` arrays
    /// (`DatabaseController.js` `transformObjectACL`), `ACL` itself has no column.
    static let defaultColumns = ["objectId", "createdAt", "updatedAt", "_rperm", "_wperm"]

    /// `_User`'s bcrypt hash column: `SchemaController.js` `convertSchemaToAdapterSchema`
    /// replaces the `password` field by it.
    static let passwordHashColumn = "_hashed_password"

    /// `parseTypeToPostgresType`: the column type of a field; `nil` for a relation (a join
    /// table) and the ACL (`_rperm`/`_wperm`). Parse schemas give no Array contents type, so
    /// arrays are `jsonb`; only `_rperm`/`_wperm` are `text[]`.
    static func columnType(_ type: FieldType) -> String? {
        switch type {
        case .string, .file, .pointer: "text"
        case .date: "timestamp with time zone"
        case .object, .bytes, .array: "jsonb"
        case .boolean: "boolean"
        case .number: "double precision"
        case .geoPoint: "point"
        case .polygon: "polygon"
        case .relation, .acl: nil
        }
    }

    /// `joinTablesForSchema`: the join table of relation `field` of `owner`.
    static func joinTable(owner: String, field: String) -> String { "_Join:\(field):\(owner)" }

    /// A class table's primary key.
    static let objectKey = ["objectId"]
    /// A join table's primary key (`createTable`).
    static let joinKey = ["relatedId", "owningId"]

    /// `createTable`: a relation's join table; without its primary key when `keyed` is false
    /// (``addPrimaryKeySQL(_:_:)`` adds it once the rows are in).
    static func createJoinTableSQL(_ table: String, keyed: Bool = true) -> String {
        #"CREATE TABLE IF NOT EXISTS \#(quoted(table)) ("relatedId" varChar(120), "owningId" varChar(120)\#(keyed ? #", PRIMARY KEY("relatedId", "owningId")"# : ""))"#
    }

    /// The primary key of a table made without it: the same constraint (`<table>_pkey`), built
    /// from the rows in one sort instead of one B-tree insert per row.
    static func addPrimaryKeySQL(_ table: String, _ columns: [String]) -> String {
        "ALTER TABLE \(quoted(table)) ADD PRIMARY KEY (\(columns.map(quoted).joined(separator: ", ")))"
    }

    /// The fields a class's table and `_SCHEMA` entry have: Parse Server's own fields of a
    /// system class (`SchemaController.js` `defaultColumns`), then the schema's, in order.
    static func fields(of schema: ClassSchema) -> [SchemaField] {
        var fields = SystemClasses.defaultFields(of: schema.className)
        for field in schema.fields where !fields.contains(where: { $0.name == field.name }) { fields.append(field) }
        return fields.filter { isStored($0, of: schema.className) }
    }

    /// Whether a field has a place of its own: a column or a join table. An ACL field is the
    /// `_rperm`/`_wperm` columns, `_User`'s password is only ever its hash.
    static func isStored(_ field: SchemaField, of className: String) -> Bool {
        field.type != .acl && !(className == "_User" && field.name == "password")
    }

    /// `(name, type)` of every column of the class's table, as `createTable` makes it:
    /// `objectId` (the primary key), the timestamps, the ACL arrays, the fields, and for
    /// `_User` the hash and the columns Parse Server keeps for e-mail and lock-out bookkeeping.
    static func columns(of schema: ClassSchema) -> [(name: String, type: String)] {
        var columns: [(String, String)] = [
            ("objectId", "text"), ("createdAt", "timestamp with time zone"),
            ("updatedAt", "timestamp with time zone"), ("_rperm", "text[]"), ("_wperm", "text[]"),
        ]
        for field in fields(of: schema) { if let type = columnType(field.type) { columns.append((field.name, type)) } }
        if schema.className == "_User" {
            columns += [
                (passwordHashColumn, "text"), ("_email_verify_token_expires_at", "timestamp with time zone"),
                ("_email_verify_token", "text"), ("_account_lockout_expires_at", "timestamp with time zone"),
                ("_failed_login_count", "double precision"), ("_perishable_token", "text"),
                ("_perishable_token_expires_at", "timestamp with time zone"), ("_password_changed_at", "timestamp with time zone"),
                ("_password_history", "jsonb"),
            ]
        }
        return columns
    }

    /// `createTable`: the class's table; without its primary key when `keyed` is false.
    static func createTableSQL(_ schema: ClassSchema, keyed: Bool = true) -> String {
        let columns = columns(of: schema).map { "\(quoted($0.name)) \($0.type)" }
        return "CREATE TABLE \(quoted(schema.className)) (\(columns.joined(separator: ", "))\(keyed ? ", PRIMARY KEY (\"objectId\")" : ""))"
    }

    /// The indexes `DatabaseController.js` `performInitialization` makes (through the adapter's
    /// `ensureUniqueness` and `ensureIndex`) on a class it owns: unique usernames, e-mails and role names,
    /// and case-insensitive lookups of usernames and e-mails.
    static func systemIndexesSQL(_ className: String) -> [String] {
        func unique(_ field: String) -> String {
            "CREATE UNIQUE INDEX IF NOT EXISTS \(quoted("\(className)_unique_\(field)")) ON \(quoted(className)) (\(quoted(field)))"
        }
        func caseInsensitive(_ field: String) -> String {
            "CREATE INDEX IF NOT EXISTS \(quoted("case_insensitive_\(field)")) ON \(quoted(className)) (lower(\(quoted(field))) varchar_pattern_ops)"
        }
        switch className {
        case "_User": return [unique("username"), caseInsensitive("username"), caseInsensitive("email"), unique("email")]
        case "_Role": return [unique("name")]
        default: return []
        }
    }

    /// The `_SCHEMA.schema` JSON of a class, in the adapter's form (`convertSchemaToAdapterSchema`,
    /// then `createTable`, which gives `_rperm`/`_wperm` their String contents): default fields,
    /// no `ACL`, `_hashed_password` instead of `_User`'s `password`; class-level permissions and
    /// indexes only when the schema gives them (Parse Server reads none as its defaults).
    static func schemaJSON(_ schema: ClassSchema) -> JSONValue {
        func type(_ name: String) -> JSONValue { .object(JSONObject(["type": .string(name)])) }
        let stringArray = JSONValue.object(JSONObject(["type": .string("Array"), "contents": type("String")]))
        var fields = JSONObject([JSONMember("objectId", type("String")), JSONMember("createdAt", type("Date")), JSONMember("updatedAt", type("Date"))])
        for field in Self.fields(of: schema) { fields[field.name] = field.specJSON }
        fields["_rperm"] = stringArray
        fields["_wperm"] = stringArray
        if schema.className == "_User" { fields[passwordHashColumn] = type("String") }
        var object = JSONObject(["className": .string(schema.className), "fields": .object(fields)])
        if let permissions = schema.classLevelPermissions { object["classLevelPermissions"] = permissions }
        if let indexes = schema.indexes, indexes != .object(JSONObject()) { object["indexes"] = indexes }
        return .object(object)
    }

    /// A class's schema from its `_SCHEMA` JSON (`toParseSchema`): the adapter's own fields
    /// (`_rperm`, `_wperm`, `_hashed_password`, …: every name starting with `_`) are dropped.
    static func classSchema(_ json: JSONValue) throws(ParseValueError) -> ClassSchema {
        var schema = try ClassSchema(schemaJSON: json)
        schema.fields.removeAll { $0.name.hasPrefix("_") }
        return schema
    }
}
