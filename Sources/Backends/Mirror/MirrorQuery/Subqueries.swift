import ParseModel
import PorterSQLite

/// Sub-queries, as Parse Server's `RestQuery` runs them: `$inQuery`/`$notInQuery` match pointers to
/// the objects another query finds, `$select`/`$dontSelect` match the values of one key of them.
/// A sub-query is compiled into the SQL (no result list is built) and sees exactly what the same
/// reader could find with it as an outer query: the class's `find` permission and every object's ACL.
extension WhereCompiler {
    /// `{"$inQuery":{"className":"Post","where":{…}}}` on a Pointer, Relation or Array field (or a
    /// path into an Object); the caller negates it for `$notInQuery`.
    func inQuery(_ value: JSONValue, _ key: String, on target: QueryTarget) throws(ParseError) -> SQLFragment {
        guard case .string(let className)? = value["className"], !className.isEmpty, case .object(let constraints)? = value["where"] else {
            throw ParseError(.invalidQuery, "improper usage of \(key)")
        }
        guard let (_, condition) = try subquery(className, constraints) else { return .alwaysFalse }
        let ids = "SELECT t.\"objectId\" FROM \(quoted(className)) AS t WHERE " + condition
        switch target {
        case .column(let name, .pointer(let targetClass)):
            return targetClass == className ? "\(column(name)) IN (" + ids + ")" : .alwaysFalse
        case .relation(let field, let targetClass):
            guard targetClass == className else { return .alwaysFalse }
            let table = quoted(MirrorLayout.joinTable(owner: schema.className, field: field))
            return "\(column("objectId")) IN (SELECT owningId FROM \(table) WHERE relatedId IN (" + ids + "))"
        case .column(let name, .array): return Self.anyElement(of: name, Self.pointer(in: .element, to: className, among: ids))
        case .nested(let name, let path): return Self.pointer(in: .nested(name, path: path), to: className, among: ids)
        default: return .alwaysFalse
        }
    }

    /// `{"$select":{"query":{"className":"Team","where":{…}},"key":"city"}}`: the field equals the
    /// `key` of one of the objects found. Values compare within one type, as everywhere in the
    /// mirror: String, Number, Boolean, Date, Pointer (same target) and the JSON types by their
    /// stored text; Array fields hold one of the String, Number or Boolean values.
    func select(_ value: JSONValue, _ key: String, on target: QueryTarget) throws(ParseError) -> SQLFragment {
        let improper = ParseError(.invalidQuery, "improper usage of \(key)")
        guard case .object(let select) = value, select.members.count == 2, case .object(let query)? = select["query"],
            case .string(let className)? = query["className"], !className.isEmpty, case .string(let selectedKey)? = select["key"],
            !selectedKey.isEmpty
        else { throw improper }
        var constraints = JSONObject()
        switch query["where"] {
        case nil, .null?: break
        case .object(let given)?: constraints = given
        default: throw improper
        }
        try checkKeyName(selectedKey)
        guard let (subSchema, condition) = try subquery(className, constraints) else { return .alwaysFalse }
        let root = String(selectedKey.split(separator: ".", omittingEmptySubsequences: false)[0])
        if ProtectedFields(subSchema, access: access).unselectable.contains(root) { return .alwaysFalse }
        let source = QueryTarget(key: selectedKey, schema: subSchema)
        let values = { (type: FieldType) -> SQLFragment? in
            guard let (expression, filter) = Self.selectedValue(source, as: type) else { return nil }
            return "SELECT " + expression + " FROM \(quoted(className)) AS t WHERE " + SQLFragment.all([condition, filter])
        }
        switch target {
        case .column(let name, .array):
            return Self.anyElement(of: name, Self.slot(.element, in: values))
        case .column(_, .acl):
            return .alwaysFalse
        case .column(let name, let type):
            return values(type).map { "\(column(name)) IN (" + $0 + ")" } ?? .alwaysFalse
        case .nested(let name, let path):
            return Self.slot(.nested(name, path: path), in: values)
        default: return .alwaysFalse
        }
    }

    /// The condition (on `t`) of the objects of `className` the reader finds with `constraints`;
    /// `nil` when the class does not exist (and the reader may know that).
    private func subquery(_ className: String, _ constraints: JSONObject) throws(ParseError) -> (ClassSchema, SQLFragment)? {
        guard depth < QueryComplexity.subqueryDepth else { throw QueryComplexity.subqueryTooDeep }
        let subSchema = schemas[className]
        if !isMaster, let denial = access.subqueryDenial(className, subSchema) { throw denial }
        guard let subSchema else { return nil }
        try access.checkQueryable(constraints, order: [], schema: subSchema)
        var compiler = WhereCompiler(schema: subSchema, schemas: schemas, isMaster: isMaster, regexes: regexes)
        compiler.access = access
        compiler.textIndexes = textIndexes
        compiler.depth = depth + 1
        return (subSchema, .all([try compiler.compile(constraints), Self.readable(subSchema.className, by: access)]))
    }

    /// Unless master: rows without an ACL (public) or whose ACL grants read to a principal; of
    /// `_Session`, only the reader's own sessions (Parse Server's `RestQuery` adds `user == caller`,
    /// so a session without an ACL, such as one `pull` copied, stays private too).
    static func readable(_ className: String, by access: ReadAccess) -> SQLFragment {
        guard let principals = access.principals else { return .alwaysTrue }
        let acl =
            "(t.\"ACL\" IS NULL OR EXISTS (SELECT 1 FROM json_each(t.\"ACL\") AS a WHERE a.key IN ("
            + .parameters(principals.sorted().map(ParseValue.string)) + ") AND json_extract(a.value, '$.read') = 1))"
        guard className == "_Session" else { return acl }
        guard let userId = access.userId else { return .alwaysFalse }
        return .all([acl, "t.\"user\" = " + .parameter(.string(userId))])
    }

    /// A pointer to `className` whose objectId is among `ids`, held in `slot`.
    private static func pointer(in slot: JSONSlot, to className: String, among ids: SQLFragment) -> SQLFragment {
        "(" + slot.type + " = 'object' AND " + slot.member("className") + " = " + .parameter(.string(className))
            + " AND " + slot.member("objectId") + " IN (" + ids + "))"
    }

    /// A JSON value in `slot` (an array element or a path into an Object) among the selected
    /// String, Number or Boolean values.
    private static func slot(_ slot: JSONSlot, in values: (FieldType) -> SQLFragment?) -> SQLFragment {
        let kinds: [(FieldType, String)] = [(.string, "'text'"), (.number, "'integer', 'real'"), (.boolean, "'true', 'false'")]
        return .any(
            kinds.compactMap { type, names in
                values(type).map { "(" + slot.type + " IN (\(names)) AND " + slot.value + " IN (" + $0 + "))" }
            })
    }

    /// The SQL of the selected key's value in the column encoding of `type`, with the condition
    /// that it is one; `nil` when the key never holds a value of that type.
    private static func selectedValue(_ source: QueryTarget, as type: FieldType) -> (SQLFragment, SQLFragment)? {
        switch source {
        case .column(let name, let sourceType) where sourceType == type:
            return (SQLFragment(column(name)), SQLFragment("\(column(name)) IS NOT NULL"))
        case .nested(let name, let path):
            let slot = JSONSlot.nested(name, path: path)
            switch type {
            case .string: return (slot.value, slot.type + " = 'text'")
            case .number: return (slot.value, slot.type + " IN ('integer', 'real')")
            case .boolean: return (slot.value, slot.type + " IN ('true', 'false')")
            default: return nil
            }
        default: return nil
        }
    }
}
