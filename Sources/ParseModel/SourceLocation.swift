import Foundation

/// Where a value came from: the source file, the physical line on which its record starts,
/// and, when known, the source column, the Parse field (`Class.field`) and the raw value.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The source file's name as the dataset names it.
    public var file: String
    /// The physical line where the record starts, from 1; 0 for the file as a whole.
    public var line: Int
    /// The source column (a CSV header or a JSON key), when known.
    public var column: String?
    /// The Parse field (`Class.field`), when known.
    public var field: String?
    /// The raw value as read, when known.
    public var value: String?

    /// A location; parts not known are `nil`.
    public init(file: String, line: Int, column: String? = nil, field: String? = nil, value: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.value = value
    }

    /// `file:line: column "x" (Class.field): value "…"`; parts that are unknown are left out.
    public var description: String {
        var text = line > 0 ? "\(file):\(line)" : file
        if let column { text += ": column \"\(column)\"" }
        if let field { text += column == nil ? ": \(field)" : " (\(field))" }
        if let value { text += ": value \"\(SourceLocation.abbreviate(value))\"" }
        return text
    }

    /// Values are shown whole up to 60 characters, then cut with an ellipsis; line breaks are escaped.
    static func abbreviate(_ value: String) -> String {
        let flat = value.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
        return flat.count > 60 ? String(flat.prefix(57)) + "…" : flat
    }
}
