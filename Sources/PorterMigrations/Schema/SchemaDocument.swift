import Foundation
import ParseModel
import ParseRules
import PorterPipeline
import PorterReaders

/// A schema file: an app's classes as `GET /schemas` lists them (`{"results":[…]}`), or as a
/// plain list (Parse Dashboard's "Export schema", the `definitions` of Parse Server's defined
/// schemas). Each class has `className`, and optionally `fields`, `classLevelPermissions` and
/// `indexes` in `/schemas` format.
public struct SchemaDocument: Hashable, Sendable {
    /// The classes, sorted by name.
    public let classes: [ClassSchema]

    /// A document with these classes, sorted by name.
    public init(classes: [ClassSchema]) {
        self.classes = classes.sorted { $0.className < $1.className }
    }

    /// Reads and checks the file at `path`. Every fault is an invalid request (``PorterError/Cause/invalidRequest``) naming the file,
    /// the line where the class starts and the key path:
    /// `schema.json:14: results[3].fields.pages.type: unknown type "Numbr" (…)`.
    public static func read(_ path: String) throws(PorterError) -> SchemaDocument {
        let listPath = listPath(of: path)
        var reader: JSONRecordReader
        do { reader = try JSONRecordReader(path: path, displayName: path, layout: .array) } catch { throw PorterError(.invalidRequest, error.description) }
        var classes: [ClassSchema] = []
        var lines: [String: Int] = [:]
        var index = 0
        while true {
            let record: SourceRecord?
            do { record = try reader.next() } catch { throw PorterError(.invalidRequest, error.description) }
            guard let record else { break }
            guard case .json(let spec) = record.content else { continue }
            let entry = ClassEntry(file: path, line: record.line, path: "\(listPath)[\(index)]")
            let schema = try entry.schema(spec)
            if let first = lines[schema.className] {
                throw entry.fail("\(entry.path).className", "\(schema.className) is listed twice (first at line \(first))")
            }
            lines[schema.className] = record.line
            classes.append(schema)
            index += 1
        }
        return SchemaDocument(classes: classes)
    }

    /// `results` when the file is an object, `""` when it is a plain list: the start of key paths.
    private static func listPath(of path: String) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "results" }
        defer { try? handle.close() }
        let start = (try? handle.read(upToCount: 4096)) ?? Data()
        let first = start.first { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
        return first == UInt8(ascii: "[") ? "" : "results"
    }

    /// `{"results":[…]}`, classes by name, each as `className`, `fields` (`objectId`, `createdAt`,
    /// `updatedAt`, `ACL`, then the others by name), `classLevelPermissions` (Parse's default when
    /// none is set; operations in Parse's order, entries by name) and `indexes` (by name; each
    /// index's keys in their order, which matters). One field, permission or index per line, so
    /// that a schema reads well in a diff and the same schema is always the same text.
    public var text: String {
        let results = classes.map { schema -> JSONValue in
            let json = schema.schemaJSON
            var object = JSONObject(["className": .string(schema.className)])
            if case .object(let fields)? = json["fields"] {
                let defaults = ParseNames.defaultFields.compactMap { name in fields[name].map { JSONMember(name, $0) } }
                let own = fields.members.filter { !ParseNames.defaultFields.contains($0.key) }.sorted { $0.key < $1.key }
                object["fields"] = .object(JSONObject(defaults + own))
            }
            if case .object(let permissions)? = json["classLevelPermissions"] {
                let order = ClassLevelPermissions.operations
                let members = permissions.members.sorted {
                    (order.firstIndex(of: $0.key) ?? order.count, $0.key) < (order.firstIndex(of: $1.key) ?? order.count, $1.key)
                }
                object["classLevelPermissions"] = .object(JSONObject(members.map { JSONMember($0.key, $0.value.sortingKeys()) }))
            }
            if case .object(let indexes)? = json["indexes"] {
                object["indexes"] = .object(JSONObject(indexes.members.sorted { $0.key < $1.key }))
            }
            return .object(object)
        }
        return JSONValue.object(JSONObject(["results": .array(results)])).prettyPrinted(expandedLevels: 4) + "\n"
    }
}

/// One class of a schema file being read: where it is, and the checks of its parts.
private struct ClassEntry {
    let file: String
    let line: Int
    /// `results[3]`, or `[3]` in a plain list.
    let path: String

    static let keys = ["className", "fields", "classLevelPermissions", "indexes"]

    func fail(_ keyPath: String, _ reason: String) -> PorterError {
        PorterError(.invalidRequest, "\(file):\(line): \(keyPath): \(reason)")
    }

    func schema(_ spec: JSONObject) throws(PorterError) -> ClassSchema {
        let reader = SchemaEntryReader { [self] keyPath, reason in fail(keyPath, reason) }
        let className = try reader.className(of: spec, at: path)
        if let unknown = spec.keys.first(where: { !Self.keys.contains($0) }) {
            throw fail("\(path).\(unknown)", "unknown key (a class has \(Self.keys.joined(separator: ", ")))")
        }
        var fields: [SchemaField] = []
        switch spec["fields"] {
        case nil, .null?: break
        case .object(let specs)?: fields = try reader.fields(specs, at: "\(path).fields")
        case let other?: throw fail("\(path).fields", #"must map field names to field specs like {"title": {"type": "String"}}, not \#(other.kindName)"#)
        }
        let permissions = spec["classLevelPermissions"].flatMap { $0 == .null ? nil : $0 }
        if let permissions { try ClassLevelPermissions.check(permissions, at: "\(path).classLevelPermissions", fail: fail) }
        var indexes: JSONValue?
        if let given = spec["indexes"], given != .null { indexes = try IndexKeys.checkIndexes(given, at: "\(path).indexes", fail: fail) }
        return ClassSchema(className: className, fields: fields, classLevelPermissions: permissions, indexes: indexes)
    }
}
