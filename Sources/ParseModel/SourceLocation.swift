import Foundation

/// Where a value came from: the source file, the physical line on which its record starts,
/// and, when known, the source column, the Parse field (`Class.field`) and the raw value.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: String?
    public var field: String?
    public var value: String?

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
