import ParseModel
import PorterCore
import PorterSQLite

/// A condition that ends a query before its time limit, and the error the query then fails with.
package struct QueryCutoff {
    package let isReached: () -> Bool
    package let error: ParseError

    package init(error: ParseError, isReached: @escaping () -> Bool) {
        self.error = error
        self.isReached = isReached
    }
}

/// Reads objects of a mirror. Not thread-safe: one per connection.
///
/// Results without an `order` come in insertion order (the table's rowid), which is also the
/// last tie-breaker of every order, so that paging with `skip` is stable.
public final class MirrorReader {
    /// The seconds a query (with its count and includes) may run before it fails with 124, unless told otherwise.
    public static let defaultTimeLimit = 10.0

    private let database: SQLiteDatabase
    private let maxLimit: Int?
    private let timeLimit: Double
    private let regexes = RegexCache()
    private let textIndexes: TextIndexes
    private let clock = QueryClock()
    /// The running query's request budget.
    private var budget: ResultBudget?
    /// Ends queries early on a condition besides the time limit (set while the connection
    /// holds the server's write lock for a batch, which gives way to others waiting for it).
    package var cutoff: QueryCutoff? {
        didSet { clock.cutoff = cutoff?.isReached }
    }

    /// Registers the `$regex` SQL function and a progress handler that ends queries running
    /// past `timeLimit` seconds on the connection. `maxLimit` silently lowers larger limits.
    /// A connection that refuses the function is a target error.
    public init(database: SQLiteDatabase, maxLimit: Int? = nil, timeLimit: Double = MirrorReader.defaultTimeLimit) throws(PorterError) {
        self.database = database
        self.maxLimit = maxLimit
        self.timeLimit = timeLimit
        textIndexes = TextIndexes(database: database)
        try throwingPorterError { () throws(ParseError) in try RegexFunction.register(on: database, cache: regexes) }
        clock.install(on: database)
        regexes.clock = clock
    }

    deinit { QueryClock.uninstall(from: database) }

    /// Runs a query: results as Parse REST JSON objects, and the count when asked (count ignores
    /// limit/skip). A query the mirror refuses (a bad `where`, a protected field, one running
    /// longer than the time limit) is an ``PorterError/Cause/invalidRequest`` error, a failing
    /// mirror a ``PorterError/Cause/target`` one; either carries Parse's error
    /// (``PorterError/parseError``: 102, 119, 124…).
    ///
    /// ```swift
    /// let query = try ParseQuery(className: "Book", parameters: JSONObject(["where": .object(JSONObject(["year": .integer(1999)]))]))
    /// let books = try reader.find(query, schemas: schemas, access: .master).results
    /// ```
    public func find(_ query: ParseQuery, schemas: [String: ClassSchema], access: ReadAccess) throws(PorterError) -> (results: [JSONObject], count: Int?) {
        try throwingPorterError { () throws(ParseError) in try find(query, schemas: schemas, access: access, budget: nil) }
    }

    /// ``find(_:schemas:access:)`` charging the rows read to `budget` (a server request's budget,
    /// or none), failing with the Parse error the server answers.
    package func find(
        _ query: ParseQuery, schemas: [String: ClassSchema], access: ReadAccess,
        budget: ResultBudget?
    ) throws(ParseError) -> (results: [JSONObject], count: Int?) {
        try timed(budget: budget) { () throws(ParseError) in try run(query, schemas: schemas, access: access) }
    }

    /// Runs `body` under the time limit, charging the rows it reads to `budget`.
    func timed<T>(budget: ResultBudget? = nil, _ body: () throws(ParseError) -> T) throws(ParseError) -> T {
        regexes.clearFailure()
        clock.start(seconds: timeLimit)
        self.budget = budget
        defer {
            clock.stop()
            self.budget = nil
        }
        return try body()
    }

    private func run(_ query: ParseQuery, schemas: [String: ClassSchema], access: ReadAccess) throws(ParseError) -> (results: [JSONObject], count: Int?) {
        try QueryComplexity.checkShape(of: query.constraints)
        guard let schema = schemas[query.className] else { return ([], query.count ? 0 : nil) }
        try access.checkQueryable(query.constraints, order: query.order, schema: schema)
        let includePaths = try Self.includePaths(query, schema)
        let compiler = whereCompiler(schema, schemas: schemas, access: access)
        let condition = SQLFragment.all([try compiler.compile(query.constraints), WhereCompiler.readable(schema.className, by: access)])
        let table = quoted(schema.className)
        var count: Int?
        if query.count {
            let statement = try prepare("SELECT count(*) FROM \(table) AS t WHERE " + condition)
            count = try step(statement) ? Int(statement.integer(at: 0)) : 0
        }
        let limit = min(query.limit, maxLimit ?? .max)
        guard limit > 0 else { return ([], count) }
        let score = try compiler.textScore(query.constraints)
        let selectsScore = score != nil && (query.keys ?? []).contains("$score")
        var protection = ProtectedFields(schema, access: access, queriedObjectId: query.constraints["objectId"]?.stringValue)
        let selection = protection.selection(keys: query.keys, excludeKeys: query.excludeKeys)
        let decoder = ObjectDecoder(schema: schema, keys: selection.keys, excludeKeys: selection.excludeKeys)
        let order = Self.order(query.order, schema, score: score, distance: query.order.isEmpty ? try compiler.nearSphereDistance(query.constraints) : nil)
        let sql =
            "SELECT \(decoder.selectList)" + (selectsScore ? ", " + score! : SQLFragment("")) + " FROM \(table) AS t WHERE " + condition
            + " ORDER BY " + order + " LIMIT " + .parameter(.integer(Int64(limit))) + " OFFSET " + .parameter(.integer(Int64(query.skip)))
        var results = try objects(sql, decoder, scoreColumn: selectsScore ? decoder.columnCount : nil).map(protection.visible)
        try include(includePaths, of: query, schemas: schemas, access: access, into: &results)
        return (results, count)
    }

