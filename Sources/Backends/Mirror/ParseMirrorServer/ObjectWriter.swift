import ParseModel
import ParseRules

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

    /// What the write stores given the object's stored values (empty on create): the column
    /// values, the results Parse reports for operators (Increment and the array operators),
    /// and the relation links to add and remove. `AddUnique` and `Remove` compare by hashing,
    /// in time linear in the stored and given elements; an array past ``WriteBody/arrayElementLimit`` is 116.
    func changes(from stored: [String: ParseValue]) throws -> WriteChanges {
        var changes = WriteChanges()
        for (field, edit) in body.edits {
            guard let type = schema.field(named: field)?.type else { continue }  // null or Delete on an unknown field
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
            if case .array(let elements) = value, elements.count > WriteBody.arrayElementLimit {
                throw APIError.parse(
                    .objectTooLarge,
                    "\(className).\(field) would hold \(elements.count) elements; the server allows at most \(WriteBody.arrayElementLimit) in an Array")
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
