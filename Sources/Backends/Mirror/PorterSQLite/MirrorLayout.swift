import CSQLite
import ParseModel

/// Names and column types of the mirror's tables.
package enum MirrorLayout {
    /// `_SCHEMA` and the `_PorterMigrations` history (one row per applied, failed or started
    /// version), created with every mirror.
    package static let bookkeepingTablesSQL = [
        "CREATE TABLE IF NOT EXISTS _SCHEMA (className TEXT PRIMARY KEY, schema TEXT)",
        """
        CREATE TABLE IF NOT EXISTS _PorterMigrations (version TEXT PRIMARY KEY, name TEXT, checksum TEXT, appliedAt TEXT, \
        durationMs INTEGER, success INTEGER, host TEXT, error TEXT)
        """,
    ]

    /// `_PorterPull`, created by the first pull: per class, the server it was pulled from (a URL
    /// without keys), the watermark (the newest `updatedAt` the server had when the pull began;
    /// the next pull reads the objects updated since) and when it was pulled.
    package static let pullTableSQL = "CREATE TABLE IF NOT EXISTS _PorterPull (className TEXT PRIMARY KEY, server TEXT, watermark TEXT, pulledAt TEXT)"

    /// Records a pull: `?1` class, `?2` server, `?3` watermark, `?4` time of the pull.
    package static let recordPullSQL = """
        INSERT INTO _PorterPull (className, server, watermark, pulledAt) VALUES (?1, ?2, ?3, ?4) \
        ON CONFLICT(className) DO UPDATE SET server = excluded.server, watermark = excluded.watermark, pulledAt = excluded.pulledAt
        """

    /// Stores a class's `/schemas` JSON: `?1` the class name, `?2` the JSON text.
    package static let saveSchemaSQL = "INSERT INTO _SCHEMA (className, schema) VALUES (?1, ?2) ON CONFLICT(className) DO UPDATE SET schema = excluded.schema"

    /// The table of a new class: the default columns only.
    ///
    /// `fields` other than Relations become columns of the new table at once: one statement,
    /// where adding them one by one would re-read the growing table definition each time.
    package static func createClassTableSQL(_ className: String, fields: [SchemaField] = []) -> String {
        let columns = fields.filter { if case .relation = $0.type { false } else { true } }
            .map { ", \(quoted($0.name)) \(columnType($0.type))" }.joined()
        return "CREATE TABLE \(quoted(className)) (\"objectId\" TEXT PRIMARY KEY, \"createdAt\" TEXT, \"updatedAt\" TEXT, \"ACL\" TEXT\(columns))"
    }

    /// A new field: a column, or a join table for a Relation.
    package static func addFieldSQL(className: String, _ field: SchemaField) -> String {
        if case .relation = field.type {
            let table = joinTable(owner: className, field: field.name)
            return "CREATE TABLE IF NOT EXISTS \(quoted(table)) (owningId TEXT, relatedId TEXT, PRIMARY KEY(owningId, relatedId)) WITHOUT ROWID"
        }
        return "ALTER TABLE \(quoted(className)) ADD COLUMN \(quoted(field.name)) \(columnType(field.type))"
    }

    package static func joinTable(owner: String, field: String) -> String { "_Join:\(field):\(owner)" }

    /// The `_User` column of bcrypt password hashes, as Parse Server names it; no `_SCHEMA` field
    /// names it, so queries and exports never read it.
    package static let passwordHashColumn = "_hashed_password"

    /// String → TEXT, Number → NUMERIC, Boolean → INTEGER, Date and Pointer → TEXT, the rest JSON TEXT.
    package static func columnType(_ type: FieldType) -> String {
        switch type {
        case .number: "NUMERIC"
        case .boolean: "INTEGER"
        default: "TEXT"
        }
    }
}

