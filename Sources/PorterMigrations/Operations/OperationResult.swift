/// What applying one migration operation did.
///
/// Running an operation again after it completed gives a result with no changes:
/// ``schemaChanges`` and ``objectsWritten`` are 0, and ``summary`` says why nothing was needed.
public struct OperationResult: Equatable, Sendable {
    /// One line for the migration's output: "added field Book.isbn", "updated 42 Book objects (3 already up to date)".
    public var summary: String
    /// Requests that changed a class: created it, or added or deleted fields or indexes, or set its permissions.
    public var schemaChanges: Int
    /// Objects created, updated or deleted (links: owners whose relation links changed).
    public var objectsWritten: Int
    /// Objects found already as the operation wants them, and left alone.
    public var objectsUnchanged: Int

    /// A result; the counts default to 0 (nothing changed).
    public init(_ summary: String, schemaChanges: Int = 0, objectsWritten: Int = 0, objectsUnchanged: Int = 0) {
        self.summary = summary
        self.schemaChanges = schemaChanges
        self.objectsWritten = objectsWritten
        self.objectsUnchanged = objectsUnchanged
    }
}
