import Foundation
import ParseModel
import PorterCore

/// One query's parameters, parsed and checked (where, order, limit, skip, keys, excludeKeys, include, count).
///
/// Parsing follows Parse Server's `ClassesRouter.optionsFromBody` and `RestQuery`: list parameters
/// are read as JavaScript's `String(value)` would render them (an array joins with commas), and
/// `count` is on when its value is truthy.
public struct ParseQuery: Sendable {
    /// One sort key: a field name (dotted into Object fields) and its direction.
    public struct SortKey: Sendable, Equatable {
        /// The field name, dotted into Object fields.
        public let field: String
        /// Whether larger values come first (`-field`).
        public let descending: Bool

        /// `$score` (or `-$score`): text-search relevance, best first.
        static let score = SortKey(field: "$score", descending: true)
    }

    /// The class queried.
    public let className: String
    /// The `where` object; empty when the query has none.
    public let constraints: JSONObject
    /// The sort keys, most significant first; empty for insertion order.
    public let order: [SortKey]
    /// At most this many results; 100 unless given.
    public let limit: Int
    /// How many matching objects to pass over before the first result.
    public let skip: Int
    /// The selected keys (dotted allowed), `nil` for all fields.
    public let keys: [String]?
    /// Fields left out of the results (`excludeKeys`), `nil` for none.
    public let excludeKeys: [String]?
    /// Pointer paths to include, such as `genre` or `post.author`.
    public let include: [String]
    /// `include=*` or `includeAll`: every pointer field of the queried class.
    public let includeAll: Bool
    /// Whether the number of matching objects is asked for (`count=1`).
    public let count: Bool

    /// Parameters accepted by Parse Server; those with no meaning for a mirror are ignored.
    private static let allowedParameters: Set<String> = [
        "where", "order", "limit", "skip", "keys", "excludeKeys", "include", "includeAll", "count", "explain", "hint",
        "comment", "readPreference", "includeReadPreference", "subqueryReadPreference", "redirectClassNameForKey",
    ]

    /// `parameters`: the query's parameters as JSON values, already JSON-decoded where the text parsed as JSON
    /// (so `limit` may be .integer(10) or .string("10"), `order` a string "-a,b" or an array ["-a","b"],
    /// `keys`/`include` a comma string or an array, `where` an object (or a string holding JSON), `count` 1/true/"1").
    /// Unknown parameters are 102 "Invalid parameter for query: X", bad values 102 or 105: an
    /// ``PorterError/Cause/invalidRequest`` error carrying Parse's (``PorterError/parseError``).
    public init(className: String, parameters: JSONObject) throws(PorterError) {
        self = try throwingPorterError { () throws(ParseError) in try ParseQuery(className: className, requestParameters: parameters) }
    }

    /// ``init(className:parameters:)`` failing with the Parse error the server answers.
    package init(className: String, requestParameters parameters: JSONObject) throws(ParseError) {
        for key in parameters.keys where !Self.allowedParameters.contains(key) {
            throw ParseError(.invalidQuery, "Invalid parameter for query: \(key)")
        }
        self.className = className
        constraints = try Self.whereObject(parameters["where"])
        order = try Self.sortKeys(parameters["order"])
        limit = try Self.number(parameters["limit"], named: "limit") ?? 100
        skip = try Self.number(parameters["skip"], named: "skip") ?? 0
        guard skip >= 0 else { throw ParseError(.invalidQuery, "Invalid value for skip: \(skip)") }
        keys = Self.list(parameters["keys"])
        excludeKeys = Self.list(parameters["excludeKeys"])
        let include = Self.list(parameters["include"]) ?? []
        includeAll = include.contains("*") || (parameters["includeAll"]?.isTruthy ?? false)
        self.include = include.filter { $0 != "*" }
        count = parameters["count"]?.isTruthy ?? false
    }

    /// A query built by the reader itself (a GET by objectId).
    init(className: String, constraints: JSONObject, limit: Int, keys: [String]?, include: [String]) {
        self.className = className
        self.constraints = constraints
        order = []
        self.limit = limit
        skip = 0
        self.keys = keys
        excludeKeys = nil
        includeAll = include.contains("*")
        self.include = include.filter { $0 != "*" }
        count = false
    }

