import ParseModel
import PorterReaders

/// What one column of a source file held, gathered value by value while the file streams:
/// which types every value fits, how many are empty, and its distinct values (bounded), from
/// which keys and references are found.
struct ColumnProfile {
    /// Distinct values kept as text per column, for references and split cells; a column with
    /// more names no class.
    static let distinctLimit = 200_000
    /// Values whose uniqueness is followed (as 64-bit hashes, while none repeats); a column with
    /// more is no key.
    static let uniqueLimit = 10_000_000

    let name: String
    /// Records with a non-empty value.
    private(set) var filled = 0
    /// Records whose value is empty, `null` or absent.
    private(set) var empty = 0
    /// Each non-empty text value so far fits: integers, numbers, true/false, ISO 8601 dates,
    /// JSON objects, JSON arrays.
    private(set) var allIntegers = true
    private(set) var allNumbers = true
    private(set) var allBooleans = true
    private(set) var allDates = true
    private(set) var allObjects = true
    private(set) var allArrays = true
    /// Each non-empty text value is a number with a decimal comma (and `.` between thousands,
    /// as spreadsheets in most of Europe write them); ``sawComma``/``sawPoint``: some value has one.
    private(set) var allDecimalComma = true
    private(set) var sawComma = false
    private(set) var sawPoint = false
    /// An integer written with a leading zero (`007`): text, or the zeros would be lost.
    private(set) var leadingZero = false
    /// The types of JSON values (by their wire encoding), in the order first seen.
    private(set) var jsonTypes: [FieldType] = []
    /// Whether some value was JSON, not CSV text.
    private(set) var sawJSON = false
    /// Every JSON number so far was an integer.
    private(set) var jsonIntegersOnly = true
    /// Every value is text or an integer, so it can be a key or name one.
    private(set) var nameable = true
    /// The distinct values as text; `nil` when not ``nameable`` or past ``distinctLimit``.
    private(set) var distinct: Set<String>? = []
    /// The values' hashes while no value repeats; `nil` once one does, when not ``nameable``,
    /// or past ``uniqueLimit``.
    private var uniqueHashes: Set<Int>? = []
    private(set) var pastDistinctLimit = false
    private(set) var pastUniqueLimit = false
    /// The date formats other than ISO 8601 that read every value.
    private(set) var dates: DateFormatGuess

    init(name: String) {
        self.name = name
        dates = DateFormatGuess(columnName: name)
    }

    /// The column's values are unique, non-empty in every record and nameable as text.
    var isUnique: Bool { empty == 0 && filled > 0 && uniqueHashes != nil }

    /// Whether each of `values` is a value of this column (of a unique one past ``distinctLimit``).
    func holds(_ values: Set<String>) -> Bool {
        if let distinct { return values.count <= distinct.count && values.isSubset(of: distinct) }
        guard let uniqueHashes else { return false }
        return values.count <= uniqueHashes.count && values.allSatisfy { uniqueHashes.contains(Self.hash($0)) }
    }

    /// Records without a value (a JSON key first seen after them, or absent from one).
    mutating func addEmpty(_ count: Int = 1) { empty += count }

    mutating func add(_ cell: SourceCell?) {
        switch cell {
        case nil, .text("")?, .json(.null)?:
            empty += 1
        case .text(let text)?:
            filled += 1
            classify(text)
            remember(text)
        case .json(let json)?:
            filled += 1
            sawJSON = true
            allIntegers = false; allNumbers = false; allBooleans = false; allObjects = false; allArrays = false; allDecimalComma = false
            switch ExportSchemaInference.type(of: json) {
            case .success(let type)?: if !jsonTypes.contains(type) { jsonTypes.append(type) }
            case .failure?, nil: if !jsonTypes.contains(.object) { jsonTypes.append(.object) }
            }
            switch json {
            case .string(let text):
                if ParseDate(iso: text) == nil { allDates = false }
                dates.add(text)
                remember(text)
            case .integer(let number):
                allDates = false
                dates.add(String(number))
                remember(String(number))
            case .double:
                allDates = false
                dates.add(json.serialized())
                jsonIntegersOnly = false
                notNameable()
            default:
                allDates = false
                dates.add("")
                notNameable()
            }
        }
    }

    private mutating func classify(_ text: String) {
        if allNumbers || allIntegers {
            switch NumberText.parse(text) {
            case .integer?:
                if Self.hasLeadingZero(text) { leadingZero = true }
            case .double?: allIntegers = false
            default: allIntegers = false; allNumbers = false
            }
        }
        if allDecimalComma {
            if NumberText.parse(text, format: Self.decimalComma) == nil { allDecimalComma = false }
            if text.utf8.contains(UInt8(ascii: ",")) { sawComma = true }
            if text.utf8.contains(UInt8(ascii: ".")) { sawPoint = true }
        }
        if allBooleans, !["true", "false"].contains(text.lowercased()) { allBooleans = false }
        if allDates, ParseDate(iso: text) == nil { allDates = false }
        dates.add(text)
        if allObjects || allArrays {
            let first = text.utf8.first
            let json = first == UInt8(ascii: "{") || first == UInt8(ascii: "[") ? try? JSONParser.parse(text) : nil
            if case .object? = json {} else { allObjects = false }
            if case .array? = json {} else { allArrays = false }
        }
    }

    private mutating func remember(_ text: String) {
        guard nameable else { return }
        if distinct != nil {
            distinct!.insert(text)
            if distinct!.count > Self.distinctLimit {
                distinct = nil
                pastDistinctLimit = true
            }
        }
        if uniqueHashes != nil {
            if !uniqueHashes!.insert(Self.hash(text)).inserted {
                uniqueHashes = nil
            } else if uniqueHashes!.count > Self.uniqueLimit {
                uniqueHashes = nil
                pastUniqueLimit = true
            }
        }
    }

    /// A value that is neither text nor an integer: the column neither is a key nor names one.
    private mutating func notNameable() {
        nameable = false
        distinct = nil
        uniqueHashes = nil
    }

    /// A text's hash, the same for the whole process.
    static func hash(_ text: String) -> Int {
        var hasher = Hasher()
        hasher.combine(text)
        return hasher.finalize()
    }

    /// `007`, `-01`: digits after a zero that a Number would drop.
    static func hasLeadingZero(_ text: String) -> Bool {
        let digits = text.utf8.drop { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }
        return digits.count > 1 && digits.first == UInt8(ascii: "0")
    }

    /// `1.234,5`: the number format ``allDecimalComma`` tries.
    static let decimalComma = NumberFormat(decimal: UInt8(ascii: ","), thousands: UInt8(ascii: "."))

    /// All non-empty values are integers written as numbers (no leading zeros).
    var isIntegerColumn: Bool {
        filled > 0 && (sawJSON ? jsonTypes == [.number] && jsonIntegersOnly : allIntegers && !leadingZero)
    }
}
