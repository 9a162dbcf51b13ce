import Foundation

/// Where a value came from: the source file, the physical line on which its record starts,
/// and, when known, the source column, the Parse class and field, and the raw value. A fault of
/// a manifest's declaration names its key path (`classes.Book.fields.title`) instead of a field.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    /// The file, as the dataset names it.
    public var file: String
    /// The line on which the record starts; 0 for the file (or the dataset) as a whole.
    public var line: Int
    /// The source column (a CSV header name, a JSON key).
    public var column: String?
    /// The Parse class of the field at fault (the owner, for a join file's relation).
    public var className: String?
    /// The Parse field at fault.
    public var fieldName: String?
    /// Where in the manifest the fault is declared (`classes.Book.fields.title`), for a fault of
    /// the declaration rather than of a record.
    public var keyPath: String?
    /// The raw value, as the source has it.
    public var value: String?

    /// A location; parts not known are `nil`.
    public init(
        file: String, line: Int, column: String? = nil, className: String? = nil, fieldName: String? = nil,
        keyPath: String? = nil, value: String? = nil
    ) {
        self.file = file
        self.line = line
        self.column = column
        self.className = className
        self.fieldName = fieldName
        self.keyPath = keyPath
        self.value = value
    }

    /// The field as messages name it: `Class.field`, or the manifest key path; `nil` when
    /// neither a field nor a key path is known (a class alone is not shown).
    public var field: String? {
        if let keyPath { return keyPath }
        guard let fieldName else { return nil }
        return className.map { "\($0).\(fieldName)" } ?? fieldName
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
