import ParseModel
import PorterCore
import PorterSQLite

/// `GET /aggregate/:className` over a mirror. The leading `$match` stages become the SQL `where`
/// (with every `where` operator; `_id` names `objectId`); the objects they find, in insertion
/// order, then run through the other stages in memory. Results are named as Parse Server names
/// them: a group's `_id` comes back as `objectId`. In expressions `$field` reads a field (dotted
/// into Objects); a Pointer reads as its objectId, as Parse's Mongo adapter groups pointers.
extension MirrorReader {
    /// The objects an aggregation may read after its leading `$match`; more is 102.
    package static let aggregateReadLimit = 100_000

    /// Runs `pipeline` on the class's objects (the caller has the master key: no ACL applies),
    /// under the query time limit. Errors as ``find(_:schemas:access:)``'s.
    public func aggregate(_ className: String, _ pipeline: AggregatePipeline, schemas: [String: ClassSchema]) throws(PorterError) -> [JSONObject] {
        try throwingPorterError { () throws(ParseError) in try aggregate(className: className, pipeline: pipeline, schemas: schemas) }
    }

    /// ``aggregate(_:_:schemas:)`` failing with the Parse error the server answers.
    package func aggregate(className: String, pipeline: AggregatePipeline, schemas: [String: ClassSchema]) throws(ParseError) -> [JSONObject] {
        try timed { () throws(ParseError) in try run(pipeline, on: className, schemas: schemas) }
    }

    private func run(_ pipeline: AggregatePipeline, on className: String, schemas: [String: ClassSchema]) throws(ParseError) -> [JSONObject] {
        guard let schema = schemas[className] else { return [] }
        var stages = pipeline.stages[...]
        var conditions: [SQLFragment] = []
        let compiler = whereCompiler(schema, schemas: schemas, access: .master)
        while case .match(let query)? = stages.first {
            var renamed = query
            if let id = renamed["_id"] {
                renamed["_id"] = nil
                renamed["objectId"] = id
            }
            try QueryComplexity.checkShape(of: renamed)
            conditions.append(try compiler.compile(renamed))
            stages = stages.dropFirst()
        }
        let decoder = ObjectDecoder(schema: schema, keys: nil, excludeKeys: nil)
        let sql =
            "SELECT \(decoder.selectList) FROM \(quoted(className)) AS t WHERE " + SQLFragment.all(conditions)
            + " ORDER BY t.\(rowid(of: schema)) LIMIT " + .parameter(.integer(Int64(Self.aggregateReadLimit + 1)))
        var documents = try objects(sql, decoder)
        guard documents.count <= Self.aggregateReadLimit else {
            throw AggregatePipeline.invalid(
                "The aggregation would read more than \(Self.aggregateReadLimit) objects; start the pipeline with a narrower $match.")
        }
        for stage in stages { documents = try AggregateStages.apply(stage, to: documents) }
        return documents
    }
}

/// The stages after the leading `$match`, on documents in memory.
enum AggregateStages {
    static func apply(_ stage: AggregatePipeline.Stage, to documents: [JSONObject]) throws(ParseError) -> [JSONObject] {
        switch stage {
        case .match(let query):
            var kept: [JSONObject] = []
            for document in documents where try matches(document, query) { kept.append(document) }
            return kept
        case .group(let id, let accumulators): return try group(documents, id: id, accumulators: accumulators)
        case .project(let projection): return try project(documents, projection)
        case .sort(let keys):
            return documents.enumerated().sorted { a, b in
                for (key, descending) in keys {
                    let order = compare(value(key, in: a.element), value(key, in: b.element))
                    if order != 0 { return descending ? order > 0 : order < 0 }
                }
                return a.offset < b.offset
            }.map(\.element)
        case .limit(let limit): return Array(documents.prefix(limit))
        case .skip(let skip): return Array(documents.dropFirst(skip))
        case .count(let field): return documents.isEmpty ? [] : [JSONObject([field: .integer(Int64(documents.count))])]
        }
    }

    // MARK: Values

    /// The value at a dotted path (`_id` names `objectId`); a Pointer is its objectId; `nil` when missing.
    static func value(_ path: String, in document: JSONObject) -> JSONValue? {
        var current: JSONValue? = .object(document)
        for (i, part) in path.split(separator: ".", omittingEmptySubsequences: false).enumerated() {
            current = current?[i == 0 && part == "_id" ? "objectId" : String(part)]
        }
        if let current, current["__type"] == .string("Pointer"), let pointer = WhereCompiler.pointer(current) { return .string(pointer.objectId) }
        return current
    }

