import ParseModel
import PorterSQLite

/// Translates a Parse `where` object into an SQL condition on the class table aliased `t`,
/// following Parse Server's `DatabaseController.validateQuery` and `MongoTransform`.
///
/// Values are compared in the mirror's column encoding: numbers numerically, dates as their
/// fixed-format ISO text, pointers by the target's objectId, JSON columns by canonical JSON text.
/// A value of another type than the field's never equals a stored value.
struct WhereCompiler {
    let schema: ClassSchema
    let schemas: [String: ClassSchema]
    /// The master key may use any key name.
    let isMaster: Bool
    let regexes: RegexCache
    /// Who reads: sub-queries (`$inQuery`, `$select`…) see only what this reader may find.
    var access = ReadAccess.master
    /// Full-text indexes for `$text`; without them `$text` is refused.
    var textIndexes: TextIndexes?
    /// How many sub-queries this one is inside.
    var depth = 0

    private static let logicalKeys: Set<String> = ["$and", "$or", "$nor"]
    private static let unsupported: Set<String> = ["$relativeTime"]

    func compile(_ query: JSONObject) throws(ParseError) -> SQLFragment {
        if query["ACL"] != nil { throw ParseError(.invalidQuery, "Cannot query on ACL.") }
        var parts: [SQLFragment] = []
        for member in query {
            switch member.key {
            case "$or": parts.append(.any(try subqueries(member.value, "$or", message: "Bad $or format - use an array value.")))
            case "$and": parts.append(.all(try subqueries(member.value, "$and", message: "Bad $and format - use an array value.")))
            case "$nor":
                parts.append(SQLFragment.any(try subqueries(member.value, "$nor", message: "Bad $nor format - use an array of at least 1 value.")).negated)
            case "$relatedTo": parts.append(try relatedTo(member.value))
            default:
                try checkKeyName(member.key)
                parts.append(try condition(member.value, on: QueryTarget(key: member.key, schema: schema)))
            }
        }
        return .all(parts)
    }

    private func subqueries(_ value: JSONValue, _ key: String, message: String) throws(ParseError) -> [SQLFragment] {
        guard case .array(let items) = value, !items.isEmpty else { throw ParseError(.invalidQuery, message) }
        var parts: [SQLFragment] = []
        for item in items {
            guard case .object(let subquery) = item else { throw ParseError(.invalidQuery, message) }
            parts.append(try compile(subquery))
        }
        return parts
    }

