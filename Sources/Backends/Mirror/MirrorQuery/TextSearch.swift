import CSQLite
import ParseModel
import PorterSQLite

/// `$text` full-text indexes: SQLite FTS5 tables in the connection's private `temp` schema, one
/// per class, String field, tokenizer and reader, built on the first `$text` query that needs
/// one. An index holds only the rows its reader may read: bm25's relevance counts the rows that
/// hold a word, so an index over every row would tell, score by score, which words objects the
/// reader cannot see contain.
///
/// The mirror file itself is never changed. An index is rebuilt from the class table whenever the
/// mirror may have changed since it was built: another connection or process committed a write
/// (`PRAGMA data_version` moved) or this connection wrote (its change count moved). Searches
/// therefore always see the data of their own read snapshot; a class that is written to between
/// searches is re-indexed once per search.
final class TextIndexes {
    private struct Version: Equatable {
        let dataVersion: Int64
        let changes: Int64
    }

    private let database: SQLiteDatabase
    private var built: [String: (table: String, version: Version)] = [:]
    /// Changes this connection made to the indexes themselves, which do not count as writes.
    private var ownChanges: Int64 = 0
    private var nextNumber = 0
    /// Indexes kept per connection; more are dropped and rebuilt when needed.
    private static let capacity = 16

    init(database: SQLiteDatabase) {
        self.database = database
    }

    /// The name of the current FTS5 table (in `temp`) over `field` of the rows of `className`
    /// (aliased `t`) that meet `readable`, by the class table's `rowid`.
    func table(className: String, field: String, rowid: String, tokenizer: String, readable: SQLFragment) throws(ParseError) -> String {
        let key = ([className, field, tokenizer, readable.sql] + readable.arguments.map { "\($0)" }).joined(separator: "\u{0}")
        let version = try currentVersion()
        if let index = built[key], index.version == version { return index.table }
        if built[key] == nil && built.count >= Self.capacity {
            for index in built.values { try execute("DROP TABLE IF EXISTS temp.\(quoted(index.table))") }
            built.removeAll()
        }
        let table = built[key]?.table ?? "parse_text_\(nextNumber)"
        if built[key] == nil { nextNumber += 1 }
        let before = sqlite3_total_changes64(database.handle)
        try execute("DROP TABLE IF EXISTS temp.\(quoted(table))")
        try execute("CREATE VIRTUAL TABLE temp.\(quoted(table)) USING fts5(body, content='', tokenize='\(tokenizer)')")
        let fill =
            "INSERT INTO temp.\(quoted(table))(rowid, body) SELECT t.\(rowid), t.\(quoted(field)) FROM main.\(quoted(className)) AS t "
            + "WHERE typeof(t.\(quoted(field))) = 'text' AND " + readable
        do {
            let statement = try database.prepare(fill.sql)
            fill.bind(to: statement)
            try statement.run()
        } catch { throw ParseError(.internalServerError, error.message) }
        ownChanges += sqlite3_total_changes64(database.handle) - before
        built[key] = (table, version)
        return table
    }

    private func currentVersion() throws(ParseError) -> Version {
        let dataVersion: Int64
        do {
            let statement = try database.prepare("PRAGMA main.data_version")
            dataVersion = try statement.step() ? statement.integer(at: 0) : 0
        } catch { throw ParseError(.internalServerError, error.message) }
        return Version(dataVersion: dataVersion, changes: sqlite3_total_changes64(database.handle) - ownChanges)
    }

    private func execute(_ sql: String) throws(ParseError) {
        do { try database.execute(sql) } catch { throw ParseError(.internalServerError, error.message) }
    }
}

/// `{"$text":{"$search":{"$term":…,"$language":…,"$caseSensitive":…,"$diacriticSensitive":…}}}` on
/// a String field, checked as Parse Server checks it. The term is read as MongoDB reads it: words
/// match when any of them is present (after stemming for English), `"quoted phrases"` must all be
/// present, `-word` excludes. Matching ignores case; `$caseSensitive: true` is refused (107), as
/// Parse's Postgres adapter refuses it.
extension WhereCompiler {
    struct TextMatch {
        let condition: SQLFragment
        /// The relevance (FTS5's bm25, higher is better) of the row, for `order=$score`/`keys=$score`.
        let score: SQLFragment?
    }

