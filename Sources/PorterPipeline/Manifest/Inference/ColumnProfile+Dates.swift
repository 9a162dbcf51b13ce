import ParseModel

/// Dates written in other ways than ISO 8601: the formats (``DatePattern/commonFormats``) that
/// read every value of a column, followed value by value while the file streams.
///
/// Numbers alone (Unix times, `yyyyMMdd`, ``DatePattern/isDigitsOnly``) are dates only in a
/// column whose name says it holds dates or times, and only when plausible (Unix times in
/// 1990–2100, `yyyyMMdd` and the like in 1900–2100, as ``DatePattern/commonReadings(of:)``
/// decides): a `timepoint` of 0 and 1 is no date. Two formats that read a value as different
/// dates (`01/03/2024`: 1 March in `dd/MM/yyyy`, 3 January in `MM/dd/yyyy`) leave the column
/// ``ambiguity`` unless another value tells them apart.
struct DateFormatGuess {
    /// Whether the column's name says it holds dates or times (`at`, `*_at`, `*At`, `*_ms`,
    /// `when`, or holding `time`, `date` or `stamp`).
    let namedForDates: Bool
    /// The formats that read every value so far, most usual first; empty once none does.
    private(set) var everyValue: [String]?
    /// Formats that together read every value so far, each taken when a value needed it;
    /// `nil` once a value fits none.
    private(set) var cover: [String]? = []
    /// In a column not named for dates, the formats of numbers alone that read every value so
    /// far (which its comment mentions); `nil` before the first value.
    private(set) var unnamedNumberFormats: [String]?
    /// In a column named for dates, the first value that reads as a Unix time only outside the
    /// plausible years (`0`, `-86400`): why such a column is no date, for its comment.
    private(set) var implausibleTime: String?
    /// Pairs of formats (in ``DatePattern/commonFormats`` order) that read some value as different dates.
    private var disagreeing: Set<[String]> = []
    /// Per format, the formats that read every value it read: those it cannot be told from.
    private var readAlike: [String: Set<String>] = [:]

    /// Formats in a list at most: more says the column is no date.
    static let coverLimit = 3

    private static let unixTimes = ["unix", "unix-ms"].map { DatePattern($0)! }

    init(columnName: String) {
        let name = columnName.lowercased()
        namedForDates =
            ["at", "when", "time", "timestamp", "date"].contains(name) || name.hasSuffix("_at") || columnName.hasSuffix("At")
            || name.hasSuffix("_ms") || name.contains("time") || name.contains("date") || name.contains("stamp")
    }

    /// The formats of a column whose values were all read by them: one that reads every value,
    /// else a list that does.
    var formats: [String]? {
        if let first = everyValue?.first { return [first] }
        guard let cover, !cover.isEmpty else { return nil }
        return cover
    }

    /// A format of ``formats`` and another that read every value it read, one of them as a
    /// different date: no value tells which is meant.
    var ambiguity: (String, String)? {
        for format in formats ?? [] {
            for other in DatePattern.commonFormats where other != format && readAlike[format]?.contains(other) == true {
                if disagreeing.contains([format, other]) || disagreeing.contains([other, format]) { return (format, other) }
            }
        }
        return nil
    }

    mutating func add(_ text: String) {
        // Once no format reads every value, only an unnamed column of numbers that read as dates is followed.
        guard cover != nil || (!namedForDates && unnamedNumberFormats?.isEmpty != true) else { return }
        var readings = DatePattern.commonReadings(of: text)
        if namedForDates, implausibleTime == nil, !readings.contains(where: \.pattern.isUnixTime), Self.unixTimes.contains(where: { $0.parse(text) != nil }) {
            implausibleTime = text
        }
        if !namedForDates {
            let numbers = readings.filter(\.pattern.isDigitsOnly).map(\.pattern.text)
            unnamedNumberFormats = unnamedNumberFormats.map { $0.filter(numbers.contains) } ?? numbers
            readings.removeAll { $0.pattern.isDigitsOnly }
        }
        guard cover != nil else { return }
        let readers = readings.map(\.pattern.text)
        guard !readers.isEmpty else {
            cover = nil
            everyValue = []
            return
        }
        for (i, first) in readings.enumerated() {
            for second in readings[(i + 1)...] where first.date != second.date { disagreeing.insert([first.pattern.text, second.pattern.text]) }
        }
        let readerSet = Set(readers)
        for reader in readers { readAlike[reader] = readAlike[reader].map { $0.intersection(readerSet) } ?? readerSet }
        everyValue = everyValue.map { $0.filter(readers.contains) } ?? readers
        if !cover!.contains(where: readers.contains) {
            cover!.append(readers[0])
            if cover!.count > Self.coverLimit { cover = nil }
        }
    }
}
