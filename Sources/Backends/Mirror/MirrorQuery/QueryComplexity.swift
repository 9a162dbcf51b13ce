import ParseModel

/// How complex one query may be: Parse Server's `requestComplexity` limits (`queryDepth`,
/// `subqueryDepth`, `includeDepth`, `includeCount`) with the defaults Parse Server 9 announces
/// for them (but ``subqueryDepth``), answered with Parse Server's 102 messages. Unlike Parse Server, the master key is
/// held to them too: they bound the SQL one request makes.
enum QueryComplexity {
    /// How deeply `$or`, `$and` and `$nor` may nest in a `where`, sub-queries' included.
    static let queryDepth = 10
    /// How deeply sub-queries (`$inQuery`, `$notInQuery`, `$select`, `$dontSelect`) may nest:
    /// 8, below Parse Server's 10, because they nest as SQL `SELECT`s and SQLite's parser stack
    /// overflows at about 10 of them.
    static let subqueryDepth = 8
    /// Components of the longest `include` path.
    static let includeDepth = 10
    /// `include` paths, each prefix of a dotted path counted (`a.b` is `a` and `a.b`).
    static let includeCount = 100

    /// JSON values a `where` may hold in all, sub-queries' included: every member of an object
    /// and every item of an array counts one (`{"n":{"$in":[1,2]}}` is four). Each becomes at
    /// most two SQL parameters, so a query stays within SQLite's 32,766. Parse Server 7.1 sets
    /// no such bound.
    static let maximumWhereValues = 10_000

    private static let logicalKeys: Set = ["$or", "$and", "$nor"]

    /// 102 when logical operators nest more than ``queryDepth`` deep anywhere in `constraints`,
    /// counted as Parse Server's `validateQueryDepth` counts (every value is walked, and only
    /// `$or`, `$and` and `$nor` go one level deeper), or when they hold more than
    /// ``maximumWhereValues`` values: refused before any SQL is made. (A wide `$or` is no longer
    /// a deep SQL expression: ``SQLFragment/all(_:)`` and `any` nest their parts as balanced trees.)
    static func checkShape(of constraints: JSONObject) throws(ParseError) {
        var values = 0
        try checkShape(.object(constraints), depth: 0, values: &values)
    }

    private static func checkShape(_ value: JSONValue, depth: Int, values: inout Int) throws(ParseError) {
        guard depth <= queryDepth else {
            throw ParseError(.invalidQuery, "Query condition nesting depth exceeds maximum allowed depth of \(queryDepth)")
        }
        switch value {
        case .array(let items):
            try count(items.count, into: &values)
            for item in items { try checkShape(item, depth: depth, values: &values) }
        case .object(let object):
            try count(object.members.count, into: &values)
            for member in object { try checkShape(member.value, depth: logicalKeys.contains(member.key) ? depth + 1 : depth, values: &values) }
        default: return
        }
    }

    private static func count(_ more: Int, into values: inout Int) throws(ParseError) {
        values += more
        guard values <= maximumWhereValues else {
            throw ParseError(
                .invalidQuery, "Query condition holds more than \(maximumWhereValues) values (members, list items and branches); split it into several queries")
        }
    }

    /// The 102 for a sub-query nested deeper than ``subqueryDepth``.
    static let subqueryTooDeep = ParseError(.invalidQuery, "Subquery nesting depth exceeds maximum allowed depth of \(subqueryDepth)")

    /// 102 when a path to include has more than ``includeDepth`` components; checked before
    /// the paths' prefixes are listed.
    static func checkIncludeDepth(_ paths: [[String]]) throws(ParseError) {
        let depth = paths.map(\.count).max() ?? 0
        guard depth <= includeDepth else {
            throw ParseError(.invalidQuery, "Include depth of \(depth) exceeds maximum allowed depth of \(includeDepth)")
        }
    }

    /// 102 once more than ``includeCount`` paths are listed (so a list of millions is refused at
    /// its 101st path; Parse Server's message names the whole number).
    static func checkIncludeCount(_ count: Int) throws(ParseError) {
        guard count <= includeCount else {
            throw ParseError(.invalidQuery, "Number of include fields exceeds maximum allowed (\(includeCount))")
        }
    }
}
