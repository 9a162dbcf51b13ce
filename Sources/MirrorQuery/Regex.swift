import CSQLite
import Foundation
import PorterSQLite

/// Compiled `$regex` patterns (ICU syntax through `NSRegularExpression`, which understands PCRE's
/// `\Q…\E` quoting) per pattern and options, shared by the compiler and the SQL function.
final class RegexCache {
    private var compiled: [String: NSRegularExpression] = [:]

    /// The pattern compiled with Parse's `$options` letters: `i` ignore case, `m` `^`/`$` at line
    /// breaks, `x` ignore whitespace and `#` comments, `s` `.` matches line breaks.
    func regex(_ pattern: String, options: String) throws(QueryError) -> NSRegularExpression {
        let key = options + "\u{0}" + pattern
        if let regex = compiled[key] { return regex }
        var flags: NSRegularExpression.Options = []
        for letter in options {
            switch letter {
            case "i": flags.insert(.caseInsensitive)
            case "m": flags.insert(.anchorsMatchLines)
            case "x": flags.insert(.allowCommentsAndWhitespace)
            case "s": flags.insert(.dotMatchesLineSeparators)
            default: throw QueryError(code: 102, "Bad $options value for query: \(options)")
            }
        }
        guard let regex = try? NSRegularExpression(pattern: pattern, options: flags) else {
            throw QueryError(code: 102, "Invalid regular expression: \(pattern)")
        }
        if compiled.count >= 512 { compiled.removeAll(keepingCapacity: true) }
        compiled[key] = regex
        return regex
    }

    func matches(_ pattern: String, options: String, _ text: String) -> Bool {
        guard let regex = try? regex(pattern, options: options) else { return false }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// The SQL function `parse_regex(pattern, options, value)`: 1 when the text value matches, 0
/// otherwise (also for NULL and non-text values).
enum RegexFunction {
    static let name = "parse_regex"

    static func register(on database: SQLiteDatabase, cache: RegexCache) throws(QueryError) {
        let context = Unmanaged.passRetained(cache).toOpaque()
        let status = sqlite3_create_function_v2(
            database.handle, name, 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context, call, nil, nil, release)
        guard status == SQLITE_OK else { throw QueryError(code: 1, "cannot register \(name): SQLite status \(status)") }
    }

    private static let call: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let data = sqlite3_user_data(context) else { return sqlite3_result_int(context, 0) }
        let cache = Unmanaged<RegexCache>.fromOpaque(data).takeUnretainedValue()
        guard sqlite3_value_type(arguments[2]) == SQLITE_TEXT,
              let pattern = sqlite3_value_text(arguments[0]), let options = sqlite3_value_text(arguments[1]),
              let value = sqlite3_value_text(arguments[2]) else { return sqlite3_result_int(context, 0) }
        let matched = cache.matches(String(cString: pattern), options: String(cString: options), String(cString: value))
        sqlite3_result_int(context, matched ? 1 : 0)
    }

    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        if let data { Unmanaged<RegexCache>.fromOpaque(data).release() }
    }
}
