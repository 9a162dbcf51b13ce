import ParseModel
import PorterCore

/// An aggregation pipeline as Parse Server's `AggregateRouter` reads it: `pipeline` (an array of
/// one-key stages, or an object of them), or else the stage keys given as parameters themselves.
/// Stages: `$match`, `$group` (`_id` null, a `$field`, or an object of them; accumulators `$sum`,
/// `$avg`, `$min`, `$max`, `$first`, `$last`, `$push`, `$addToSet`), `$project`, `$sort`,
/// `$limit`, `$skip` and `$count`. Any other stage, or a malformed one, is 102.
public struct AggregatePipeline: Sendable {
    enum Stage: Sendable {
        case match(JSONObject)
        case group(id: JSONValue, accumulators: [(field: String, op: String, expression: JSONValue)])
        case project(JSONObject)
        case sort([(key: String, descending: Bool)])
        case limit(Int)
        case skip(Int)
        case count(String)
    }

    let stages: [Stage]

    private static let options: Set = ["distinct", "where", "hint", "explain", "comment", "readPreference"]
    static let accumulators: Set = ["$sum", "$avg", "$min", "$max", "$first", "$last", "$push", "$addToSet"]

    /// The pipeline of a request's parameters: `pipeline` (a JSON array of stages, or an object
    /// of them), or stages given as parameters (`$group=…`). Unknown or malformed stages are an
    /// ``PorterError/Cause/invalidRequest`` error carrying Parse's 102 (``PorterError/parseError``).
    public init(parameters: JSONObject) throws(PorterError) {
        self = try throwingPorterError { () throws(ParseError) in try AggregatePipeline(requestParameters: parameters) }
    }

    /// ``init(parameters:)`` failing with the Parse error the server answers.
    package init(requestParameters parameters: JSONObject) throws(ParseError) {
        // Refused rather than ignored: it would otherwise answer every object of the class.
        if parameters["distinct"] != nil { throw Self.invalid("distinct is not supported by the mirror.") }
        var given: [JSONObject] = []
        switch parameters["pipeline"] {
        case .array(let items)?:
            for item in items {
                guard case .object(let stage) = item else { throw Self.invalid("Pipeline stages should be objects.") }
                given.append(stage)
            }
        case .object(let object)?: given = object.members.map { JSONObject([$0]) }
        case nil: given = parameters.members.filter { !Self.options.contains($0.key) }.map { JSONObject([$0]) }
        default: throw Self.invalid("pipeline should be an array of stages.")
        }
        var stages: [Stage] = []
        for stage in given {
            guard stage.members.count == 1, let member = stage.members.first else {
                throw Self.invalid("Pipeline stages should only have one key but found \(stage.keys.joined(separator: ", ")).")
            }
            if member.key == "distinct" || member.key == "where" { continue }
            stages.append(try Self.stage(member.key, member.value))
        }
        self.stages = stages
    }

    private static func stage(_ name: String, _ value: JSONValue) throws(ParseError) -> Stage {
        guard name.hasPrefix("$") else { throw invalid("Invalid aggregate stage '\(name)'.") }
        switch (name, value) {
        case ("$match", .object(let query)): return .match(query)
        case ("$group", .object(let group)):
            if group["objectId"] != nil { throw invalid("Cannot use 'objectId' in aggregation stage $group.") }
            guard let id = group["_id"] else { throw invalid("Invalid parameter for query: group. Missing key _id") }
            var accumulators: [(String, String, JSONValue)] = []
            for member in group where member.key != "_id" {
                guard case .object(let accumulator) = member.value, accumulator.members.count == 1, let op = accumulator.members.first,
                    Self.accumulators.contains(op.key)
                else {
                    throw invalid("Invalid accumulator for \(member.key) in $group; use one of \(Self.accumulators.sorted().joined(separator: ", ")).")
                }
                accumulators.append((member.key, op.key, op.value))
            }
            return .group(id: id, accumulators: accumulators)
        case ("$project", .object(let projection)) where !projection.members.isEmpty: return .project(projection)
        case ("$sort", .object(let sort)) where !sort.members.isEmpty:
            var keys: [(String, Bool)] = []
            for member in sort {
                guard let direction = member.value.number, direction == 1 || direction == -1 else { throw invalid("$sort values must be 1 or -1.") }
                keys.append((member.key, direction == -1))
            }
            return .sort(keys)
        case ("$limit", _):
            guard let limit = integer(value), limit > 0 else { throw invalid("$limit must be a positive integer.") }
            return .limit(limit)
        case ("$skip", _):
            guard let skip = integer(value), skip >= 0 else { throw invalid("$skip must be a non-negative integer.") }
            return .skip(skip)
        case ("$count", .string(let field)) where !field.isEmpty && !field.hasPrefix("$") && !field.contains("."):
            return .count(field)
        case ("$match", _), ("$group", _), ("$project", _), ("$sort", _), ("$count", _):
            throw invalid("Invalid value for aggregate stage '\(name)'.")
        default:
            throw invalid("Unsupported aggregate stage '\(name)'; the mirror runs $match, $group, $project, $sort, $limit, $skip and $count.")
        }
    }

    private static func integer(_ value: JSONValue) -> Int? {
        guard let number = value.number, number.isFinite, number == number.rounded(), abs(number) < 1e15 else { return nil }
        return Int(number)
    }

    static func invalid(_ message: String) -> ParseError { ParseError(.invalidQuery, message) }
}
