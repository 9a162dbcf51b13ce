import ParseModel
import PorterSQLite

/// A piece of SQL with its `?` parameters in the order they appear in the text.
struct SQLFragment {
    var sql: String
    var arguments: [ParseValue]

    init(_ sql: String, _ arguments: [ParseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    static let alwaysTrue = SQLFragment("1")
    static let alwaysFalse = SQLFragment("0")

    /// One bound value: `?`.
    static func parameter(_ value: ParseValue) -> SQLFragment { SQLFragment("?", [value]) }

    /// `?, ?, …` for each value.
    static func parameters(_ values: [ParseValue]) -> SQLFragment {
        SQLFragment(Array(repeating: "?", count: values.count).joined(separator: ", "), values)
    }

    static func + (a: SQLFragment, b: SQLFragment) -> SQLFragment { SQLFragment(a.sql + b.sql, a.arguments + b.arguments) }
    static func + (a: SQLFragment, b: String) -> SQLFragment { SQLFragment(a.sql + b, a.arguments) }
    static func + (a: String, b: SQLFragment) -> SQLFragment { SQLFragment(a + b.sql, b.arguments) }

    /// The parts joined by `separator`, in parentheses; `empty` when there are none. More than
    /// a few parts are grouped two by two into a balanced tree (`((a OR b) OR (c OR d))`): SQLite
    /// parses `a OR b OR c …` one level deeper per part and refuses expressions over 1000 deep.
    static func joined(_ parts: [SQLFragment], _ separator: String, empty: SQLFragment) -> SQLFragment {
        guard !parts.isEmpty else { return empty }
        if parts.count == 1 { return parts[0] }
        guard parts.count > 8 else {
            return SQLFragment("(" + parts.map(\.sql).joined(separator: " \(separator) ") + ")", parts.flatMap(\.arguments))
        }
        let middle = parts.count / 2
        let halves = [joined(Array(parts[..<middle]), separator, empty: empty), joined(Array(parts[middle...]), separator, empty: empty)]
        return SQLFragment("(" + halves[0].sql + " \(separator) " + halves[1].sql + ")", halves[0].arguments + halves[1].arguments)
    }

    static func all(_ parts: [SQLFragment]) -> SQLFragment { joined(parts, "AND", empty: .alwaysTrue) }
    static func any(_ parts: [SQLFragment]) -> SQLFragment { joined(parts, "OR", empty: .alwaysFalse) }

    /// True where `self` is not true, also where it is NULL.
    var negated: SQLFragment { "NOT coalesce(" + self + ", 0)" }

    /// Binds the arguments from parameter 1 on.
    func bind(to statement: SQLiteStatement) {
        for (i, argument) in arguments.enumerated() { statement.bind(argument, at: i + 1) }
    }
}
