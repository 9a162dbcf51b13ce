import CPCRE2
import CSQLite
import ParseModel
import PorterSQLite

/// A `$regex` pattern compiled by PCRE2, the engine (and dialect) MongoDB uses, with the match
/// data its matches reuse. Used by one thread at a time.
final class CompiledRegex {
    fileprivate let code: OpaquePointer
    fileprivate let matchData: OpaquePointer

    fileprivate init(code: OpaquePointer, matchData: OpaquePointer) {
        self.code = code
        self.matchData = matchData
    }

    deinit {
        pcre2_match_data_free_8(matchData)
        pcre2_code_free_8(code)
    }
}

/// Compiled `$regex` patterns per pattern and options, shared by the compiler and the SQL
/// function of one connection (so used by one thread at a time).
///
/// Every match is bounded: PCRE2 stops it after ``matchLimit`` backtracking steps, a
/// backtracking depth of ``depthLimit`` or ``heapLimitKiB`` of memory, so a pattern with
/// catastrophic backtracking fails fast (102) instead of running for minutes.
final class RegexCache {
    /// PCRE2's match limit per match (its default is 10,000,000).
    static let matchLimit: UInt32 = 1_000_000
    /// PCRE2's backtracking depth limit per match.
    static let depthLimit: UInt32 = 100_000
    /// PCRE2's backtracking memory per match, in KiB (its default is 20 MB).
    static let heapLimitKiB: UInt32 = 8192

    private var compiled: [String: CompiledRegex] = [:]
    private let context: OpaquePointer?
    /// The clock of the connection's queries, asked before each match: a scan whose every row
    /// costs a slow match stops at its deadline (or cutoff) within one match, not 100 of them.
    weak var clock: QueryClock?
    /// Why the last statement's regex function failed: a match that hit a limit.
    private(set) var failure: ParseError?

    init() {
        context = pcre2_match_context_create_8(nil)
        pcre2_set_match_limit_8(context, Self.matchLimit)
        pcre2_set_depth_limit_8(context, Self.depthLimit)
        pcre2_set_heap_limit_8(context, Self.heapLimitKiB)
    }

    deinit { pcre2_match_context_free_8(context) }

    /// The pattern compiled with Parse's `$options` letters: `i` ignore case, `m` `^`/`$` at line
    /// breaks, `x` ignore whitespace and `#` comments, `s` `.` matches line breaks. Patterns are
    /// UTF-8, as MongoDB compiles them.
    func regex(_ pattern: String, options: String) throws(ParseError) -> CompiledRegex {
        let key = options + "\u{0}" + pattern
        if let regex = compiled[key] { return regex }
        var flags = UInt32(PCRE2_UTF | PCRE2_MATCH_INVALID_UTF)
        for letter in options {
            switch letter {
            case "i": flags |= UInt32(PCRE2_CASELESS)
            case "m": flags |= UInt32(PCRE2_MULTILINE)
            case "x": flags |= UInt32(PCRE2_EXTENDED)
            case "s": flags |= UInt32(PCRE2_DOTALL)
            default: throw ParseError(.invalidQuery, "Bad $options value for query: \(options)")
            }
        }
        var errorCode: Int32 = 0
        var errorOffset = 0
        let bytes = Array(pattern.utf8) + [0]
        let code = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.flatMap { pcre2_compile_8($0, bytes.count - 1, flags, &errorCode, &errorOffset, nil) }
        }
        guard let code, let matchData = pcre2_match_data_create_from_pattern_8(code, nil) else {
            throw ParseError(.invalidQuery, "Invalid regular expression: \(pattern)")
        }
        if compiled.count >= 512 { compiled.removeAll(keepingCapacity: true) }
        let regex = CompiledRegex(code: code, matchData: matchData)
        compiled[key] = regex
        return regex
    }

    /// Whether the `count` UTF-8 bytes at `text` match; nil when the match hit a limit, whose
    /// error is then kept in ``failure``.
    func matches(_ regex: CompiledRegex, _ text: UnsafePointer<UInt8>, count: Int, pattern: String) -> Bool? {
        let status = pcre2_match_8(regex.code, text, count, 0, 0, regex.matchData, context)
        switch status {
        case PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_DEPTHLIMIT, PCRE2_ERROR_HEAPLIMIT:
            failure = ParseError(
                .invalidQuery,
                "$regex \(pattern) backtracks too much: a match went past the regex engine's limits; simplify the pattern or anchor it")
            return nil
        default:
            return status >= 0
        }
    }

    /// Forgets the last failure before a statement runs.
    func clearFailure() { failure = nil }
}

/// The SQL function `parse_regex(pattern, options, value)`: 1 when the text value matches, 0
/// otherwise (also for NULL and non-text values); an error, which ends the statement, when a
/// match hits a limit (see ``RegexCache/failure``).
enum RegexFunction {
    static let name = "parse_regex"

    static func register(on database: SQLiteDatabase, cache: RegexCache) throws(ParseError) {
        let context = Unmanaged.passRetained(cache).toOpaque()
        let status = sqlite3_create_function_v2(
            database.handle, name, 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC, context, call, nil, nil, release)
        guard status == SQLITE_OK else { throw ParseError(.internalServerError, "cannot register \(name): SQLite status \(status)") }
    }

    private static let call: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let data = sqlite3_user_data(context) else { return sqlite3_result_int(context, 0) }
        let cache = Unmanaged<RegexCache>.fromOpaque(data).takeUnretainedValue()
        guard sqlite3_value_type(arguments[2]) == SQLITE_TEXT,
            let pattern = sqlite3_value_text(arguments[0]), let options = sqlite3_value_text(arguments[1]),
            let value = sqlite3_value_text(arguments[2])
        else { return sqlite3_result_int(context, 0) }
        // By length, not as a C string: a pattern may hold NUL (`\u0000`), as a value may.
        let patternText = String(decoding: UnsafeBufferPointer(start: pattern, count: Int(sqlite3_value_bytes(arguments[0]))), as: UTF8.self)
        guard let regex = try? cache.regex(patternText, options: String(cString: options)) else { return sqlite3_result_int(context, 0) }
        if cache.clock?.mustStop() == true { return sqlite3_result_error(context, "interrupted", -1) }
        guard let matched = cache.matches(regex, value, count: Int(sqlite3_value_bytes(arguments[2])), pattern: patternText) else {
            return sqlite3_result_error(context, "regex match limit", -1)
        }
        sqlite3_result_int(context, matched ? 1 : 0)
    }

    private static let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
        if let data { Unmanaged<RegexCache>.fromOpaque(data).release() }
    }
}
