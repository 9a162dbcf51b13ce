import ParseModel
import PorterPipeline
import PorterSQLite

/// Reads objects of a mirror. Not thread-safe: one per connection.
///
/// Results without an `order` come in insertion order (the table's rowid), which is also the
/// last tie-breaker of every order, so that paging with `skip` is stable.
public final class MirrorReader {
    private let database: SQLiteDatabase
    private let maxLimit: Int?
    private let regexes = RegexCache()

    /// Registers the `$regex` SQL function on the connection. `maxLimit` silently lowers larger limits.
    public init(database: SQLiteDatabase, maxLimit: Int? = nil) throws(QueryError) {
        self.database = database
        self.maxLimit = maxLimit
        try RegexFunction.register(on: database, cache: regexes)
    }

    /// Runs a query: results as Parse REST JSON objects, and the count when asked (count ignores limit/skip).
    public func find(_ query: ParseQuery, schemas: [String: ClassSchema], access: ReadAccess) throws(QueryError) -> (results: [JSONObject], count: Int?) {
        guard let schema = schemas[query.className] else { return ([], query.count ? 0 : nil) }
        let compiler = WhereCompiler(schema: schema, schemas: schemas, isMaster: access.principals == nil, regexes: regexes)
        let condition = SQLFragment.all([try compiler.compile(query.constraints), Self.readable(schema.className, by: access)])
        let table = quoted(schema.className)
        var count: Int?
        if query.count {
            let statement = try prepare("SELECT count(*) FROM \(table) AS t WHERE " + condition)
            count = try step(statement) ? Int(statement.integer(at: 0)) : 0
        }
        let limit = min(query.limit, maxLimit ?? .max)
        guard limit > 0 else { return ([], count) }
        let decoder = ObjectDecoder(schema: schema, keys: query.keys, excludeKeys: query.excludeKeys)
        let sql = "SELECT \(decoder.selectList) FROM \(table) AS t WHERE " + condition + " ORDER BY " + Self.order(query.order, schema)
            + " LIMIT " + .parameter(.integer(Int64(limit))) + " OFFSET " + .parameter(.integer(Int64(query.skip)))
        var results = try objects(sql, decoder).map { access.hidingProtectedFields(of: $0, className: schema.className) }
        try include(query, schema: schema, schemas: schemas, access: access, into: &results)
        return (results, count)
    }

    /// One object by id (GET /classes/X/id with keys/include), nil when missing or not readable.
    public func get(className: String, objectId: String, keys: [String]?, include: [String], schemas: [String: ClassSchema], access: ReadAccess) throws(QueryError) -> JSONObject? {
        let query = ParseQuery(className: className, constraints: JSONObject(["objectId": .string(objectId)]), limit: 1, keys: keys, include: include)
        return try find(query, schemas: schemas, access: access).results.first
    }

    /// The readable objects of `schema`'s class among `objectIds`, by objectId.
    func objects(_ schema: ClassSchema, ids objectIds: [String], decoder: ObjectDecoder, access: ReadAccess) throws(QueryError) -> [String: JSONObject] {
        var found: [String: JSONObject] = [:]
        var start = 0
        while start < objectIds.count {
            let chunk = Array(objectIds[start..<min(start + 500, objectIds.count)])
            let condition = SQLFragment.all(["\(column("objectId")) IN (" + .parameters(chunk.map(ParseValue.string)) + ")",
                                             Self.readable(schema.className, by: access)])
            for object in try objects("SELECT \(decoder.selectList) FROM \(quoted(schema.className)) AS t WHERE " + condition, decoder) {
                if case .string(let id)? = object["objectId"] { found[id] = access.hidingProtectedFields(of: object, className: schema.className) }
            }
            start += chunk.count
        }
        return found
    }

    private func objects(_ sql: SQLFragment, _ decoder: ObjectDecoder) throws(QueryError) -> [JSONObject] {
        let statement = try prepare(sql)
        var results: [JSONObject] = []
        while try step(statement) { results.append(decoder.decode(statement)) }
        return results
    }

    /// Unless master: rows without an ACL (public) or whose ACL grants read to a principal; of
    /// `_Session`, only the reader's own sessions (Parse Server's `RestQuery` adds `user == caller`,
    /// so a session without an ACL, such as one `pull` copied, stays private too).
    private static func readable(_ className: String, by access: ReadAccess) -> SQLFragment {
        guard let principals = access.principals else { return .alwaysTrue }
        let acl = "(t.\"ACL\" IS NULL OR EXISTS (SELECT 1 FROM json_each(t.\"ACL\") AS a WHERE a.key IN ("
            + .parameters(principals.sorted().map(ParseValue.string)) + ") AND json_extract(a.value, '$.read') = 1))"
        guard className == "_Session" else { return acl }
        guard let userId = access.userId else { return .alwaysFalse }
        return .all([acl, "t.\"user\" = " + .parameter(.string(userId))])
    }

    /// The sort keys the class has (others are dropped, as Parse does), then insertion order.
    private static func order(_ keys: [ParseQuery.SortKey], _ schema: ClassSchema) -> SQLFragment {
        var parts: [SQLFragment] = []
        for key in keys {
            let direction = key.descending ? " DESC" : " ASC"
            switch QueryTarget(key: key.field, schema: schema) {
            case .column(let name, let type) where type != .acl: parts.append(SQLFragment(column(name) + direction))
            case .nested(let name, let path): parts.append(JSONSlot.nested(name, path: path).value + direction)
            default: continue
            }
        }
        let taken = Set(schema.fields.map(\.name))
        parts.append(SQLFragment("t." + (["_rowid_", "rowid", "oid"].first { !taken.contains($0) } ?? "\"objectId\"")))
        return parts.dropFirst().reduce(parts[0]) { $0 + ", " + $1 }
    }

    private func prepare(_ sql: SQLFragment) throws(QueryError) -> SQLiteStatement {
        let statement: SQLiteStatement
        do { statement = try database.prepare(sql.sql) } catch { throw QueryError(code: 1, error.message) }
        sql.bind(to: statement)
        return statement
    }

    private func step(_ statement: SQLiteStatement) throws(QueryError) -> Bool {
        do { return try statement.step() } catch { throw QueryError(code: 1, error.message) }
    }
}