    /// An expression: `"$path"`, an object of expressions (a composite group key), or a literal.
    static func evaluate(_ expression: JSONValue, in document: JSONObject) throws(ParseError) -> JSONValue? {
        switch expression {
        case .string(let text) where text.hasPrefix("$"): return value(String(text.dropFirst()), in: document)
        case .object(let object):
            guard !object.keys.contains(where: { $0.hasPrefix("$") }) else {
                throw AggregatePipeline.invalid("Unsupported aggregate expression \(expression.serialized()); use \"$field\" or a literal.")
            }
            var result = JSONObject()
            for member in object { result[member.key] = try evaluate(member.value, in: document) ?? .null }
            return .object(result)
        default: return expression
        }
    }

    /// MongoDB's order of values across types: missing and null, numbers, strings, objects,
    /// arrays, booleans, dates.
    static func compare(_ a: JSONValue?, _ b: JSONValue?) -> Int {
        let (ra, rb) = (typeRank(a), typeRank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (nil, _), (.null?, _): return 0
        case (let x?, let y?) where ra == 1: return x.number! < y.number! ? -1 : x.number! > y.number! ? 1 : 0
        case (.string(let x)?, .string(let y)?): return x < y ? -1 : x > y ? 1 : 0
        case (.bool(let x)?, .bool(let y)?): return x == y ? 0 : x ? 1 : -1
        case (let x?, let y?) where ra == 6: return compare(x["iso"], y["iso"])
        case (let x?, let y?):
            let (sx, sy) = (x.serialized(sortedKeys: true), y.serialized(sortedKeys: true))
            return sx < sy ? -1 : sx > sy ? 1 : 0
        default: return 0
        }
    }

    private static func typeRank(_ value: JSONValue?) -> Int {
        switch value {
        case nil, .null?: 0
        case .integer?, .double?: 1
        case .string?: 2
        case .object? where value?["__type"] == .string("Date"): 6
        case .object?: 3
        case .array?: 4
        case .bool?: 5
        }
    }

    // MARK: Stages

    private static func group(
        _ documents: [JSONObject], id: JSONValue,
        accumulators: [(field: String, op: String, expression: JSONValue)]
    ) throws(ParseError) -> [JSONObject] {
        var keys: [JSONValue] = []
        var index: [String: Int] = [:]
        var values: [[[JSONValue?]]] = []
        for document in documents {
            let key = try evaluate(id, in: document) ?? .null
            let text = key.serialized(sortedKeys: true)
            if index[text] == nil {
                index[text] = keys.count
                keys.append(key)
                values.append(Array(repeating: [], count: accumulators.count))
            }
            for (i, accumulator) in accumulators.enumerated() {
                values[index[text]!][i].append(try evaluate(accumulator.expression, in: document))
            }
        }
        return keys.enumerated().map { g, key in
            var result = JSONObject()
            result["objectId"] = key == .object(JSONObject()) ? .null : key
            for (i, accumulator) in accumulators.enumerated() {
                result[accumulator.field] = accumulate(accumulator.op, accumulator.expression, values[g][i])
            }
            return result
        }
    }

    private static func accumulate(_ op: String, _ expression: JSONValue, _ values: [JSONValue?]) -> JSONValue {
        let present = values.compactMap { $0 }.filter { $0 != .null }
        let numbers = present.filter { $0.number != nil }
        switch op {
        case "$sum":
            if case .integer(let constant) = expression {
                let (product, overflow) = constant.multipliedReportingOverflow(by: Int64(values.count))
                return overflow ? .double(Double(constant) * Double(values.count)) : .integer(product)
            }
            if numbers.allSatisfy({ if case .integer = $0 { true } else { false } }) {
                var sum: Int64 = 0
                for case .integer(let i) in numbers {
                    let (next, overflow) = sum.addingReportingOverflow(i)
                    if overflow { return .double(numbers.reduce(0) { $0 + $1.number! }) }
                    sum = next
                }
                return .integer(sum)
            }
            return .double(numbers.reduce(0) { $0 + $1.number! })
        case "$avg": return numbers.isEmpty ? .null : .double(numbers.reduce(0) { $0 + $1.number! } / Double(numbers.count))
        case "$min": return present.min { compare($0, $1) < 0 } ?? .null
        case "$max": return present.max { compare($0, $1) < 0 } ?? .null
        case "$first": return (values.first ?? nil) ?? .null
        case "$last": return (values.last ?? nil) ?? .null
        case "$push": return .array(values.compactMap { $0 })
        default:
            var seen = Set<String>()
            return .array(values.compactMap { $0 }.filter { seen.insert($0.serialized(sortedKeys: true)).inserted })
        }
    }

