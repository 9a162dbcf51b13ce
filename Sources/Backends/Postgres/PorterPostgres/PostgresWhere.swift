import ParseModel
import PorterCore

/// A Parse `where` object as a PostgreSQL condition on a class's table, its values bound as
/// parameters: what `export --where` and a repeated pull read with. The part of the query
/// language a read needs, with Parse Server's meaning (`PostgresStorageAdapter.js`
/// `buildWhereClause`): equality on a key (a Date or Pointer in REST form, `null` for a
/// missing value), `$eq`, `$ne`, `$lt`, `$lte`, `$gt`, `$gte`, `$in`, `$nin`, `$exists`, and
/// `$and`/`$or` of such queries, on `objectId`, `createdAt`, `updatedAt` and fields stored in a
/// column of String, Number, Boolean, Date, Pointer or File type. A Relation field takes a
/// Pointer, `$in` or `$nin` of Pointers (the owners linking to them, `DatabaseController.js`
/// `reduceInRelation`), and `$relatedTo` (the objects one owner links to, `reduceRelationKeys`)
/// finds through its `_Join` table. Anything else is refused by name. A value of another type
/// than the field's equals no stored value, as on a mirror.
struct PostgresWhere {
    /// The condition (`TRUE` for an empty query).
    private(set) var sql = "TRUE"
    /// The values of `$1`, `$2`, … in order; the first is numbered `firstParameter`.
    private(set) var parameters: [String?] = []
    private let schema: ClassSchema
    private let firstParameter: Int

    /// Compiles `query` against the class's schema; `$firstParameter` is the first placeholder it uses.
    init(_ query: JSONObject?, schema: ClassSchema, firstParameter: Int = 1) throws(PorterError) {
        self.schema = schema
        self.firstParameter = firstParameter
        if let query { sql = try compile(query) }
    }

    private mutating func compile(_ query: JSONObject) throws(PorterError) -> String {
        var parts: [String] = []
        for member in query {
            let (key, value) = (member.key, member.value)
            switch key {
            case "$and", "$or":
                guard case .array(let items) = value, !items.isEmpty else { throw Self.refusal("\(key) takes a non-empty array of queries") }
                var clauses: [String] = []
                for item in items {
                    guard case .object(let subquery) = item else { throw Self.refusal("\(key) takes a non-empty array of queries") }
                    clauses.append(try compile(subquery))
                }
                parts.append("(" + clauses.joined(separator: key == "$and" ? " AND " : " OR ") + ")")
            case "$relatedTo":
                parts.append(try relatedTo(value))
            default:
                parts.append(try condition(value, on: key))
            }
        }
        return parts.isEmpty ? "TRUE" : parts.joined(separator: " AND ")
    }

    /// The condition `value` sets on `key`: an equality, or an object of `$` operators.
    private mutating func condition(_ value: JSONValue, on key: String) throws(PorterError) -> String {
        if case .relation(let target)? = schema.field(named: key)?.type { return try linking(value, on: key, to: target) }
        let column = try self.column(key)
        guard case .object(let constraints) = value, let first = constraints.keys.first, first.hasPrefix("$") else {
            return try compare(column, "=", value)
        }
        var parts: [String] = []
        for member in constraints {
            let (name, operand) = (member.key, member.value)
            switch name {
            case "$eq": parts.append(try compare(column, "=", operand))
            case "$ne": parts.append("NOT (\(try compare(column, "=", operand)))")
            case "$lt", "$lte", "$gt", "$gte":
                let comparison = ["$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="][name]!
                guard operand != .null else { throw Self.refusal("\(key): \(name) needs a value, not null") }
                parts.append(try compare(column, comparison, operand))
            case "$in", "$nin":
                guard case .array(let items) = operand else { throw Self.refusal("\(key): \(name) takes an array") }
                var matches: [String] = []
                for item in items { matches.append(try compare(column, "=", item)) }
                let any = matches.isEmpty ? "FALSE" : "(" + matches.joined(separator: " OR ") + ")"
                parts.append(name == "$in" ? any : "NOT \(any)")
            case "$exists":
                guard case .bool(let exists) = operand else { throw Self.refusal("\(key): $exists takes true or false") }
                parts.append("\(column.sql) IS \(exists ? "NOT " : "")NULL")
            default:
                throw Self.refusal(
                    "\(key): \(name) is not supported when reading a PostgreSQL database (supported: $eq, $ne, $lt, $lte, $gt, $gte, $in, $nin, $exists, $and, $or, $relatedTo)"
                )
            }
        }
        return "(" + parts.joined(separator: " AND ") + ")"
    }