    func textSearch(_ value: JSONValue, on target: QueryTarget) throws(ParseError) -> TextMatch {
        let invalid = { (message: String) in ParseError(.invalidJSON, "bad $text: \(message)") }
        guard case .object(let search)? = value["$search"] else { throw invalid("$search, should be object") }
        guard case .string(let term)? = search["$term"], !term.isEmpty else { throw invalid("$term, should be string") }
        var stemming = true
        switch search["$language"] {
        case nil, .null?: break
        case .string(let language)?: stemming = ["", "en", "english"].contains(language.lowercased())
        default: throw invalid("$language, should be string")
        }
        switch search["$caseSensitive"] {
        case nil, .null?, .bool(false)?: break
        case .bool(true)?: throw invalid("$caseSensitive not supported, please use $regex or create a separate lower case column.")
        default: throw invalid("$caseSensitive, should be boolean")
        }
        var diacriticSensitive = false
        switch search["$diacriticSensitive"] {
        case nil, .null?: break
        case .bool(let flag)?: diacriticSensitive = flag
        default: throw invalid("$diacriticSensitive, should be boolean")
        }
        guard let textIndexes else { throw ParseError(.invalidQuery, "$text is not supported here") }
        guard case .column(let name, .string) = target, let match = Self.ftsQuery(term) else { return TextMatch(condition: .alwaysFalse, score: nil) }
        let tokenizer = (stemming ? "porter " : "") + "unicode61 remove_diacritics " + (diacriticSensitive ? "0" : "2")
        let table = quoted(
            try textIndexes.table(
                className: schema.className, field: name, rowid: rowid(of: schema), tokenizer: tokenizer,
                readable: Self.readable(schema.className, by: access)))
        let rowidColumn = "t." + rowid(of: schema)
        return TextMatch(
            condition: "\(rowidColumn) IN (SELECT rowid FROM temp.\(table) WHERE \(table) MATCH " + .parameter(.string(match)) + ")",
            score: "(SELECT -rank FROM temp.\(table) WHERE \(table) MATCH " + .parameter(.string(match)) + " AND rowid = \(rowidColumn))")
    }

    /// The score of the first top-level `$text` constraint of `query`.
    func textScore(_ query: JSONObject) throws(ParseError) -> SQLFragment? {
        for member in query where !member.key.hasPrefix("$") {
            guard case .object(let constraints) = member.value, let text = constraints["$text"] else { continue }
            return try textSearch(text, on: QueryTarget(key: member.key, schema: schema)).score
        }
        return nil
    }

    /// An FTS5 query for a MongoDB `$search` term, every word quoted so that no input is FTS5
    /// syntax; `nil` when it has nothing to look for.
    static func ftsQuery(_ term: String) -> String? {
        var words: [String] = [], phrases: [String] = [], excluded: [String] = []
        let quote = { (text: String) in "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var rest = Substring(term)
        while let start = rest.firstIndex(where: { !$0.isWhitespace }) {
            rest = rest[start...]
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let end = body.firstIndex(of: "\"") ?? body.endIndex
                if !body[..<end].allSatisfy(\.isWhitespace) { phrases.append(quote(String(body[..<end]))) }
                rest = end == body.endIndex ? body[end...] : body[body.index(after: end)...]
                continue
            }
            let end = rest.firstIndex(where: { $0.isWhitespace || $0 == "\"" }) ?? rest.endIndex
            let word = rest[..<end]
            if word.first == "-" {
                if word.count > 1 { excluded.append(quote(String(word.dropFirst()))) }
            } else {
                words.append(quote(String(word)))
            }
            rest = rest[end...]
        }
        let wanted = phrases.isEmpty ? words.joined(separator: " OR ") : phrases.joined(separator: " AND ")
        guard !wanted.isEmpty else { return nil }
        return excluded.isEmpty ? "(\(wanted))" : "(\(wanted)) NOT (\(excluded.joined(separator: " OR ")))"
    }
}
