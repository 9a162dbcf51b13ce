import Foundation
import PorterCore

/// One versioned migration file, `V<version>__<name>.yml` (or `.yaml`, `.json`), as read by
/// ``MigrationDirectory/load(_:)``.
public struct MigrationFile: Sendable {
    /// The version the file name carries (`3` in `V3__add_book_edition.yml`).
    public let version: MigrationVersion
    /// The description part of the file name, underscores read as spaces (as Flyway shows it):
    /// `V3__add_book_edition.yml` is "add book edition".
    public let name: String
    /// The file name alone, without its folder.
    public let fileName: String
    /// The folder given to ``MigrationDirectory/load(_:)`` joined with ``fileName``; every
    /// error about the file starts with it.
    public let path: String
    /// SHA-256, as 64 lowercase hex digits, of the file's parsed document in canonical form:
    /// compact JSON (no whitespace) with every object's keys sorted, a duplicate key kept once
    /// (the last, as decoding reads it), and numbers with an integral value written without a
    /// fraction (`0.0` is `0`). So re-indenting, reordering keys, quoting style and comments
    /// leave it as it was, any change of a value changes it, and a YAML file and its JSON
    /// translation have the same checksum.
    public let checksum: String
    /// The operations the file lists, in the order they run.
    public let operations: [MigrationOperation]

    /// A file as read: parts given as ``MigrationDirectory/load(_:)`` derives them.
    public init(version: MigrationVersion, name: String, fileName: String, path: String, checksum: String, operations: [MigrationOperation]) {
        self.version = version
        self.name = name
        self.fileName = fileName
        self.path = path
        self.checksum = checksum
        self.operations = operations
    }

    /// The file name extensions a migration may have.
    public static let extensions = ["yml", "yaml", "json"]
    /// The naming pattern, for messages.
    public static let namePattern = "V<version>__<name>.yml (or .yaml, .json), e.g. V1__library_schema.yml or V1.1__add_index.json"

    /// Splits `V2_1__add_book_edition.yml` into its version and name; `nil` when `fileName`
    /// does not follow ``namePattern`` (the name part may not be empty).
    static func nameParts(of fileName: String) -> (version: MigrationVersion, name: String)? {
        guard fileName.hasPrefix("V"), let separator = fileName.range(of: "__"),
            let dot = fileName.lastIndex(of: "."), separator.upperBound < dot,
            extensions.contains(String(fileName[fileName.index(after: dot)...])),
            let version = MigrationVersion(String(fileName[fileName.index(after: fileName.startIndex)..<separator.lowerBound]))
        else { return nil }
        let name = fileName[separator.upperBound..<dot].replacingOccurrences(of: "_", with: " ")
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return (version, name)
    }
}
