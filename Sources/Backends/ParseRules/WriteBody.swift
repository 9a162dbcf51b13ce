import ParseModel

/// One field's change as a write body asks for it (Docs/ParseServer.md#update-operators).
package enum FieldEdit {
    /// A value; `.null` clears the field; a Relation placeholder only declares the field.
    case set(ParseValue)
    case delete
    case increment(ParseValue)
    case add([ParseValue])
    case addUnique([ParseValue])
    case remove([ParseValue])
    /// `AddRelation`/`RemoveRelation` (or a `Batch` of them): objectIds of `targetClass`.
    case relation(targetClass: String?, add: [String], remove: [String])

    /// The type the field must have; `nil` when any type will do.
    package var fieldType: FieldType? {
        switch self {
        case .set(let value): value.fieldType
        case .delete: nil
        case .increment: .number
        case .add, .addUnique, .remove: .array
        case .relation(let target, _, _): target.map { .relation(targetClass: $0) }
        }
    }

    /// Whether the field is left empty: null or `Delete`.
    package var clears: Bool {
        switch self {
        case .set(.null), .delete: true
        default: false
        }
    }
}

/// A create or update body decoded and checked member by member, before any schema is read.
package struct WriteBody {
    /// Elements an Array field may hold after a write (a value or an operator's result): past
    /// it the write is 116 before anything is stored, so no array grows without bound and no
    /// later write has to read and rewrite one of millions inside the write lock.
    package static let arrayElementLimit = 100_000

    /// `nil` when the body does not mention the ACL; `.some(nil)` when it removes it.
    package var acl: ParseACL??
    package var edits: [(field: String, edit: FieldEdit)] = []

    /// `objectId`, `createdAt` and `updatedAt` are skipped (the routes handle the objectId);
    /// invalid names are 105, malformed values 111, malformed operators 107, unknown ones 108.
    package init(_ body: JSONObject) throws {
        for member in body {
            switch member.key {
            case "objectId", "createdAt", "updatedAt":
                continue
            case "ACL":
                acl = .some(try Self.acl(member.value))
            default:
                guard ParseNames.fieldNameProblem(member.key) == nil else { throw APIError.parse(.invalidKeyName, "Invalid field name: \(member.key).") }
                try Self.checkNestedKeys(member.value)
                edits.append((member.key, try Self.edit(member.value)))
            }
        }
    }

    package func edit(of field: String) -> FieldEdit? { edits.last { $0.field == field }?.edit }

    private static func acl(_ json: JSONValue) throws -> ParseACL? {
        switch json {
        case .null: return nil
        case .object(let object) where object["__op"] == .string("Delete"): return nil
        case .object(let object):
            do { return try ParseACL(wire: object) } catch { throw APIError.parse(.invalidACL, error.message) }
        default: throw APIError.parse(.invalidACL, "invalid ACL: expected an object like {\"*\":{\"read\":true}}")
        }
    }

    /// Nested object keys may not hold `$` or `.` (121); `constructor` and `__proto__` are
    /// refused anywhere (105, Parse's `requestKeywordDenylist`).
    private static func checkNestedKeys(_ json: JSONValue) throws {
        switch json {
        case .array(let items):
            for item in items { try checkNestedKeys(item) }
        case .object(let object):
            for member in object {
                if member.key == "constructor" || member.key == "__proto__" {
                    throw APIError.parse(.invalidKeyName, "Prohibited keyword in request data: {\"key\":\"\(member.key)\"}.")
                }
                if member.key.utf8.contains(where: { $0 == UInt8(ascii: "$") || $0 == UInt8(ascii: ".") }) {
                    throw APIError.parse(.invalidNestedKey, "Nested keys should not contain the '$' or '.' characters")
                }
                try checkNestedKeys(member.value)
            }
        default:
            break
        }
    }

    private static func edit(_ json: JSONValue) throws -> FieldEdit {
        guard case .object(let object) = json, case .string(let op)? = object["__op"] else {
            if json["__type"] == .string("Polygon"), case .array(let points)? = json["coordinates"], points.count < 3 {
                throw APIError.parse(.invalidJSON, "Polygon must have at least 3 values")
            }
            return .set(try value(json))
        }
        switch op {
        case "Delete":
            return .delete
        case "Increment":
            guard let amount = object["amount"], amount.doubleValue != nil else {
                throw APIError.parse(.invalidJSON, "incrementing must provide a number")
            }
            return .increment(try value(amount))
        case "Add", "AddUnique", "Remove":
            guard case .array(let items)? = object["objects"] else {
                throw APIError.parse(.invalidJSON, op == "Remove" ? "objects to remove must be an array" : "objects to add must be an array")
            }
            let values = try items.map(value)
            return op == "Add" ? .add(values) : op == "AddUnique" ? .addUnique(values) : .remove(values)
        case "AddRelation", "RemoveRelation":
            return try relationEdit(op, object)
        case "Batch":
            guard case .array(let ops)? = object["ops"] else { throw APIError.parse(.invalidJSON, "Batch ops must be an array") }
            var merged = FieldEdit.relation(targetClass: nil, add: [], remove: [])
            for case .object(let inner) in ops {
                guard case .string(let innerOp)? = inner["__op"], innerOp == "AddRelation" || innerOp == "RemoveRelation" else {
                    throw APIError.parse(.invalidJSON, "Batch ops must be AddRelation or RemoveRelation")
                }
                merged = try merge(merged, relationEdit(innerOp, inner))
            }
            return merged
        default:
            throw APIError.parse(.commandUnavailable, "The \(op) operator is not supported yet.")
        }
    }

    /// A written value: Parse's wire encoding, where `{"__type":"Object"}` (an included
    /// object) is not accepted.
    private static func value(_ json: JSONValue) throws -> ParseValue {
        if json["__type"] == .string("Object") { throw APIError.parse(.incorrectType, "This is not a valid Object") }
        do { return try ParseValue(wire: json) } catch { throw APIError.parse(.incorrectType, error.message) }
    }

    private static func relationEdit(_ op: String, _ object: JSONObject) throws -> FieldEdit {
        guard case .array(let items)? = object["objects"] else {
            throw APIError.parse(.invalidJSON, "objects to \(op == "AddRelation" ? "add" : "remove") must be an array")
        }
        guard items.count <= Self.arrayElementLimit else {
            throw APIError.parse(.objectTooLarge, "\(op) names \(items.count) objects; the server allows at most \(Self.arrayElementLimit) in one write")
        }
        var target: String?
        var ids: [String] = []
        for item in items {
            guard case .pointer(let pointer) = try value(item) else { throw APIError.parse(.incorrectType, "\(op) needs Pointers") }
            if let target, target != pointer.className {
                throw APIError.parse(.incorrectType, "schema mismatch: \(op) objects point at \(target) and \(pointer.className)")
            }
            target = pointer.className
            ids.append(pointer.objectId)
        }
        return op == "AddRelation" ? .relation(targetClass: target, add: ids, remove: []) : .relation(targetClass: target, add: [], remove: ids)
    }

    private static func merge(_ a: FieldEdit, _ b: FieldEdit) throws -> FieldEdit {
        guard case .relation(let t1, let add1, let remove1) = a, case .relation(let t2, let add2, let remove2) = b else { return b }
        if let t1, let t2, t1 != t2 { throw APIError.parse(.incorrectType, "schema mismatch: relation objects point at \(t1) and \(t2)") }
        return .relation(targetClass: t1 ?? t2, add: add1 + add2, remove: remove1 + remove2)
    }
}
