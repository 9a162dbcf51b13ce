import Foundation
import ParseModel
import PorterReaders

/// A dataset manifest guessed from source files, each guess with what it was guessed from;
/// ``yaml`` writes it as a `dataset.yml` with the reasons as comments.
struct InferredDataset {
    struct Field {
        let name: String
        let column: String
        let type: FieldType
        /// A Pointer's columns holding the parts of its target's key.
        var columns: [String]?
        var split: String?
        var required = false
        let reason: String
        /// A Date's formats; empty for ISO 8601.
        var formats: [String] = []
        /// A Number's decimal mark and thousands separator, when not the standard ones.
        var numberFormat: NumberFormat?
    }

    struct Class {
        let className: String
        let file: String
        let records: Int
        let delimiter: UInt8?
        /// The file's encoding when it is not UTF-8, and why.
        let encoding: TextEncoding?
        let encodingReason: String?
        /// Options telling how the file is read (``FileProfile/options``), as YAML with their reasons.
        var options: [(yaml: String, reason: String)] = []
        /// Field names, or ``ClassMapping/lineKey``; empty when the records are identified by
        /// their `objectId` column, or when no key was found (``keyReason`` says which).
        let key: [String]
        let keyReason: String
        var fields: [Field]
        /// Lines about the file as a whole (columns not read, Parse's own columns).
        var notes: [String]
    }

    struct Relation {
        let owner: String
        let field: String
        let targetClass: String
        let file: String
        let ownerColumn: String
        let targetColumn: String
        let delimiter: UInt8?
        let encoding: TextEncoding?
        var options: [(yaml: String, reason: String)] = []
        let reason: String
    }

    var header: [String]
    var classes: [Class] = []
    var relations: [Relation] = []
    /// Files read but not made into a class or relation, each with why.
    var unread: [String] = []

