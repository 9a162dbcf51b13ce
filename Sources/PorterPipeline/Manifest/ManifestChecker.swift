import Foundation
import ParseModel
import PorterReaders

extension DatasetManifest {
    /// Every fault of the manifest as a whole, in manifest order: class and field names Parse
    /// refuses, a class or field declared twice, keys naming no field, references to classes
    /// neither declared nor among `targetClasses`, `by:` naming no usable field, join relations
    /// whose owner or field does not fit, two in-memory sources of one name. Empty when it is
    /// sound. Source files are not opened (an import names the faults of their contents).
    ///
    /// ```swift
    /// let manifest = DatasetManifest(classes: [
    ///     ClassMapping(className: "Bo ok", records: rows, key: ["isbn"], fields: [FieldMapping(name: "title", type: .string)]),
    /// ])
    /// for fault in manifest.faults() { print(fault) }
    /// // classes.Bo ok: invalid class name: class names can only have alphanumeric characters and _, and must start with a letter
    /// // classes.Bo ok.key: "isbn" is not a field of Bo ok
    /// ```
    /// - Parameter targetClasses: The classes the target already has, which pointers may name.
    public func faults(targetClasses: Set<String> = []) -> [ManifestFault] {
        var checker = ManifestChecker(manifest: self, targetClasses: targetClasses)
        checker.check()
        return checker.faults
    }

    /// Throws an invalid request whose ``PorterError/manifestFaults`` are ``faults(targetClasses:)``,
    /// one a line in its message, unless there are none.
    public func check(targetClasses: Set<String> = []) throws(PorterError) {
        let found = faults(targetClasses: targetClasses)
        if !found.isEmpty { throw PorterError(found) }
    }
}

/// Checks what the decoder cannot see field by field, for a manifest read from a file or built
/// in code alike: names, keys name fields, references name known classes (``ManifestSources``
/// checks the source files).
struct ManifestChecker {
    let manifest: DatasetManifest
    let targetClasses: Set<String>
    private(set) var faults: [ManifestFault] = []

    init(manifest: DatasetManifest, targetClasses: Set<String>) {
        self.manifest = manifest
        self.targetClasses = targetClasses
    }

    mutating func fail(_ path: ManifestPath, _ reason: String) {
        faults.append(ManifestFault(file: manifest.manifestFile, keyPath: path.keys, message: reason))
    }

    static func undeclaredOwner(_ owner: String) -> String { "class \"\(owner)\" is not declared in classes" }
    static func notARelation(_ owner: String, _ field: String, _ type: FieldType) -> String { "\(owner).\(field) is \(type), not a Relation" }
    static func otherTarget(_ target: String, _ owner: String, _ field: String, _ type: FieldType) -> String {
        "\"\(target)\" differs from \(owner).\(field)'s \(type)"
    }

    mutating func check() {
        if manifest.classes.count > DatasetManifest.maximumClasses {
            fail(ManifestPath.root + "classes", DatasetManifest.tooManyClasses(manifest.classes.count))
        }
        let declared = Set(manifest.classes.map(\.className))
        var seenClasses: Set<String> = []
        for mapping in manifest.classes {
            let path = ManifestPath.root + "classes" + mapping.className
            if let problem = ParseNames.classNameProblem(mapping.className) { fail(path, problem) }
            if !seenClasses.insert(mapping.className).inserted { fail(path, "class declared twice") }
            var seenFields: Set<String> = []
            for field in mapping.fields {
                let fieldPath = path + "fields" + field.name
                if let problem = ParseNames.fieldNameProblem(field.name) { fail(fieldPath, problem) }
                if !seenFields.insert(field.name).inserted { fail(fieldPath, "field declared twice") }
                checkOptions(of: field, at: fieldPath)
            }
            if mapping.fields.count > ClassSchema.maximumFields {
                fail(
                    path + "fields",
                    "\(mapping.fields.count) fields; a class may have at most \(ClassSchema.maximumFields) besides objectId, createdAt, updatedAt and ACL")
            }
            if let extract = mapping.extract { checkExtracted(mapping, extract, at: path) }
            if mapping.key.contains(ClassMapping.lineKey) {
                if mapping.key.count > 1 {
                    fail(path + "key", "\(ClassMapping.lineKey) is a key on its own (key: \(ClassMapping.lineKey)): the line alone identifies a record")
                }
                if mapping.records != nil { fail(path + "key", "records from memory have no lines: give key fields") }
            }
            for keyField in mapping.key where keyField != ClassMapping.lineKey {
                guard let field = mapping.field(named: keyField) else {
                    fail(path + "key", "\"\(keyField)\" is not a field of \(mapping.className)")
                    continue
                }
                if case .relation = field.type { fail(path + "key", "a Relation (\(keyField)) cannot be part of a key") }
            }
            for field in mapping.fields {
                if let target = field.type.targetClass, !declared.contains(target), !targetClasses.contains(target) {
                    let relationIndex = manifest.relations.firstIndex { $0.owner == mapping.className && $0.field == field.name }
                    let at = relationIndex.map { (ManifestPath.root + "relations")[$0] + "targetClass" } ?? path + "fields" + field.name + "type"
                    fail(at, "class \"\(target)\" is not declared in this manifest nor in the target")
                }
                if let by = field.by, let target = field.type.targetClass {
                    checkBy(by, of: target, at: path + "fields" + field.name + "by")
                }
                if let columns = field.columns, case .pointer(let target) = field.type {
                    checkKeyParts(columns, of: target, at: path + "fields" + field.name + "columns")
                }
            }
            let geoPoints = mapping.fields.filter { $0.type == .geoPoint }
            if geoPoints.count > 1 {
                fail(path + "fields" + geoPoints[1].name, "a class can have only one GeoPoint field (Parse Server's rule)")
            }
        }
        for (i, relation) in manifest.relations.enumerated() {
            let path = (ManifestPath.root + "relations")[i]
            checkOwner(of: relation, at: path)
            if let by = relation.ownerBy { checkBy(by, of: relation.owner, at: path + "ownerBy") }
            if let by = relation.targetBy { checkBy(by, of: relation.targetClass, at: path + "targetBy") }
        }
        checkMemoryNames()
        checkReferenceCycles()
    }