    /// `^[a-zA-Z][a-zA-Z0-9_\.]*$` unless master; never an unknown `$` operator.
    func checkKeyName(_ key: String) throws(ParseError) {
        let valid =
            key.first.map { $0.isASCII && $0.isLetter } == true
            && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }
        guard valid || (isMaster && !key.hasPrefix("$")) || key == "_rperm" || key == "_wperm" else {
            throw ParseError(.invalidKeyName, "Invalid key name: \(key)")
        }
    }

    /// `{"$relatedTo":{"object":<owner pointer>,"key":"likes"}}`: objects linked from the owner.
    private func relatedTo(_ value: JSONValue) throws(ParseError) -> SQLFragment {
        guard case .string(let key)? = value["key"], let owner = value["object"].flatMap(Self.pointer) else {
            throw ParseError(.invalidQuery, "improper usage of $relatedTo")
        }
        guard case .relation? = schemas[owner.className]?.field(named: key)?.type else { return .alwaysFalse }
        let table = quoted(MirrorLayout.joinTable(owner: owner.className, field: key))
        return "\(column("objectId")) IN (SELECT relatedId FROM \(table) WHERE owningId = " + .parameter(.string(owner.objectId)) + ")"
    }

    // MARK: Constraints on one key

    private func condition(_ value: JSONValue, on target: QueryTarget) throws(ParseError) -> SQLFragment {
        guard case .object(let constraints) = value, !constraints.isEmpty, constraints.keys.allSatisfy({ $0.hasPrefix("$") }) else {
            return equality(value, on: target)
        }
        var parts: [SQLFragment] = []
        for constraint in constraints {
            let operand = constraint.value
            switch constraint.key {
            case "$eq": parts.append(equality(operand, on: target))
            case "$ne": parts.append(equality(operand, on: target).negated)
            case "$lt", "$lte", "$gt", "$gte": parts.append(comparison(Self.comparisonOperators[constraint.key]!, operand, on: target))
            case "$in": parts.append(membership(try Self.array(operand, "bad $in value"), on: target))
            case "$nin": parts.append(membership(try Self.array(operand, "bad $nin value"), on: target).negated)
            case "$exists": parts.append(exists(operand.isTruthy, on: target))
            case "$all": parts.append(try containsAll(try Self.array(operand, "bad $all value"), on: target))
            case "$containedBy": parts.append(containedBy(try Self.array(operand, "bad $containedBy: should be an array"), on: target))
            case "$regex":
                guard case .string(let pattern) = operand else { throw ParseError(.invalidJSON, "bad regex: \(operand.javaScriptString)") }
                parts.append(try regex(pattern, options: try Self.regexOptions(constraints), on: target))
            case "$options", "$maxDistance", "$maxDistanceInRadians", "$maxDistanceInMiles", "$maxDistanceInKilometers": continue
            case "$inQuery", "$notInQuery":
                let matches = try inQuery(operand, constraint.key, on: target)
                parts.append(constraint.key == "$inQuery" ? matches : matches.negated)
            case "$select", "$dontSelect":
                let matches = try select(operand, constraint.key, on: target)
                parts.append(constraint.key == "$select" ? matches : matches.negated)
            case "$nearSphere": parts.append(try nearSphere(operand, constraints, on: target).condition)
            case "$within": parts.append(try withinBox(operand, on: target))
            case "$geoWithin": parts.append(try geoWithin(operand, on: target))
            case "$geoIntersects": parts.append(try geoIntersects(operand, on: target))
            case "$text": parts.append(try textSearch(operand, on: target).condition)
            case let key where Self.unsupported.contains(key):
                throw ParseError(.invalidQuery, "\(key) is not supported by the mirror")
            default: throw ParseError(.invalidJSON, "bad constraint: \(constraint.key)")
            }
        }
        return .all(parts)
    }

    private static let comparisonOperators = ["$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="]

    private static func array(_ value: JSONValue, _ message: String) throws(ParseError) -> [JSONValue] {
        guard case .array(let items) = value else { throw ParseError(.invalidJSON, message) }
        return items
    }

    /// `$options` when it is a string (Parse ignores other values): letters of `imxs`.
    private static func regexOptions(_ constraints: JSONObject) throws(ParseError) -> String {
        guard case .string(let options)? = constraints["$options"] else { return "" }
        guard !options.isEmpty, options.allSatisfy({ "imxs".contains($0) }) else {
            throw ParseError(.invalidQuery, "Bad $options value for query: \(options)")
        }
        return options
    }

    /// Equality; on an Array field, membership (or the whole array when `value` is one).
    private func equality(_ value: JSONValue, on target: QueryTarget) -> SQLFragment {
        switch target {
        case .missing: return value == .null ? .alwaysTrue : .alwaysFalse
        case .relation(let field, let targetClass):
            guard let pointer = Self.pointer(value), pointer.className == targetClass else { return .alwaysFalse }
            return owners(field, linkedTo: [pointer.objectId])
        case .nested(let name, let path): return Self.compare(JSONSlot.nested(name, path: path), "=", value)
        case .column(let name, .array):
            if value == .null { return SQLFragment("\(column(name)) IS NULL") }
            let element = Self.anyElement(of: name, Self.compare(.element, "=", value))
            guard case .array = value else { return element }
            return .any(["\(column(name)) = " + .parameter(.string(Self.canonical(value))), element])
        case .column(let name, let type):
            if value == .null { return SQLFragment("\(column(name)) IS NULL") }
            guard let operand = Self.operand(value, for: type) else { return .alwaysFalse }
            return "\(column(name)) = " + .parameter(operand)
        }
    }

    private func comparison(_ op: String, _ value: JSONValue, on target: QueryTarget) -> SQLFragment {
        switch target {
        case .missing, .relation: return .alwaysFalse
        case .nested(let name, let path): return Self.compare(JSONSlot.nested(name, path: path), op, value)
        case .column(let name, .array): return Self.anyElement(of: name, Self.compare(.element, op, value))
        case .column(let name, let type):
            guard let operand = Self.operand(value, for: type) else { return .alwaysFalse }
            return "\(column(name)) \(op) " + .parameter(operand)
        }
    }

    /// `$in`: equal to one of the values (on an Array field: holds one of them).
    private func membership(_ values: [JSONValue], on target: QueryTarget) -> SQLFragment {
        switch target {
        case .relation(let field, let targetClass):
            return owners(field, linkedTo: values.compactMap(Self.pointer).filter { $0.className == targetClass }.map(\.objectId))
        case .column(let name, let type) where type != .array:
            let operands = values.compactMap { Self.operand($0, for: type) }
            var parts = operands.isEmpty ? [] : ["\(column(name)) IN (" + .parameters(operands) + ")"]
            if values.contains(.null) { parts.append(SQLFragment("\(column(name)) IS NULL")) }
            return .any(parts)
        case .column(let name, _):
            var parts = [Self.anyElement(of: name, .any(values.map { Self.compare(.element, "=", $0) }))]
            if values.contains(.null) { parts.append(SQLFragment("\(column(name)) IS NULL")) }
            return .any(parts)
        default: return .any(values.map { equality($0, on: target) })
        }
    }

    private func exists(_ present: Bool, on target: QueryTarget) -> SQLFragment {
        let test = present ? "IS NOT NULL" : "IS NULL"
        switch target {
        case .missing, .relation: return present ? .alwaysFalse : .alwaysTrue
        case .column(let name, _): return SQLFragment("\(column(name)) \(test)")
        case .nested(let name, let path): return JSONSlot.nested(name, path: path).type + " \(test)"
        }
    }

    /// `$all`: holds every value; items may be `{"$regex":…}` ("holds one matching each").
    private func containsAll(_ values: [JSONValue], on target: QueryTarget) throws(ParseError) -> SQLFragment {
        guard !values.isEmpty else { return .alwaysFalse }
        var parts: [SQLFragment] = []
        for value in values {
            if case .string(let pattern)? = value["$regex"], case .object(let item) = value {
                parts.append(try regex(pattern, options: try Self.regexOptions(item), on: target))
            } else {
                parts.append(equality(value, on: target))
            }
        }
        return .all(parts)
    }

    /// `$containedBy`: an Array field whose every element is one of the values.
    private func containedBy(_ values: [JSONValue], on target: QueryTarget) -> SQLFragment {
        guard case .column(let name, .array) = target else { return membership(values, on: target) }
        let allowed = SQLFragment.any(values.map { Self.compare(.element, "=", $0) })
        return "(\(column(name)) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(\(column(name))) AS j WHERE " + allowed.negated + "))"
    }

    private func regex(_ pattern: String, options: String, on target: QueryTarget) throws(ParseError) -> SQLFragment {
        _ = try regexes.regex(pattern, options: options)
        let call = { (text: SQLFragment) in
            "\(RegexFunction.name)(" + .parameters([.string(pattern), .string(options)]) + ", " + text + ")"
        }
        switch target {
        case .column(let name, .string): return call(SQLFragment(column(name)))
        case .column(let name, .array): return Self.anyElement(of: name, "(j.type = 'text' AND " + call(JSONSlot.element.value) + ")")
        case .nested(let name, let path):
            let slot = JSONSlot.nested(name, path: path)
            return "(" + slot.type + " = 'text' AND " + call(slot.value) + ")"
        default: return .alwaysFalse
        }
    }

    /// Owners whose Relation `field` links one of `relatedIds`.
    private func owners(_ field: String, linkedTo relatedIds: [String]) -> SQLFragment {
        let table = quoted(MirrorLayout.joinTable(owner: schema.className, field: field))
        return "\(column("objectId")) IN (SELECT owningId FROM \(table) WHERE relatedId IN (" + .parameters(relatedIds.map(ParseValue.string)) + "))"
    }

    // MARK: Values

    /// `EXISTS` an element of the Array column for which `condition` (on `j`) holds.
    static func anyElement(of name: String, _ condition: SQLFragment) -> SQLFragment {
        "EXISTS (SELECT 1 FROM json_each(\(column(name))) AS j WHERE " + condition + ")"
    }

    /// `value` in the column encoding of `type`; `nil` when it is of another type.
    private static func operand(_ value: JSONValue, for type: FieldType) -> ParseValue? {
        switch (type, value) {
        case (.string, .string(let s)): return .string(s)
        case (.number, .integer(let i)): return .integer(i)
        case (.number, .double(let d)): return .double(d)
        case (.boolean, .bool(let b)): return .integer(b ? 1 : 0)
        case (.date, _): return date(value).map { .string($0.iso) }
        case (.pointer(let target), _):
            guard let pointer = pointer(value), pointer.className == target else { return nil }
            return .string(pointer.objectId)
        case (.object, .object), (.geoPoint, .object), (.polygon, .object), (.file, .object), (.bytes, .object):
            guard let decoded = try? ParseValue(wire: value, as: type), decoded.fieldType == type else { return nil }
            return .string(decoded.wireJSON.serialized(sortedKeys: true))
        default: return nil
        }
    }

    /// Compares a JSON value held in a column (`slot`) with `value` by `op`, by the kind of `value`.
    private static func compare(_ slot: JSONSlot, _ op: String, _ value: JSONValue) -> SQLFragment {
        switch value {
        case .null: return op == "=" ? "(" + slot.type + " IS NULL OR " + slot.type + " = 'null')" : .alwaysFalse
        case .string(let s): return "(" + slot.type + " = 'text' AND " + slot.value + " \(op) " + .parameter(.string(s)) + ")"
        case .integer(let i): return "(" + slot.type + " IN ('integer', 'real') AND " + slot.value + " \(op) " + .parameter(.integer(i)) + ")"
        case .double(let d): return "(" + slot.type + " IN ('integer', 'real') AND " + slot.value + " \(op) " + .parameter(.double(d)) + ")"
        case .bool(let b): return "(" + slot.type + " IN ('true', 'false') AND (" + slot.type + " = 'true') \(op) " + .parameter(.integer(b ? 1 : 0)) + ")"
        case .object where value["__type"] == .string("Date"):
            guard let date = date(value) else { return .alwaysFalse }
            return "(" + slot.type + " = 'object' AND " + slot.member("__type") + " = 'Date' AND " + slot.member("iso") + " \(op) "
                + .parameter(.string(date.iso)) + ")"
        case .object where pointer(value) != nil:
            guard op == "=", let pointer = pointer(value) else { return .alwaysFalse }
            return "(" + slot.type + " = 'object' AND " + slot.member("className") + " = " + .parameter(.string(pointer.className))
                + " AND " + slot.member("objectId") + " = " + .parameter(.string(pointer.objectId)) + ")"
        case .object, .array:
            return "(" + slot.type + " IN ('object', 'array') AND " + slot.value + " \(op) " + .parameter(.string(canonical(value))) + ")"
        }
    }

    /// The JSON text the mirror stores for `value`: wire form with sorted keys.
    private static func canonical(_ value: JSONValue) -> String {
        ((try? ParseValue(wire: value))?.wireJSON ?? value).serialized(sortedKeys: true)
    }

    /// `{"__type":"Date","iso":…}`.
    private static func date(_ value: JSONValue) -> ParseDate? {
        guard value["__type"] == .string("Date"), case .string(let iso)? = value["iso"] else { return nil }
        return ParseDate(iso: iso)
    }

    /// `{"__type":"Pointer"|"Object","className":…,"objectId":…}`.
    static func pointer(_ value: JSONValue) -> PointerRef? {
        guard value["__type"] == .string("Pointer") || value["__type"] == .string("Object"),
            case .string(let className)? = value["className"], case .string(let objectId)? = value["objectId"]
        else { return nil }
        return PointerRef(className: className, objectId: objectId)
    }
}