    /// One object by id (GET /classes/X/id with keys/include), nil when missing or not readable.
    /// Errors as ``find(_:schemas:access:)``'s.
    public func get(
        className: String, objectId: String, keys: [String]?, include: [String], schemas: [String: ClassSchema],
        access: ReadAccess
    ) throws(PorterError) -> JSONObject? {
        try throwingPorterError { () throws(ParseError) in
            try get(className: className, objectId: objectId, keys: keys, include: include, schemas: schemas, access: access, budget: nil)
        }
    }

    /// ``get(className:objectId:keys:include:schemas:access:)`` charging the rows read to `budget`
    /// (or to none), failing with the Parse error the server answers.
    package func get(
        className: String, objectId: String, keys: [String]?, include: [String], schemas: [String: ClassSchema], access: ReadAccess,
        budget: ResultBudget?
    ) throws(ParseError) -> JSONObject? {
        let query = ParseQuery(className: className, constraints: JSONObject(["objectId": .string(objectId)]), limit: 1, keys: keys, include: include)
        return try find(query, schemas: schemas, access: access, budget: budget).results.first
    }

    /// The readable objects of `schema`'s class among `objectIds`, by objectId, with the fields
    /// `keys` and `excludeKeys` select that the reader may see.
    func objects(
        _ schema: ClassSchema, ids objectIds: [String], keys: [String]?, excludeKeys: [String]?,
        access: ReadAccess
    ) throws(ParseError) -> [String: JSONObject] {
        var protection = ProtectedFields(schema, access: access)
        let selection = protection.selection(keys: keys, excludeKeys: excludeKeys)
        let decoder = ObjectDecoder(schema: schema, keys: selection.keys, excludeKeys: selection.excludeKeys)
        var found: [String: JSONObject] = [:]
        var start = 0
        while start < objectIds.count {
            let chunk = Array(objectIds[start..<min(start + 500, objectIds.count)])
            let condition = SQLFragment.all([
                "\(column("objectId")) IN (" + .parameters(chunk.map(ParseValue.string)) + ")",
                WhereCompiler.readable(schema.className, by: access),
            ])
            for object in try objects("SELECT \(decoder.selectList) FROM \(quoted(schema.className)) AS t WHERE " + condition, decoder) {
                if case .string(let id)? = object["objectId"] { found[id] = protection.visible(object) }
            }
            start += chunk.count
        }
        return found
    }

    /// The objects a statement selecting ``ObjectDecoder/selectList`` reads; with `scoreColumn`,
    /// each carries that column as its text-search `score`.
    func objects(_ sql: SQLFragment, _ decoder: ObjectDecoder, scoreColumn: Int? = nil) throws(ParseError) -> [JSONObject] {
        let statement = try prepare(sql)
        var results: [JSONObject] = []
        while try step(statement) {
            if let budget { try budget.charge((0..<statement.columnCount).reduce(0) { $0 + statement.storedSize(at: $1) }) }
            var object = decoder.decode(statement)
            if let scoreColumn { object["score"] = .double(statement.double(at: scoreColumn)) }
            results.append(object)
        }
        return results
    }

    /// The `where` compiler for a query of `schema`'s class by `access`.
    func whereCompiler(_ schema: ClassSchema, schemas: [String: ClassSchema], access: ReadAccess) -> WhereCompiler {
        var compiler = WhereCompiler(schema: schema, schemas: schemas, isMaster: access.principals == nil, regexes: regexes)
        compiler.access = access
        compiler.textIndexes = textIndexes
        return compiler
    }

    /// The sort keys the class has (others are dropped, as Parse does; `$score` sorts by text-search
    /// relevance, best first), else the distance of a `$nearSphere`, then insertion order.
    private static func order(_ keys: [ParseQuery.SortKey], _ schema: ClassSchema, score: SQLFragment?, distance: SQLFragment?) -> SQLFragment {
        var parts: [SQLFragment] = []
        for key in keys {
            let direction = key.descending ? " DESC" : " ASC"
            if key.field == ParseQuery.SortKey.score.field {
                if let score { parts.append(score + " DESC") }
                continue
            }
            switch QueryTarget(key: key.field, schema: schema) {
            case .column(let name, let type) where type != .acl: parts.append(SQLFragment(column(name) + direction))
            case .nested(let name, let path): parts.append(JSONSlot.nested(name, path: path).value + direction)
            default: continue
            }
        }
        if let distance { parts.append(distance + " ASC") }
        parts.append(SQLFragment("t." + rowid(of: schema)))
        return parts.dropFirst().reduce(parts[0]) { $0 + ", " + $1 }
    }

    private func prepare(_ sql: SQLFragment) throws(ParseError) -> SQLiteStatement {
        let statement: SQLiteStatement
        do { statement = try database.prepare(sql.sql) } catch { throw ParseError(.internalServerError, error.message) }
        sql.bind(to: statement)
        return statement
    }

    private func step(_ statement: SQLiteStatement) throws(ParseError) -> Bool {
        do { return try statement.step() } catch {
            if clock.expired {
                throw ParseError(
                    .timeout,
                    "The query ran longer than the server's limit of \(timeLimit.formatted()) s; narrow its where or lower its limit")
            }
            if clock.cutOff, let cutoff { throw cutoff.error }
            throw regexes.failure ?? ParseError(.internalServerError, error.message)
        }
    }
}
