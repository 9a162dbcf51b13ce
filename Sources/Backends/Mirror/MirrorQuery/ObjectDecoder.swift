import ParseModel
import PorterSQLite

/// Reads rows of a class table (aliased `t`) into Parse REST objects, with the selected fields:
/// objectId, createdAt and updatedAt as plain ISO strings, the ACL when set, each non-null field in
/// its wire form (a Polygon's ring closed, as Parse Server answers it; the mirror keeps the points
/// as written), and every Relation field as
/// `{"__type":"Relation","className":…}`.
struct ObjectDecoder {
    /// The schema fields read from columns, in schema order.
    private let columns: [SchemaField]
    /// All output fields in schema order (the columns plus every Relation field).
    private let fields: [SchemaField]

    /// `keys` selects fields by their root name (`post.title` selects `post`); `excludeKeys`
    /// removes exact names. The default fields and Relation placeholders are always returned.
    init(schema: ClassSchema, keys: [String]?, excludeKeys: [String]?) {
        let selected = keys.map { Set($0.map { String($0.split(separator: ".", omittingEmptySubsequences: false)[0]) }) }
        let excluded = Set(excludeKeys ?? [])
        fields = schema.fields.filter { field in
            if case .relation = field.type { return true }
            return (selected?.contains(field.name) ?? true) && !excluded.contains(field.name)
        }
        columns = fields.filter { if case .relation = $0.type { false } else { true } }
    }

    /// `t."objectId", t."createdAt", t."updatedAt", t."ACL", t."<field>"…`
    var selectList: String {
        (ParseNames.defaultFields + columns.map(\.name)).map(column).joined(separator: ", ")
    }

    /// How many columns ``selectList`` selects.
    var columnCount: Int { ParseNames.defaultFields.count + columns.count }

    /// The object of the current row of a statement selecting ``selectList``.
    func decode(_ row: SQLiteStatement) -> JSONObject {
        var object = JSONObject()
        object["objectId"] = row.text(at: 0).map(JSONValue.string)
        var columnIndex = ParseNames.defaultFields.count
        for field in fields {
            if case .relation(let target) = field.type {
                object[field.name] = ParseValue.relation(RelationRef(className: target)).wireJSON
                continue
            }
            if case .polygon(let polygon)? = row.value(at: columnIndex, as: field.type) {
                object[field.name] = ParseValue.polygon(polygon.closed).wireJSON
            } else if let value = row.value(at: columnIndex, as: field.type), value != .null {
                object[field.name] = value.wireJSON
            }
            columnIndex += 1
        }
        for (name, index) in [("createdAt", 1), ("updatedAt", 2)] {
            guard let text = row.text(at: index) else { continue }
            object[name] = .string(ParseDate(iso: text)?.iso ?? text)
        }
        if case .acl(let acl)? = row.value(at: 3, as: .acl) { object["ACL"] = ParseValue.acl(acl).wireJSON }
        return object
    }
}
