import ParseModel
import PorterCore

/// The classes of a Parse Server's PostgreSQL database and their changes, as
/// `PostgresStorageAdapter.js` makes them: `_SCHEMA` rows, class tables, `_Join` tables and
/// indexes. Shared by the import (``PostgresTarget``) and the `/schemas` routes of a migration
/// target; every change runs in the caller's transaction.
package struct PostgresSchemas {
    /// A table a change created, and the columns of its primary key.
    package struct CreatedTable {
        package let name: String
        package let key: [String]
    }

    package let connection: PostgresConnection

    package init(connection: PostgresConnection) { self.connection = connection }

    func tableExists(_ name: String) throws(PorterError) -> Bool {
        try connection.execute("SELECT to_regclass($1) IS NOT NULL", [quoted(name)]).first?.first == "t"
    }

    /// The `_SCHEMA` JSON of every class, in the adapter's form, by class name; none when there
    /// is no `_SCHEMA` table yet.
    private func storedSchemas(_ className: String? = nil) throws(PorterError) -> [(className: String, json: JSONValue)] {
        guard try tableExists("_SCHEMA") else { return [] }
        let rows = try connection.execute(
            #"SELECT "className", "schema"::text FROM "_SCHEMA" WHERE $1::text IS NULL OR "className" = $1 ORDER BY "className""#,
            [className])
        return try rows.map { (row) throws(PorterError) in
            guard let text = row[1], let json = try? JSONParser.parse(text) else {
                throw PorterError(.target, "\(connection.shownURL): the _SCHEMA row of \(row[0] ?? "?") is not a class schema Parse Server wrote")
            }
            return (row[0] ?? "", json)
        }
    }

    private func classSchema(_ stored: (className: String, json: JSONValue)) throws(PorterError) -> ClassSchema {
        do { return try PostgresLayout.classSchema(stored.json) } catch {
            throw PorterError(
                .target, "\(connection.shownURL): the _SCHEMA row of \(stored.className) is not a class schema Parse Server wrote: \(error.message)")
        }
    }

    /// The classes of `_SCHEMA`, without the adapter's own fields; none when there is no such table yet.
    package func all() throws(PorterError) -> [ClassSchema] {
        let stored = try storedSchemas()
        let columns = try indexColumns(of: nil)
        return try stored.map { (stored) throws(PorterError) in Self.inIndexOrder(try classSchema(stored), columns[stored.className] ?? [:]) }
    }

    /// One class from its `_SCHEMA` row (what ``all()`` gives of it); `nil` when there is none.
    package func schema(_ className: String) throws(PorterError) -> ClassSchema? {
        guard let stored = try storedSchemas(className).first else { return nil }
        return Self.inIndexOrder(try classSchema(stored), try indexColumns(of: className)[className] ?? [:])
    }

    /// The columns of the indexes of the class tables, in their order, by table and index: what
    /// the index is made of. `_SCHEMA` keeps `indexes` as `jsonb`, which orders an object's keys
    /// its own way (shorter first), so a compound index's key order is only in the index itself.
    private func indexColumns(of className: String?) throws(PorterError) -> [String: [String: [String]]] {
        let rows = try connection.execute(
            """
            SELECT t.relname, i.relname, a.attname FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
            CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
            WHERE t.relnamespace = current_schema()::regnamespace AND ($1::text IS NULL OR t.relname = $1)
            ORDER BY t.relname, i.relname, k.position
            """, [className])
        var columns: [String: [String: [String]]] = [:]
        for row in rows {
            guard let table = row[0], let index = row[1], let column = row[2] else { continue }
            columns[table, default: [:]][index, default: []].append(column)
        }
        return columns
    }

    /// The schema with each index's keys in the order of the PostgreSQL index of that name, when
    /// it has exactly those columns (a Pointer key `_p_<field>` is the column `<field>`).
    static func inIndexOrder(_ schema: ClassSchema, _ columns: [String: [String]]) -> ClassSchema {
        guard case .object(let indexes)? = schema.indexes, !columns.isEmpty else { return schema }
        var ordered = JSONObject()
        for index in indexes {
            guard case .object(let keys) = index.value, let real = columns[index.key], real.count == keys.members.count else {
                ordered.members.append(index)
                continue
            }
            let byColumn = Dictionary(
                keys.members.map { ($0.key.hasPrefix("_p_") ? String($0.key.dropFirst(3)) : $0.key, $0) }, uniquingKeysWith: { first, _ in first })
            let inOrder = real.compactMap { byColumn[$0] }
            ordered.members.append(inOrder.count == keys.members.count ? JSONMember(index.key, .object(JSONObject(inOrder))) : index)
        }
        var reordered = schema
        reordered.indexes = .object(ordered)
        return reordered
    }

    /// `createClass`: the table (`createTable`), its join tables, Parse Server's own indexes, the
    /// `_SCHEMA` row, and (`setIndexesWithSchemaFormat`) the class's indexes. A table that is
    /// there without a `_SCHEMA` row keeps its rows and gains the missing columns. With `keyed`
    /// false the new tables come without their primary key and the schema's own indexes (an
    /// import adds both after the rows). A name longer than PostgreSQL keeps is refused before
    /// anything is written (``PostgresIdentifiers``).
    @discardableResult
    package func createClass(_ schema: ClassSchema, keyed: Bool) throws(PorterError) -> [CreatedTable] {
        try PostgresIdentifiers.check(PostgresIdentifiers.longNames(in: schema))
        try connection.execute(PostgresLayout.schemaTableSQL)
        var created: [CreatedTable] = []
        if try tableExists(schema.className) {
            for column in PostgresLayout.columns(of: schema) {
                try connection.execute("ALTER TABLE \(quoted(schema.className)) ADD COLUMN IF NOT EXISTS \(quoted(column.name)) \(column.type)")
            }
        } else {
            try connection.execute(PostgresLayout.createTableSQL(schema, keyed: keyed))
            created.append(CreatedTable(name: schema.className, key: PostgresLayout.objectKey))
        }
        for field in PostgresLayout.fields(of: schema) where field.type.isRelation {
            created += try createJoinTable(owner: schema.className, field: field.name, keyed: keyed)
        }
        for sql in PostgresLayout.systemIndexesSQL(schema.className) { try connection.execute(sql) }
        var recorded = schema
        if keyed, case .object(let indexes)? = schema.indexes, !indexes.isEmpty {
            try createIndexes(indexes.members, on: schema.className)
            recorded.indexes = .object(Self.withIdIndex(indexes))
        }
        try connection.execute(
            #"INSERT INTO "_SCHEMA" ("className", "schema", "isParseClass") VALUES ($1, $2::jsonb, true)"#,
            [schema.className, PostgresLayout.schemaJSON(recorded).serialized()])
        return created
    }

    /// `addFieldIfNotExists`: a column (or a relation's join table) and the field in `_SCHEMA`;
    /// a name longer than PostgreSQL keeps is refused first (``PostgresIdentifiers``).
    @discardableResult
    package func addField(_ field: SchemaField, to className: String, keyed: Bool) throws(PorterError) -> [CreatedTable] {
        try PostgresIdentifiers.check([PostgresIdentifiers.longName(of: field, in: className)].compactMap { $0 })
        var created: [CreatedTable] = []
        if let type = PostgresLayout.columnType(field.type) {
            try connection.execute("ALTER TABLE \(quoted(className)) ADD COLUMN IF NOT EXISTS \(quoted(field.name)) \(type)")
        } else if field.type.isRelation {
            created = try createJoinTable(owner: className, field: field.name, keyed: keyed)
        }
        try connection.execute(
            #"UPDATE "_SCHEMA" SET "schema" = jsonb_set("schema", ARRAY['fields', $2], $3::jsonb) WHERE "className" = $1"#,
            [className, field.name, field.specJSON.serialized()])
        return created
    }

    private func createJoinTable(owner: String, field: String, keyed: Bool) throws(PorterError) -> [CreatedTable] {
        let table = PostgresLayout.joinTable(owner: owner, field: field)
        guard try !tableExists(table) else { return [] }
        try connection.execute(PostgresLayout.createJoinTableSQL(table, keyed: keyed))
        return [CreatedTable(name: table, key: PostgresLayout.joinKey)]
    }

    /// `deleteFields`: the field leaves `_SCHEMA` and its column is dropped; a relation's join
    /// table is dropped (`SchemaController.js` `deleteFields` drops `_Join:<field>:<Class>`).
    package func dropField(_ field: SchemaField, of className: String) throws(PorterError) {
        if field.type.isRelation {
            try connection.execute("DROP TABLE IF EXISTS \(quoted(PostgresLayout.joinTable(owner: className, field: field.name)))")
        } else {
            try connection.execute("ALTER TABLE \(quoted(className)) DROP COLUMN IF EXISTS \(quoted(field.name))")
        }
        try connection.execute(#"UPDATE "_SCHEMA" SET "schema" = "schema" #- ARRAY['fields', $2] WHERE "className" = $1"#, [className, field.name])
    }

    /// Saves a changed class into its `_SCHEMA` row, keeping the adapter's own members: field
    /// options (`updateFieldOptions`), class-level permissions (`setClassLevelPermissions`) and
    /// indexes (`setIndexesWithSchemaFormat`: new ones created, `_id_` recorded beside the first
    /// as Parse Server records it; removed ones dropped).
    package func save(_ schema: ClassSchema) throws(PorterError) {
        guard case .object(var stored)? = try storedSchemas(schema.className).first?.json else {
            throw PorterError(.target, "\(connection.shownURL): class \(schema.className) has no _SCHEMA row")
        }
        var fields = Self.object(stored["fields"])
        for field in schema.fields where PostgresLayout.isStored(field, of: schema.className) && fields[field.name] != nil {
            fields[field.name] = field.specJSON
        }
        stored["fields"] = .object(fields)
        if let permissions = schema.classLevelPermissions { stored["classLevelPermissions"] = permissions }
        let old = Self.object(stored["indexes"])
        var new = Self.object(schema.indexes)
        for name in old.keys where new[name] == nil { try dropIndex(name, of: schema.className) }
        let added = new.members.filter { old[$0.key] == nil && $0.key != "_id_" }
        try createIndexes(added, on: schema.className)
        if old.isEmpty, !added.isEmpty { new = Self.withIdIndex(new) }
        if new != old { stored["indexes"] = .object(new) }
        try connection.execute(#"UPDATE "_SCHEMA" SET "schema" = $2::jsonb WHERE "className" = $1"#, [schema.className, JSONValue.object(stored).serialized()])
    }

    /// The members of a JSON object; none for anything else.
    private static func object(_ value: JSONValue?) -> JSONObject {
        if case .object(let object)? = value { return object }
        return JSONObject()
    }

    /// `{"_id_":{"_id":1}}` before `indexes`: what `setIndexesWithSchemaFormat` records when a
    /// class gets its first index.
    private static func withIdIndex(_ indexes: JSONObject) -> JSONObject {
        guard indexes["_id_"] == nil else { return indexes }
        return JSONObject([JSONMember("_id_", .object(JSONObject(["_id": .integer(1)])))] + indexes.members)
    }

    /// `createIndexes`: `CREATE INDEX IF NOT EXISTS "<name>" ON "<Class>" ("<key>", …)`, named as
    /// the index is named in `_SCHEMA`; a Pointer key `_p_<field>` is the column `<field>`.
    /// PostgreSQL index names are unique in the whole database schema, where Parse's are per
    /// class: a name another table's index has is refused (102) instead of silently skipped, as
    /// is one longer than PostgreSQL keeps (``PostgresIdentifiers``).
    func createIndexes(_ indexes: [JSONMember], on className: String) throws(PorterError) {
        try PostgresIdentifiers.check(indexes.compactMap { PostgresIdentifiers.longName(ofIndex: $0.key, in: className) })
        for index in indexes {
            let owner = try connection.execute("SELECT tablename FROM pg_indexes WHERE indexname = $1", [index.key]).first?.first ?? nil
            if let owner, owner != className {
                throw PorterError(
                    .invalidData,
                    "Index \(index.key) cannot be added to \(className): the index of \(owner) has this name, and PostgreSQL index names are unique in the database",
                    underlying: ParseError(.invalidQuery, "Index \(index.key) exists on \(owner), cannot add it to \(className)."))
            }
            let columns = Self.object(index.value).members.map { $0.key.hasPrefix("_p_") ? String($0.key.dropFirst(3)) : $0.key }
            try connection.execute("CREATE INDEX IF NOT EXISTS \(quoted(index.key)) ON \(quoted(className)) (\(columns.map(quoted).joined(separator: ", ")))")
        }
    }

    /// `dropIndexes`: the index of that name, when it is this table's (`_id_` has none).
    private func dropIndex(_ name: String, of className: String) throws(PorterError) {
        guard try !connection.execute("SELECT 1 FROM pg_indexes WHERE indexname = $1 AND tablename = $2", [name, className]).isEmpty else { return }
        try connection.execute("DROP INDEX \(quoted(name))")
    }

    /// The rows of the class's table; 0 when it has no table.
    package func objectCount(_ className: String) throws(PorterError) -> Int {
        guard try tableExists(className) else { return 0 }
        return try connection.execute("SELECT count(*) FROM \(quoted(className))").first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
    }

    /// `deleteClass`: the table, its join tables (`DatabaseController.js` `deleteSchema`) and its `_SCHEMA` row.
    package func dropClass(_ schema: ClassSchema) throws(PorterError) {
        for field in schema.fields where field.type.isRelation {
            try connection.execute("DROP TABLE IF EXISTS \(quoted(PostgresLayout.joinTable(owner: schema.className, field: field.name)))")
        }
        try connection.execute("DROP TABLE IF EXISTS \(quoted(schema.className))")
        try connection.execute(#"DELETE FROM "_SCHEMA" WHERE "className" = $1"#, [schema.className])
    }
}
