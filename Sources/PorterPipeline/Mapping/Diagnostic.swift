import ParseModel

/// What kind of fault a ``Diagnostic`` is, for programs that sort, count or act on faults
/// without reading their prose. The raw value is the name `--json` reports show.
public enum FaultKind: String, Sendable, Hashable, CaseIterable, Codable {
    // A value of a record.
    /// A Number field's cell (or a GeoPoint's latitude or longitude) is not a number.
    case notANumber
    /// A Date field's cell (or `createdAt`/`updatedAt`) is not a date in the field's formats.
    case notADate
    /// A Boolean field's cell is none of the spellings of true and false.
    case notABoolean
    /// The cell is not one of the field's `values`.
    case notAnAllowedValue
    /// The cell holds a value of another type than the field's (a JSON number for a String,
    /// an object for an Array, a pointer to another class).
    case wrongType
    /// The cell is not valid JSON where the field takes JSON.
    case badJSON
    /// The value has the field's type but is not a valid one (a latitude out of range, bad
    /// base64, an ACL or objectId Parse would refuse, a password hash that is not bcrypt).
    case invalidValue
    /// A required field has no value.
    case requiredValueMissing
    /// A part of the class's key has no value.
    case keyValueMissing
    /// A class without a key has a record without an objectId.
    case objectIdMissing
    /// A file to upload is missing, unreadable, outside the source's folder or too large.
    case badUploadFile

    // The identity of a record.
    /// Two records of a class have the same key.
    case duplicateKey
    /// Two records of a class have the same objectId.
    case duplicateObjectId

    // References between records.
    /// A reference names no object of its class.
    case danglingReference
    /// A reference by a field (`by:`) names a value several objects have.
    case ambiguousReference
    /// A reference names a record that is rejected itself.
    case rejectedReference
    /// A reference cannot be read as one (not an objectId, the wrong number of key parts, empty).
    case malformedReference
    /// A reference by key to a class the dataset does not declare.
    case referenceOutsideDataset
    /// References into a class whose source could not be read to its end, counted, not checked.
    case uncheckedReferences

    // Files.
    /// A strict class's source has a column no field reads.
    case unknownColumn
    /// A source lacks a column the manifest reads.
    case missingColumn
    /// A CSV row has more or fewer cells than its header.
    case raggedRow
    /// A source file cannot be opened or read.
    case unreadableFile
    /// A source file is not well-formed CSV or JSON (an unterminated quote, no header row,
    /// a duplicate column name, JSON that is not records).
    case malformedFile
    /// A source file has bytes that are not text in the encoding it is read in.
    case undecodableText

    // The dataset and the target.
    /// A field's declared type differs from the type the target already has, or a class, field
    /// or index name is longer than the target keeps (PostgreSQL: 63 bytes).
    case schemaConflict
    /// The target refused an object or a link.
    case refusedByTarget
    /// The target could not answer a question the import asked it.
    case targetError
    /// `_User` password hashes (or users without a password) a target cannot take, and the
    /// import was not allowed to write those users without them.
    case passwordHashesNotStored
    /// More rows were rejected than ``ImportOptions/maxErrors`` allows: nothing was written.
    case tooManyRejectedRows
}

/// One fault, with its kind and location: `file:line: column "x" (Class.field): value "…": reason`.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// What kind of fault it is.
    public let kind: FaultKind
    /// Where it is: file, line, column, class, field and value, as far as they are known.
    public let location: SourceLocation
    /// What is wrong, and what to do about it, in words (without the location).
    public let reason: String

    /// A fault of `kind` at `location`, with `reason` saying what is wrong.
    public init(_ kind: FaultKind, _ location: SourceLocation, _ reason: String) {
        self.kind = kind
        self.location = location
        self.reason = reason
    }

    /// The location, then the reason.
    public var description: String { "\(location): \(reason)" }
}
