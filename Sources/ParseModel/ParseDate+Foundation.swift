import Foundation

extension ParseDate {
    /// The millisecond nearest to `date` (Parse keeps milliseconds; a `Date` holds a
    /// `Double` of seconds, so `….123` may be stored as `….12299999`).
    public init(_ date: Date) {
        self.init(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The same instant as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }
}