    private static func project(_ documents: [JSONObject], _ projection: JSONObject) throws(ParseError) -> [JSONObject] {
        var keepId = true
        var included: [(String, JSONValue)] = [], excluded: [String] = []
        for member in projection {
            let name = member.key == "_id" ? "objectId" : member.key
            switch member.value {
            case .integer(0), .double(0), .bool(false):
                if name == "objectId" { keepId = false } else { excluded.append(name) }
            case .integer(1), .double(1), .bool(true): included.append((name, .string("$" + name)))
            case .string(let path) where path.hasPrefix("$"): included.append((name, member.value))
            default: throw AggregatePipeline.invalid("Invalid $project value for \(member.key): use 1, 0 or \"$field\".")
            }
        }
        guard included.isEmpty || excluded.isEmpty else { throw AggregatePipeline.invalid("$project cannot both include and exclude fields.") }
        var results: [JSONObject] = []
        for document in documents {
            var result: JSONObject
            if included.isEmpty {
                result = JSONObject(document.members.filter { !excluded.contains($0.key) })
            } else {
                result = JSONObject()
                if let id = document["objectId"] { result["objectId"] = id }
                for (name, expression) in included { result[name] = try evaluate(expression, in: document) }
            }
            if !keepId { result["objectId"] = nil }
            results.append(result)
        }
        return results
    }

    /// An in-memory `$match` (after another stage): field equality and `$eq`, `$ne`, `$gt`, `$gte`,
    /// `$lt`, `$lte`, `$in`, `$nin`, `$exists`, combined with `$and`, `$or`, `$nor`.
    private static func matches(_ document: JSONObject, _ query: JSONObject) throws(ParseError) -> Bool {
        for member in query {
            switch member.key {
            case "$and", "$or", "$nor":
                guard case .array(let items) = member.value, !items.isEmpty else { throw AggregatePipeline.invalid("\(member.key) needs a non-empty array.") }
                var results: [Bool] = []
                for item in items {
                    guard case .object(let sub) = item else { throw AggregatePipeline.invalid("\(member.key) needs an array of objects.") }
                    results.append(try matches(document, sub))
                }
                let ok = member.key == "$and" ? !results.contains(false) : member.key == "$or" ? results.contains(true) : !results.contains(true)
                if !ok { return false }
            default:
                if try !holds(value(member.key, in: document), member.value) { return false }
            }
        }
        return true
    }

    private static func holds(_ value: JSONValue?, _ condition: JSONValue) throws(ParseError) -> Bool {
        let equals = { (operand: JSONValue) -> Bool in
            if case .array(let items)? = value, items.contains(where: { compare($0, operand) == 0 }) { return true }
            return compare(value, operand) == 0
        }
        guard case .object(let operators) = condition, !operators.members.isEmpty, operators.keys.allSatisfy({ $0.hasPrefix("$") }) else {
            return equals(condition)
        }
        for op in operators {
            let operand = op.value
            let ok: Bool
            switch op.key {
            case "$eq": ok = equals(operand)
            case "$ne": ok = !equals(operand)
            case "$gt", "$gte", "$lt", "$lte":
                guard value != nil, typeRank(value) == typeRank(operand) else { return false }
                let order = compare(value, operand)
                ok = op.key == "$gt" ? order > 0 : op.key == "$gte" ? order >= 0 : op.key == "$lt" ? order < 0 : order <= 0
            case "$in", "$nin":
                guard case .array(let items) = operand else { throw AggregatePipeline.invalid("\(op.key) needs an array.") }
                let found = items.contains(where: equals)
                ok = op.key == "$in" ? found : !found
            case "$exists": ok = (value != nil) == operand.isTruthy
            default: throw AggregatePipeline.invalid("Unsupported operator \(op.key) in $match after another stage.")
            }
            if !ok { return false }
        }
        return true
    }
}