    /// No chain of Pointer keys (or `by:` fields) comes back where it started: a reference to
    /// either end is read through the other's key, which is read through the first again,
    /// without end. Two tables sharing one id (`film`, `film_text`), each keyed by a Pointer to
    /// the other, make the shortest such chain. Nor is a chain longer than
    /// ``ReferenceChains/depthLimit``: each link is read one call deeper.
    mutating func checkReferenceCycles() {
        let chains = ReferenceChains(manifest)
        var starts = manifest.classes.map { ReferenceChains.Link(className: $0.className, by: nil) }
        for mapping in manifest.classes {
            for field in mapping.fields { if let by = field.by, let target = field.type.targetClass { starts.append(.init(className: target, by: by)) } }
        }
        for relation in manifest.relations {
            if let by = relation.ownerBy { starts.append(.init(className: relation.owner, by: by)) }
            if let by = relation.targetBy { starts.append(.init(className: relation.targetClass, by: by)) }
        }
        let found = chains.chains(from: starts)
        for cycle in found.cycles {
            let steps = cycle.map { step in
                let (className, field) = (step.link.className, step.field)
                let named = step.link.by == nil ? "\(className)'s key \(className).\(field.name)" : "\(className).\(field.name), which by: \(field.name) names,"
                return "\(named) is a \(field.type)" + (field.by.map { " by \($0)" } ?? "")
            }
            let first = cycle[0]
            fail(
                ManifestPath.root + "classes" + first.link.className + "fields" + first.field.name + "type",
                steps.joined(separator: "; ")
                    + ": each is read through the next, back to the first, without end; make one of them a plain field (String, Number): "
                    + "of two tables that share an id one to one, the one the other extends keeps a plain key, and the other's may point at it")
        }
        if let chain = found.tooDeep, let first = chain.first {
            let fields = chain.map { "\($0.link.className).\($0.field.name)" }
            let shown = fields.count > 6 ? fields.prefix(3) + ["…"] + fields.suffix(2) : fields[...]
            fail(
                ManifestPath.root + "classes" + first.link.className + "fields" + first.field.name + "type",
                "a reference to \(first.link.className) is read through a chain of \(chain.count) Pointers (\(shown.joined(separator: " → "))), "
                    + "each a key (or by:) of the one before; at most \(ReferenceChains.depthLimit) are read: key one of these classes by a plain field")
        }
    }

    /// The options of a field fit its type.
    mutating func checkOptions(of field: FieldMapping, at path: ManifestPath) {
        if let columns = field.columns {
            switch field.type {
            case .geoPoint where columns.count == 2: break
            case .pointer where columns.count >= 2:
                if field.by != nil { fail(path + "by", "a Pointer read from several columns names its target by the parts of its key, not by another field") }
            default: fail(path + "columns", "only a GeoPoint reads two columns: [latitude, longitude]; and a Pointer several: the parts of its target's key")
            }
        }
        if let split = field.split {
            switch field.type {
            case .array, .relation: if split.isEmpty { fail(path + "split", "must not be empty") }
            default: fail(path + "split", "only Array and Relation fields can be split")
            }
        }
        if field.by != nil, field.type.targetClass == nil {
            fail(path + "by", "only a Pointer or Relation names its target by one of the target's fields")
        }
        if field.upload {
            if field.type != .file {
                fail(path + "upload", "only a File field uploads files")
            } else if field.values != nil || field.defaultValue != nil {
                fail(path + "upload", "a field that uploads files takes no values or default")
            }
        }
        if field.required, case .relation = field.type { fail(path + "required", "a Relation cannot be required") }
    }

