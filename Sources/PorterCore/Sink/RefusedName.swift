/// A name in a class schema that a target cannot store as it is (PostgreSQL keeps 63 bytes of
/// a name), found before anything is written (``ObjectSink/refusedNames(in:existing:)``).
public struct RefusedName: Sendable, Hashable, CustomStringConvertible {
    /// The class the name belongs to (or is).
    public let className: String
    /// The field whose column or join table has the name; `nil` for the class or an index.
    public let field: String?
    /// The index that has the name; `nil` for the class or a field.
    public let index: String?
    /// Why the name cannot be used, and what to do, without the class and field.
    public let reason: String

    /// The class's own name (`field` and `index` `nil`), a field's or an index's.
    public init(className: String, field: String? = nil, index: String? = nil, reason: String) {
        self.className = className
        self.field = field
        self.index = index
        self.reason = reason
    }

    /// Where the name is declared: `classes.Book`, `classes.Book.fields.title`, `classes.Book.indexes.title_1`.
    public var keyPath: String {
        "classes.\(className)" + (field.map { ".fields.\($0)" } ?? "") + (index.map { ".indexes.\($0)" } ?? "")
    }

    /// `Book.title: reason`, `Book index title_1: reason`, `Book: reason`.
    public var description: String {
        className + (field.map { ".\($0)" } ?? "") + (index.map { " index \($0)" } ?? "") + ": " + reason
    }
}