/// A value as a mirror column stores it (Docs/MirrorLayout.md#columns-and-values): numbers and
/// booleans as numbers, dates as ISO text, pointers as the target's objectId, the rest as JSON
/// text with sorted keys. Writing (``SQLiteStatement/bind(_:at:)``) and comparing with a stored
/// row (``SQLiteStatement/holds(_:at:affinity:)``) both go through it, so they cannot disagree.
package enum StoredValue {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)

    package init(_ value: ParseValue) {
        switch value {
        case .null: self = .null
        case .string(let s): self = .text(s)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .boolean(let b): self = .integer(b ? 1 : 0)
        case .date(let d): self = .text(d.iso)
        case .pointer(let p): self = .text(p.objectId)
        default: self = .text(value.wireJSON.serialized(sortedKeys: true))
        }
    }
}

extension SQLiteStatement {
    /// Binds a value in the mirror's column encoding (``StoredValue``).
    package func bind(_ value: ParseValue, at index: Int) {
        switch StoredValue(value) {
        case .null: bindNull(at: index)
        case .integer(let i): bind(integer: i, at: index)
        case .double(let d): bind(double: d, at: index)
        case .text(let t): bind(text: t, at: index)
        }
    }

    /// Reads a column written by ``bind(_:at:)`` back as a value of `type`; `nil` when the
    /// stored text does not decode as that type.
    package func value(at column: Int, as type: FieldType) -> ParseValue? {
        let storage = storageClass(at: column)
        if storage == SQLITE_NULL { return .null }
        switch type {
        case .number:
            return storage == SQLITE_INTEGER ? .integer(integer(at: column)) : .double(double(at: column))
        case .boolean:
            return .boolean(integer(at: column) != 0)
        case .string:
            return text(at: column).map(ParseValue.string)
        case .date:
            if let date = withText(at: column, ParseDate.init(canonicalUTF8:)) ?? nil { return .date(date) }
            return text(at: column).flatMap(ParseDate.init(iso:)).map(ParseValue.date)
        case .pointer(let target):
            return text(at: column).map { .pointer(PointerRef(className: target, objectId: $0)) }
        case .relation(let target):
            return .relation(RelationRef(className: target))
        default:
            guard let text = text(at: column), let json = try? JSONParser.parse(text) else { return nil }
            return try? ParseValue(stored: json, as: type)
        }
    }
}

/// How SQLite converts values compared with a column (its affinity), as far as deciding
/// whether a stored value equals a bound one needs.
package enum ColumnAffinity {
    /// TEXT: bound numbers are compared as text.
    case text
    /// INTEGER or NUMERIC: bound text that looks like a number is compared as a number.
    case numeric
    /// REAL, BLOB or none.
    case other

    /// The affinity SQLite gives a column declared with `type` (its rules, in their order).
    package init(declaredType type: String?) {
        let type = (type ?? "").uppercased()
        if type.contains("INT") {
            self = .numeric
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.isEmpty || type.contains("BLOB") || type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .other
        } else {
            self = .numeric
        }
    }
}

extension SQLiteStatement {
    /// Whether the column surely holds what ``bind(_:at:)`` of `value` would store there: `IS`
    /// would find them equal. `false` when they differ and when that cannot be told without
    /// SQLite's own conversions (text in a numeric column, a number in a text column, NaN…);
    /// an `UPDATE … WHERE column IS NOT ?` then decides.
    package func holds(_ value: ParseValue, at column: Int, affinity: ColumnAffinity) -> Bool {
        let storage = storageClass(at: column)
        switch StoredValue(value) {
        case .null:
            return storage == SQLITE_NULL
        case .integer(let i):
            return affinity == .numeric && holdsNumber(equalTo: i, at: column, storage: storage)
        case .double(let d):
            guard affinity == .numeric else { return false }
            if storage == SQLITE_FLOAT { return double(at: column) == d }
            return storage == SQLITE_INTEGER && Int64(exactly: d) == integer(at: column)
        case .text(let t):
            return affinity == .text && holdsText(t, at: column)
        }
    }

    private func holdsNumber(equalTo value: Int64, at column: Int, storage: Int32) -> Bool {
        if storage == SQLITE_INTEGER { return integer(at: column) == value }
        return storage == SQLITE_FLOAT && Int64(exactly: double(at: column)) == value
    }
}
