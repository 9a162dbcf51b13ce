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

    func edit(of field: String) -> FieldEdit? { edits.last { $0.field == field }?.edit }

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
        guard case .array(let items)? = object["objects"] else { throw APIError.parse(.invalidJSON, "objects to \(op == "AddRelation" ? "add" : "remove") must be an array") }
        guard items.count <= WritePlan.arrayElementLimit else {
            throw APIError.parse(.objectTooLarge, "\(op) names \(items.count) objects; the server allows at most \(WritePlan.arrayElementLimit) in one write")
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

/// A write body checked against its class's schema, with the fields it adds, defaults filled
/// in (create) and required fields enforced; nothing has been written yet.
struct WritePlan {
    let className: String
    /// The class's schema after the write: the current one, or a new class's system fields, plus `newFields`.
    private(set) var schema: ClassSchema
    let createsClass: Bool
    /// Fields the write adds, typed by their first non-null value (schema auto-growth).
    private(set) var newFields: [SchemaField] = []
    private(set) var body: WriteBody
    /// Fields a create fills with their `defaultValue`.
    private(set) var defaulted: [String] = []

    /// Types each edit against the schema (111 on a mismatch), grows it (the caller needs
    /// `addField` unless master, checked before any field is typed; a new class needs the
    /// master key and is checked before; a class may not grow past `fieldLimit` fields, 255),
    /// then fills `defaultValue`s and checks `required` fields (142) on create, or checks that
    /// an update does not clear a required field. Linear in the fields of the class and the body.
    init(className: String, body: WriteBody, current: ClassSchema?, caller: Caller, creating: Bool, fieldLimit: Int = .max) throws {
        self.className = className
        self.body = body
        createsClass = current == nil
        schema = current ?? ClassSchema(className: className, fields: SystemClasses.defaultFields(of: className))
        var known = Dictionary(schema.fields.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        let adding = body.edits.filter { known[$0.0] == nil && $0.1.fieldType != nil }.count
        if let current, adding > 0 { try caller.checkPermission("addField", on: current) }
        guard schema.fields.count + adding <= fieldLimit else {
            throw APIError.tooManyFields(className, count: schema.fields.count + adding, limit: fieldLimit)
        }
        var geoPoint = schema.fields.first { $0.type == .geoPoint }?.name
        for (field, edit) in body.edits {
            guard let type = edit.fieldType else { continue }
            if let existing = known[field] {
                guard existing == type else {
                    throw APIError.parse(.incorrectType, "schema mismatch for \(className).\(field); expected \(existing) but got \(type)")
                }
                continue
            }
            if type == .geoPoint, let other = geoPoint {
                throw APIError.parse(.incorrectType, "currently, only one GeoPoint field may exist in an object. Adding \(field) when \(other) already exists.")
            }
            if type == .geoPoint { geoPoint = field }
            let added = SchemaField(name: field, type: type)
            known[field] = type
            newFields.append(added)
            schema.fields.append(added)
        }
        if creating {
            try completeCreate()
        } else {
            for (field, edit) in body.edits where edit.clears && schema.field(named: field)?.required == true {
                throw APIError.parse(.validationError, "\(field) is required")
            }
        }
    }

    private mutating func completeCreate() throws {
        for field in schema.fields {
            guard let value = field.defaultValue, body.edit(of: field.name)?.clears ?? true else { continue }
            body.edits.removeAll { $0.field == field.name }
            body.edits.append((field.name, .set(value)))
            defaulted.append(field.name)
        }
        for field in schema.fields where field.required {
            guard let edit = body.edit(of: field.name), !edit.clears else { throw APIError.parse(.validationError, "\(field.name) is required") }
        }
        if className == "_Role" {
            guard case .some(.some) = body.acl else { throw APIError.parse(.incorrectType, "ACL is required.") }
            guard case .set(.string)? = body.edit(of: "name") else { throw APIError.parse(.incorrectType, "name is required.") }
        }
    }

    /// Elements an Array field may hold after a write (a value or an operator's result): past
    /// it the write is 116 before anything is stored, so no array grows without bound and no
    /// later write has to read and rewrite one of millions inside the write lock.
    static let arrayElementLimit = 100_000

    /// What the write stores given the object's stored values (empty on create): the column
    /// values, the results Parse reports for operators (Increment and the array operators),
    /// and the relation links to add and remove. `AddUnique` and `Remove` compare by hashing,
    /// in time linear in the stored and given elements; an array past ``arrayElementLimit`` is 116.
    func changes(from stored: [String: ParseValue]) throws -> WriteChanges {
        var changes = WriteChanges()
        for (field, edit) in body.edits {
            guard let type = schema.field(named: field)?.type else { continue }   // null or Delete on an unknown field
            if case .relation = type {
                if case .relation(_, let add, let remove) = edit { changes.links.append((field, add, remove)) }
                continue
            }
            let value: ParseValue
            switch edit {
            case .set(let v): value = v
            case .delete: value = .null
            case .increment(let amount): value = Self.sum(stored[field], amount)
            case .add(let items): value = .array(Self.items(stored[field]) + items)
            case .addUnique(let items):
                var result = Self.items(stored[field])
                var present = Set(result)
                for item in items where present.insert(item).inserted { result.append(item) }
                value = .array(result)
            case .remove(let items):
                let removed = Set(items)
                value = .array(Self.items(stored[field]).filter { !removed.contains($0) })
            case .relation: continue
            }
            if case .array(let elements) = value, elements.count > Self.arrayElementLimit {
                throw APIError.parse(.objectTooLarge, "\(className).\(field) would hold \(elements.count) elements; the server allows at most \(Self.arrayElementLimit) in an Array")
            }
            changes.columns.append((field, value))
            switch edit {
            case .increment, .add, .addUnique, .remove: changes.results[field] = value.wireJSON
            default: break
            }
        }
        return changes
    }

    private static func items(_ stored: ParseValue?) -> [ParseValue] {
        if case .array(let items)? = stored { return items }
        return []
    }

    /// `stored + amount`: exact for integers that do not overflow, else as doubles; a missing value counts as 0.
    private static func sum(_ stored: ParseValue?, _ amount: ParseValue) -> ParseValue {
        switch (stored ?? .null, amount) {
        case (.integer(let a), .integer(let b)):
            let (result, overflow) = a.addingReportingOverflow(b)
            return overflow ? .double(Double(a) + Double(b)) : .integer(result)
        case (.integer(let a), .double(let b)): return .double(Double(a) + b)
        case (.double(let a), .integer(let b)): return .double(a + Double(b))
        case (.double(let a), .double(let b)): return .double(a + b)
        default: return amount
        }
    }
}

/// What one write stores: see ``WritePlan/changes(from:)``.
struct WriteChanges {
    var columns: [(name: String, value: ParseValue)] = []
    var results = JSONObject()
    var links: [(field: String, add: [String], remove: [String])] = []
}