    /// `{"object": <Pointer to the owner>, "key": <its Relation field>}`: the objects that owner
    /// links to in `_Join:<key>:<owner's class>`.
    private mutating func relatedTo(_ value: JSONValue) throws(PorterError) -> String {
        guard case .string(let field)? = value["key"], let owner = value["object"],
            case .pointer(let pointer)? = try? ParseValue(wire: owner)
        else {
            throw Self.refusal(#"$relatedTo takes {"object": a Pointer, "key": a Relation field}"#)
        }
        parameters.append(pointer.objectId)
        let table = quoted(PostgresLayout.joinTable(owner: pointer.className, field: field))
        return #""objectId" IN (SELECT "relatedId" FROM \#(table) WHERE "owningId" = $\#(firstParameter + parameters.count - 1))"#
    }

    /// A Relation field's condition: the objects whose `key` links to a given Pointer (or, with
    /// `$in`/`$nin`, to any of the given ones, or to none of them).
    private mutating func linking(_ value: JSONValue, on key: String, to target: String) throws(PorterError) -> String {
        var pointers = [value], negated = false
        if case .object(let constraints) = value, let name = constraints.keys.first, name.hasPrefix("$") {
            guard constraints.keys.count == 1, name == "$in" || name == "$nin", case .array(let items)? = constraints[name] else {
                throw Self.refusal("\(key): a Relation field takes a Pointer, $in or $nin of Pointers when reading a PostgreSQL database")
            }
            pointers = items
            negated = name == "$nin"
        }
        var ids: [String] = []
        for item in pointers {
            guard case .pointer(let pointer)? = try? ParseValue(wire: item) else { throw Self.refusal("\(key): \(item.serialized()) is not a Pointer") }
            if pointer.className == target { ids.append(pointer.objectId) }
        }
        parameters.append(ParseACL.textArray(ids))
        let table = quoted(PostgresLayout.joinTable(owner: schema.className, field: key))
        let owners = #""objectId" IN (SELECT "owningId" FROM \#(table) WHERE "relatedId" = ANY($\#(firstParameter + parameters.count - 1)::text[]))"#
        return negated ? "NOT (\(owners))" : owners
    }

    private struct Column {
        let sql: String
        let type: FieldType
    }

    /// The column of `key`, which must be a default column or a field stored in a column.
    private func column(_ key: String) throws(PorterError) -> Column {
        switch key {
        case "objectId": return Column(sql: quoted(key), type: .string)
        case "createdAt", "updatedAt": return Column(sql: quoted(key), type: .date)
        default: break
        }
        guard let field = schema.field(named: key) else {
            throw Self.refusal("\(key): \(schema.className) has no such field")
        }
        switch field.type {
        case .string, .number, .boolean, .date, .pointer, .file: return Column(sql: quoted(key), type: field.type)
        default: throw Self.refusal("\(key): a \(field.type.name) field cannot be queried when reading a PostgreSQL database")
        }
    }

    /// `column <comparison> value`, the value bound in the column's type. `null` compares as
    /// a missing value (`IS NULL` for `=`); a value of another type matches nothing. A NULL
    /// column never matches `=`, so `NOT (…)` of it must count it in.
    private mutating func compare(_ column: Column, _ comparison: String, _ value: JSONValue) throws(PorterError) -> String {
        if value == .null { return comparison == "=" ? "\(column.sql) IS NULL" : "FALSE" }
        guard let (text, cast) = Self.operand(value, as: column.type) else { return "FALSE" }
        parameters.append(text)
        return "coalesce(\(column.sql) \(comparison) $\(firstParameter + parameters.count - 1)::\(cast), FALSE)"
    }

    /// The value's text and SQL type when it is a value of `type`, else `nil`.
    private static func operand(_ value: JSONValue, as type: FieldType) -> (String, String)? {
        guard let parsed = try? ParseValue(wire: value) else { return nil }
        switch (type, parsed) {
        case (.string, .string(let text)): return (text, "text")
        case (.number, .integer), (.number, .double): return (parsed.postgresText!, "double precision")
        case (.boolean, .boolean): return (parsed.postgresText!, "boolean")
        case (.date, .date(let date)): return (date.iso, "timestamptz")
        case (.pointer(let target), .pointer(let pointer)) where pointer.className == target: return (pointer.objectId, "text")
        case (.file, .file(let file)): return (file.name, "text")
        default: return nil
        }
    }

    private static func refusal(_ message: String) -> PorterError {
        PorterError(.invalidRequest, "where: " + message)
    }
}
