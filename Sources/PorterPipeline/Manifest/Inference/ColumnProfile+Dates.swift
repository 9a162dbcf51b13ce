import ParseModel

/// Dates written in other ways than ISO 8601: the formats (``DatePattern/commonFormats``) that
/// read every value of a column, followed value by value while the file streams.
struct DateFormatGuess {
    /// Whether Unix times are taken whatever their year: the column's name says it holds times
    /// (`created_at`, `timestamp`, `logged_ms`); otherwise a number is a Unix time only in
    /// 1990–2100, as ``DatePattern/commonFormats(parsing:)`` decides.
    let unixByName: Bool
    /// The formats that read every value so far, most usual first; empty once none does.
    private(set) var everyValue: [String]?
    /// Formats that together read every value so far, each taken when a value needed it;
    /// `nil` once a value fits none.
    private(set) var cover: [String]? = []

    /// Formats in a list at most: more says the column is no date.
    static let coverLimit = 3

    init(columnName: String) {
        let name = columnName.lowercased()
        unixByName = ["at", "when", "time", "timestamp", "date"].contains(name) || name.hasSuffix("_at") || columnName.hasSuffix("At")
            || name.hasSuffix("_ms") || name.contains("time") || name.contains("date") || name.contains("stamp")
    }

    /// The formats of a column whose values were all read by them: one that reads every value,
    /// else a list that does.
    var formats: [String]? {
        if let first = everyValue?.first { return [first] }
        guard let cover, !cover.isEmpty else { return nil }
        return cover
    }

    var isAlive: Bool { cover != nil }

    mutating func add(_ text: String) {
        guard cover != nil else { return }
        let readers = formats(reading: text)
        guard !readers.isEmpty else {
            cover = nil
            everyValue = []
            return
        }
        everyValue = everyValue.map { $0.filter(readers.contains) } ?? readers
        if !cover!.contains(where: readers.contains) {
            cover!.append(readers[0])
            if cover!.count > Self.coverLimit { cover = nil }
        }
    }

    private func formats(reading text: String) -> [String] {
        var formats = DatePattern.commonFormats(parsing: text)
        if unixByName {
            for unix in ["unix", "unix-ms"] where !formats.contains(unix) && DatePattern(unix)!.parse(text) != nil { formats.append(unix) }
        }
        return formats
    }
}
