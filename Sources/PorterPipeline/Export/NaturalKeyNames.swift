import ParseModel

/// The natural key of each object of the classes that have one (from `--manifest`), as a
/// reference cell spells it: the key's text, or a JSON array of the parts of a composite key
/// (Docs/Manifest.md). Each keyed class is read once, when first referenced; these maps are the only
/// part of an export that grows with the data.
final class NaturalKeyNames {
    private let source: ObjectSource
    private let schemas: [String: ClassSchema]
    private let keys: [String: [String]]
    private var names: [String: [String: String]] = [:]
    private var loading: Set<String> = []

    init(source: ObjectSource, schemas: [String: ClassSchema], keys: [String: [String]]) throws(PorterError) {
        for (className, key) in keys.sorted(by: { $0.key < $1.key }) {
            guard let schema = schemas[className] else { continue }
            for part in key where schema.field(named: part) == nil {
                throw PorterError(
                    .invalidRequest, "the key of \(className) names \(part), which the source's \(className) does not have", setting: .naturalKeys)
            }
        }
        self.source = source
        self.schemas = schemas
        self.keys = keys.filter { !$0.value.isEmpty }
    }

    /// Whether objects of the class are referenced by key (else by objectId).
    func isKeyed(_ className: String) -> Bool { keys[className] != nil && schemas[className] != nil }

    /// The cell naming the pointer's target; `context` says who points there, for the error
    /// when the target does not exist.
    func reference(to pointer: PointerRef, from context: @autoclosure () -> String) throws(PorterError) -> String {
        guard isKeyed(pointer.className) else { return pointer.objectId }
        if names[pointer.className] == nil { try load(pointer.className) }
        guard let name = names[pointer.className]?[pointer.objectId] else {
            throw PorterError(
                .invalidData,
                "\(context()) points at \(pointer.className) \(pointer.objectId), which does not exist or has no complete key; export without natural keys to keep objectIds",
                setting: .naturalKeys)
        }
        return name
    }

    private func load(_ className: String) throws(PorterError) {
        guard loading.insert(className).inserted, let schema = schemas[className], let key = keys[className] else {
            throw PorterError(.invalidRequest, "the keys of \(className) refer to each other in a cycle", setting: .naturalKeys)
        }
        defer { loading.remove(className) }
        let positions = key.map { part in schema.storedFields.firstIndex { $0.name == part } }
        var map: [String: String] = [:]
        try source.readObjects(of: schema, matching: nil) { (objects) throws(PorterError) in
            for object in objects {
                var parts: [JSONValue] = []
                for (part, position) in zip(key, positions) {
                    guard let position, let json = try keyPart(object.values[position], from: "\(className) \(object.objectId) \(part)") else { break }
                    parts.append(json)
                }
                guard parts.count == key.count else { continue }
                if parts.count == 1, case .string(let text) = parts[0] {
                    map[object.objectId] = text
                } else if parts.count == 1 {
                    map[object.objectId] = parts[0].serialized()
                } else {
                    map[object.objectId] = JSONValue.array(parts).serialized()
                }
            }
        }
        names[className] = map
    }

    /// One part of a key as JSON: text parts as strings, a pointer part as its target's key text.
    private func keyPart(_ value: ParseValue, from context: @autoclosure () -> String) throws(PorterError) -> JSONValue? {
        switch value {
        case .null: nil
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .double(let number): .double(number)
        case .boolean(let flag): .bool(flag)
        case .date(let date): .string(date.iso)
        case .pointer(let pointer): .string(try reference(to: pointer, from: context()))
        default: value.wireJSON
        }
    }
}