    /// An extracted class has one field, of a plain type, which is its key and reads the extracted column.
    mutating func checkExtracted(_ mapping: ClassMapping, _ extraction: ValueExtraction, at path: ManifestPath) {
        guard mapping.fields.count == 1 else {
            fail(
                path + "fields",
                "an extracted class has exactly one field, which takes each distinct value of \(extraction.column); it has \(mapping.fields.count)")
            return
        }
        let field = mapping.fields[0]
        switch field.type {
        case .string, .number, .date, .boolean: break
        default: fail(path + "fields" + field.name, "the field of an extracted class is a String, Number, Date or Boolean, not \(field.type)")
        }
        if field.column != extraction.column {
            fail(path + "fields" + field.name + "column", "an extracted class reads extract.column (\(extraction.column)); leave column out")
        }
        if mapping.key != [field.name] {
            fail(path + "key", "an extracted class's key is its one field, [\(field.name)], not [\(mapping.key.joined(separator: ", "))]")
        }
    }

    /// A join relation's owner is declared and its field is a Relation to the relation's target.
    mutating func checkOwner(of relation: JoinRelationMapping, at path: ManifestPath) {
        guard let owner = manifest.mapping(for: relation.owner) else {
            fail(path + "owner", Self.undeclaredOwner(relation.owner))
            return
        }
        guard let field = owner.field(named: relation.field) else {
            fail(path + "field", "\(relation.owner) has no field \"\(relation.field)\": declare it as Relation<\(relation.targetClass)>")
            return
        }
        guard case .relation(let target) = field.type else {
            fail(path + "field", Self.notARelation(relation.owner, relation.field, field.type))
            return
        }
        if target != relation.targetClass {
            fail(path + "targetClass", Self.otherTarget(relation.targetClass, relation.owner, relation.field, field.type))
        }
    }

    /// Each in-memory source has a name of its own, which no other source has: faults locate
    /// records by it.
    mutating func checkMemoryNames() {
        var named: [String: MemorySource?] = [:]
        let sources =
            manifest.classes.map { mapping -> (ManifestPath, [String], MemorySource?) in
                let classPath = ManifestPath.root + "classes" + mapping.className
                return (mapping.extract == nil ? classPath + "source" : classPath + "extract" + "source", mapping.sources, mapping.records)
            } + manifest.relations.enumerated().map { ((ManifestPath.root + "relations")[$0.offset] + "source", $0.element.sources, $0.element.records) }
        for (path, names, records) in sources {
            for name in names {
                if let earlier = named[name] {
                    if earlier != records { fail(path, "another source is named \"\(name)\": give each in-memory source a name of its own") }
                } else {
                    named[name] = .some(records)
                }
            }
        }
    }

    /// A Pointer's `columns` hold the parts of its target's key: as many as the key has.
    mutating func checkKeyParts(_ columns: [String], of target: String, at path: ManifestPath) {
        guard let mapping = manifest.mapping(for: target) else {
            fail(path, "a Pointer read from several columns names the parts of \(target)'s key, but \(target) is not declared in this manifest")
            return
        }
        let parts = mapping.isKeyedByLine ? 1 : mapping.key.count
        guard parts != columns.count else { return }
        if mapping.key.isEmpty {
            fail(path, "\(target) has no key (its objects are named by objectId, one column): give the field one column")
        } else {
            fail(
                path,
                "\(target)'s key has \(Noun.counted(parts, "part")) ([\(mapping.key.joined(separator: ", "))]): columns names \(columns.count); give one column per part, in the key's order"
            )
        }
    }

    /// A `by:` names a field of the target, declared in this manifest, that a cell can name.
    mutating func checkBy(_ by: String, of target: String, at path: ManifestPath) {
        guard let mapping = manifest.mapping(for: target) else {
            fail(path, "\(target) is not declared in this manifest, so its objects cannot be found by \(by)")
            return
        }
        guard let field = mapping.field(named: by) else {
            fail(path, "\(target) has no field \"\(by)\" (its fields: \(mapping.fields.map(\.name).joined(separator: ", ")))")
            return
        }
        switch field.type {
        case .relation: fail(path, "\(target).\(by) is a Relation, which cannot name one object")
        case .geoPoint: fail(path, "\(target).\(by) is a GeoPoint, which a cell cannot name")
        default: break
        }
    }
}