    /// `where` as an object. An array is read as Parse Server reads it, an object keyed by its
    /// indexes, which are no field names: 105 for its first, as Parse Server answers.
    private static func whereObject(_ value: JSONValue?) throws(ParseError) -> JSONObject {
        var value = value
        if case .string(let text)? = value {
            guard let parsed = try? JSONParser.parse(text) else { throw ParseError(.invalidQuery, "where must be a JSON object") }
            value = parsed
        }
        switch value {
        case nil, .null?: return JSONObject()
        case .object(let object)?: return object
        case .array(let items)? where !items.isEmpty: throw ParseError(.invalidKeyName, "Invalid key name: 0")
        case .array?: return JSONObject()
        default: throw ParseError(.invalidQuery, "where must be a JSON object")
        }
    }

    /// `-a,b` → a descending, b ascending. Parse Server's aliases `_created_at` and `_updated_at`
    /// are renamed; `$score` and `-$score` sort by text-search relevance; other names (`score` is
    /// a field like any other, as in the Parse guide's GameScore) must be valid field names.
    private static func sortKeys(_ value: JSONValue?) throws(ParseError) -> [SortKey] {
        var keys: [SortKey] = []
        for item in list(value) ?? [] {
            let field = item.trimmingCharacters(in: .whitespaces)
            let descending = field.hasPrefix("-")
            var name = descending ? String(field.dropFirst()) : field
            switch name {
            case "$score":
                if !keys.contains(SortKey.score) { keys.append(SortKey.score) }
                continue
            case "_created_at": name = "createdAt"
            case "_updated_at": name = "updatedAt"
            default: break
            }
            let root = name.split(separator: ".", omittingEmptySubsequences: false)[0]
            guard ParseNames.defaultFields.contains(String(root)) || ParseNames.fieldNameProblem(String(root)) == nil else {
                throw ParseError(.invalidKeyName, "Invalid field name: \(name).")
            }
            if !keys.contains(where: { $0.field == name }) { keys.append(SortKey(field: name, descending: descending)) }
        }
        return keys
    }

    /// The largest `limit` or `skip` magnitude accepted: JavaScript's `Number.MAX_SAFE_INTEGER`,
    /// the largest count Parse Server itself can hold exactly.
    package static let maxCount = (1 << 53) - 1

    /// `limit` or `skip`: an integer, possibly as text or an integral double, of at most
    /// ``maxCount`` either way (102 otherwise). A negative limit counts like a positive one, as
    /// MongoDB reads it.
    private static func number(_ value: JSONValue?, named name: String) throws(ParseError) -> Int? {
        let number: Int?
        switch value {
        case nil, .null?: return nil
        case .integer(let i)?: number = Int(exactly: i)
        case .double(let d)?: number = Int(exactly: d)
        case .string(let s)?: number = s.isEmpty ? nil : Int(s.trimmingCharacters(in: .whitespaces))
        case .bool(let b)?: number = b ? 1 : 0
        default: number = nil
        }
        guard let number, number.magnitude <= UInt(maxCount) else {
            throw ParseError(.invalidQuery, "Invalid value for \(name): \(value?.javaScriptString ?? "")")
        }
        return name == "limit" ? abs(number) : number
    }

    /// The comma-separated items of `String(value)`, without empty ones; `nil` when absent.
    private static func list(_ value: JSONValue?) -> [String]? {
        guard let value, value != .null else { return nil }
        return value.javaScriptString.split(separator: ",").map(String.init).filter { !$0.isEmpty }
    }
}

extension JSONValue {
    /// JavaScript truthiness: `false`, `0`, `""` and `null` are false.
    var isTruthy: Bool {
        switch self {
        case .null: false
        case .bool(let b): b
        case .integer(let i): i != 0
        case .double(let d): d != 0 && !d.isNaN
        case .string(let s): !s.isEmpty
        case .array, .object: true
        }
    }

    /// The value as JavaScript's `String(value)` renders it: arrays join their items with commas.
    var javaScriptString: String {
        switch self {
        case .null: ""
        case .string(let s): s
        case .array(let items): items.map(\.javaScriptString).joined(separator: ",")
        case .object: "[object Object]"
        default: serialized()
        }
    }
}
