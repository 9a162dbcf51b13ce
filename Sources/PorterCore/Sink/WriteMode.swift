/// How objects of one class are written when they already exist in the target.
public enum WriteMode: String, Sendable, CaseIterable {
    /// Create new objects, replace the mapped fields of existing ones (the default).
    case upsert
    /// Create new objects only; an object that already exists is an error.
    case insert
    /// Create new objects, and on existing ones set only the fields the source has values for.
    case merge
}
