/// A fault in a dataset manifest: the manifest file, the key path of the faulty value, and
/// what is wrong. ``description`` is the one line messages show:
/// `dataset.yml: classes.Order.fields.placedAt.column: …`.
///
/// ```swift
/// for fault in manifest.faults() {
///     print(fault.keyPath, fault.message)   // ["classes", "Bo ok"] invalid class name: …
/// }
/// ```
public struct ManifestFault: Error, Sendable, Hashable, CustomStringConvertible {
    /// One step of a key path: a mapping key, or a position in a list.
    public enum Key: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
        /// A mapping key: a class or field name, or an option such as `column`.
        case name(String)
        /// A position in a list, from 0.
        case index(Int)

        /// A mapping key written as a string literal.
        public init(stringLiteral name: String) { self = .name(name) }
        /// A list position written as an integer literal.
        public init(integerLiteral index: Int) { self = .index(index) }
    }

    /// The manifest file as messages name it (`dataset.yml`, `schema.json`); `nil` for a
    /// manifest built in code.
    public let file: String?
    /// The keys from the manifest's top to the faulty value, e.g.
    /// `["classes", "Order", "fields", "placedAt", "column"]` or `["relations", 0, "source"]`;
    /// empty for the manifest as a whole.
    public let keyPath: [Key]
    /// What is wrong, and what to do about it.
    public let message: String

    /// A fault at `keyPath` of `file` (`nil`: a manifest built in code).
    public init(file: String?, keyPath: [Key], message: String) {
        self.file = file
        self.keyPath = keyPath
        self.message = message
    }

    /// The key path as messages write it: `classes.Order.fields.placedAt.column`, `relations[0].source`.
    public var keyPathText: String {
        var text = ""
        for key in keyPath {
            switch key {
            case .name(let name): text += text.isEmpty ? name : ".\(name)"
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// `file: key.path: message`, leaving out the parts that are absent.
    public var description: String {
        [file, keyPath.isEmpty ? nil : keyPathText, message].compactMap { $0 }.joined(separator: ": ")
    }
}

/// A key path being built while a manifest is read: `path + "fields" + name`, `path[2]`.
package struct ManifestPath: Sendable, Hashable {
    package var keys: [ManifestFault.Key]

    package init(_ keys: [ManifestFault.Key] = []) { self.keys = keys }

    /// The manifest as a whole.
    package static let root = ManifestPath()

    package static func + (path: ManifestPath, name: String) -> ManifestPath { ManifestPath(path.keys + [.name(name)]) }

    package subscript(index: Int) -> ManifestPath { ManifestPath(keys + [.index(index)]) }

    /// The path of `text` as messages write it (`results[2].fields.genre.type`), for key paths
    /// built as text whose keys are Parse names, which hold no dots or brackets. A text it would
    /// not write back as it is (a key with a dot or bracket) stays one key, so the message keeps it.
    package init(parsing text: String) {
        var keys: [ManifestFault.Key] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) where !part.isEmpty {
            var rest = Substring(part)
            if let bracket = rest.firstIndex(of: "[") {
                if bracket > rest.startIndex { keys.append(.name(String(rest[..<bracket]))) }
                rest = rest[bracket...]
                while rest.hasPrefix("["), let close = rest.firstIndex(of: "]"), let index = Int(rest[rest.index(after: rest.startIndex)..<close]) {
                    keys.append(.index(index))
                    rest = rest[rest.index(after: close)...]
                }
                if !rest.isEmpty { keys.append(.name(String(rest))) }
            } else {
                keys.append(.name(String(rest)))
            }
        }
        self.init(keys)
        if self.text != text { self.keys = [.name(text)] }
    }

    /// The path as messages write it.
    package var text: String { ManifestFault(file: nil, keyPath: keys, message: "").keyPathText }
}

extension PorterError {
    /// An invalid request (``PorterError/Cause/invalidRequest``) carrying `faults`, one line each in ``message``.
    package init(_ faults: [ManifestFault]) {
        self.init(.invalidRequest, faults.map(\.description).joined(separator: "\n"))
        manifestFaults = faults
    }

    /// One manifest fault as an error.
    package init(_ fault: ManifestFault) { self.init([fault]) }
}