    var yaml: String {
        var lines = header.map { "# " + $0 }
        for note in unread { lines.append("# " + Self.oneLine(note)) }
        lines += ["version: 1", "classes:"]
        for entry in classes {
            lines.append("  \(entry.className):")
            lines.append("    # " + Self.oneLine("\(entry.file): \(entry.records) record\(entry.records == 1 ? "" : "s")"))
            for note in entry.notes { lines.append("    # " + Self.oneLine(note)) }
            lines.append("    source: \(Self.quoted(entry.file))")
            if let delimiter = entry.delimiter {
                lines.append("    delimiter: \(Self.quoted(String(UnicodeScalar(delimiter))))        # the header line is separated by it")
            }
            if let encoding = entry.encoding {
                lines.append("    encoding: \(encoding.name)        # " + Self.oneLine(entry.encodingReason ?? ""))
            }
            for option in entry.options { lines.append("    \(option.yaml)        # " + Self.oneLine(option.reason)) }
            if entry.key.isEmpty {
                lines.append("    # " + Self.oneLine(entry.keyReason))
            } else if entry.key == [ClassMapping.lineKey] {
                lines.append("    key: \(ClassMapping.lineKey)        # " + Self.oneLine(entry.keyReason))
            } else {
                lines.append("    key: [\(entry.key.joined(separator: ", "))]        # " + Self.oneLine(entry.keyReason))
            }
            lines.append("    fields:")
            for field in entry.fields {
                lines.append("      \(field.name): \(Self.spec(field))        # " + Self.oneLine(field.reason))
            }
        }
        if !relations.isEmpty {
            lines.append("relations:")
            for relation in relations {
                lines.append("  # " + Self.oneLine(relation.reason))
                for option in relation.options { lines.append("  # \(option.yaml): " + Self.oneLine(option.reason)) }
                var entry =
                    "  - {owner: \(relation.owner), field: \(relation.field), targetClass: \(relation.targetClass), source: \(Self.quoted(relation.file)), "
                    + "ownerColumn: \(Self.quoted(relation.ownerColumn)), targetColumn: \(Self.quoted(relation.targetColumn))"
                if let delimiter = relation.delimiter { entry += ", delimiter: \(Self.quoted(String(UnicodeScalar(delimiter))))" }
                if let encoding = relation.encoding { entry += ", encoding: \(encoding.name)" }
                for option in relation.options { entry += ", \(option.yaml)" }
                lines.append(entry + "}")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Each class's key and each field's type as the manifest spells them, with what they were
    /// guessed from: what a one-file import tells, having no manifest to show.
    var guesses: [InferenceGuess] {
        classes.flatMap { entry in
            [
                InferenceGuess(
                    className: entry.className, field: nil, column: nil, spec: entry.key.isEmpty ? "none" : "[\(entry.key.joined(separator: ", "))]",
                    reason: Self.oneLine(entry.keyReason))
            ]
                + entry.fields.map {
                    InferenceGuess(className: entry.className, field: $0.name, column: $0.column, spec: Self.spec($0), reason: Self.oneLine($0.reason))
                }
        }
    }

    /// `Type`, `Type!`, or a flow mapping with the column and split.
    private static func spec(_ field: Field) -> String {
        let type = field.type.description + (field.required ? "!" : "")
        guard field.column != field.name || field.columns != nil || field.split != nil || !field.formats.isEmpty || field.numberFormat != nil else {
            return type
        }
        var parts = ["type: \(type)"]
        if let columns = field.columns {
            parts.append("columns: [\(columns.map(quoted).joined(separator: ", "))]")
        } else if field.column != field.name {
            parts.append("column: \(quoted(field.column))")
        }
        if let split = field.split { parts.append("split: \(quoted(split))") }
        if field.formats.count == 1 { parts.append("format: \(quoted(field.formats[0]))") }
        if field.formats.count > 1 { parts.append("format: [\(field.formats.map(quoted).joined(separator: ", "))]") }
        if let number = field.numberFormat {
            parts.append("decimal: \(quoted(String(UnicodeScalar(number.decimal))))")
            if let thousands = number.thousands { parts.append("thousands: \(quoted(String(UnicodeScalar(thousands))))") }
        }
        return "{\(parts.joined(separator: ", "))}"
    }

    /// Text as a YAML double-quoted scalar (JSON's string syntax is valid YAML).
    static func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }

    /// Text as a YAML single-quoted scalar, where a backslash is itself (`'\N'`; in double
    /// quotes `"\N"` is U+0085). Only for text of one line.
    static func singleQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// A comment on one line, whatever the values it quotes hold.
    static func oneLine(_ text: String) -> String {
        text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
    }
}

/// A guess `init` made for a class from its file, with what it saw: the class's key or a
/// field's type. A one-file import (`import FILE`, `import -`) carries them in its report
/// (``ImportReport/guesses``), having no manifest file to review.
public struct InferenceGuess: Sendable, Equatable {
    /// The class guessed for.
    public let className: String
    /// The field whose type was guessed; `nil` for the class's key.
    public let field: String?
    /// The source column the field reads; `nil` for the key.
    public let column: String?
    /// The guess as a manifest spells it: `[number]` or `none` for a key, `Number`,
    /// `{type: Date, column: "start_date", format: "yyyyMMdd"}` for a field.
    public let spec: String
    /// What it was guessed from.
    public let reason: String

    /// The guess as a line of a manifest: `Order.key: [number]        # number: unique and …`.
    public var text: String { "\(className).\(field ?? "key"): \(spec)        # \(reason)" }

    /// The guess as JSON: `className`, `field` and `column` (`null` for the key), `spec`, `reason`.
    public var json: JSONValue {
        .object(
            JSONObject([
                "className": .string(className), "field": field.map(JSONValue.string) ?? .null,
                "column": column.map(JSONValue.string) ?? .null, "spec": .string(spec), "reason": .string(reason),
            ]))
    }
}
