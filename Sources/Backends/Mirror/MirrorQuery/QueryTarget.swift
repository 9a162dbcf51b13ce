import ParseModel
import PorterSQLite

/// What a key of a `where` or `order` names in the class table, aliased `t`.
enum QueryTarget {
    /// A column of the class: a default field or a schema field other than a Relation.
    case column(String, FieldType)
    /// A path (`$."b"."c"`) into an Object column, from a dotted key `a.b.c`.
    case nested(column: String, path: String)
    /// A Relation field: its links live in a join table.
    case relation(field: String, targetClass: String)
    /// A field the class does not have: always missing.
    case missing

    init(key: String, schema: ClassSchema) {
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let root = parts[0]
        let type: FieldType? =
            switch root {
            case "objectId": .string
            case "createdAt", "updatedAt": .date
            default: schema.field(named: root)?.type
            }
        switch (type, parts.count) {
        case (nil, _): self = .missing
        case (.relation(let target)?, 1): self = .relation(field: root, targetClass: target)
        case (let type?, 1): self = .column(root, type)
        case (.object?, _) where parts.dropFirst().allSatisfy({ !$0.isEmpty && !$0.contains("\"") }):
            self = .nested(column: root, path: "$" + parts.dropFirst().map { ".\"\($0)\"" }.joined())
        default: self = .missing
        }
    }
}

/// The name of the class table's rowid (`_rowid_` unless the class has such a field), by which
/// results without an order come in insertion order.
func rowid(of schema: ClassSchema) -> String {
    let taken = Set(schema.fields.map(\.name))
    return ["_rowid_", "rowid", "oid"].first { !taken.contains($0) } ?? "\"objectId\""
}

/// A column reference `t."name"`.
func column(_ name: String) -> String { "t." + quoted(name) }

/// A JSON value held in a column: an element of an Array column (the `json_each` row `j`), or a
/// path into an Object column. Its SQL type is `json_each`'s: `text`, `integer`, `real`, `true`,
/// `false`, `null`, `object` or `array`.
struct JSONSlot {
    let type: SQLFragment
    let value: SQLFragment
    private let base: SQLFragment
    private let path: String?

    /// The current element of `json_each(…) AS j`.
    static let element = JSONSlot(type: SQLFragment("j.type"), value: SQLFragment("j.value"), base: SQLFragment("j.value"), path: nil)

    /// `path` inside the JSON text of `columnName`.
    static func nested(_ columnName: String, path: String) -> JSONSlot {
        JSONSlot(
            type: "json_type(\(column(columnName)), " + .parameter(.string(path)) + ")",
            value: "json_extract(\(column(columnName)), " + .parameter(.string(path)) + ")",
            base: SQLFragment(column(columnName)), path: path)
    }

    /// The member `name` of the object held here.
    func member(_ name: String) -> SQLFragment {
        "json_extract(" + base + ", " + .parameter(.string((path ?? "$") + ".\"\(name)\"")) + ")"
    }
}
