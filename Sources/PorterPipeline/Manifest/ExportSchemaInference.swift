import ParseModel
import PorterReaders

/// The classes of a Parse export that has no `schema.json`, found from its objects
/// (Docs/Importing.md): one class per `<Class>.json`, each key a field typed by
/// its values' wire encoding, Relations from placeholders and join files.
///
/// Files are streamed: memory holds one object and, per field, its type and where it was first
/// seen. Values that disagree on a field's type are faults naming both objects: Parse has no type
/// that holds two others unchanged (a Date stored in a String field comes back a String).
struct ExportSchemaInference {
    let files: SourceFiles
    /// The classes the target already has: pointers and relations may name them.
    let targetClasses: Set<String>
    /// Which system classes are skipped (``ParseExportSystemClasses``).
    var systemClasses = ParseExportSystemClasses(includeInstallations: false)
    /// The class each Relation (`Owner.field`) relates to, given where the objects cannot say
    /// (``ParseExportOptions/relationTargets``).
    var relationTargets: [String: String] = [:]

    /// What the objects say: the classes, and what the user should know about how they were read.
    struct Inferred {
        var classes: [ClassSchema]
        var notes: [String]
        var skippedClasses: [SkippedClass]
        /// Values that disagree or cannot be typed, each naming its object, and Relations whose
        /// class cannot be told; the field keeps the type first seen. An import refuses the
        /// export while there is any.
        var faults: [PorterError]
        /// Join files left out: empty, with no placeholder to name their target.
        var unreadJoinFiles: Set<String> = []
    }

    /// Where a value was seen: `Post.json:7 (objectId "p2")`.
    struct Sighting: CustomStringConvertible {
        let file: String
        let line: Int
        let objectId: String?

        var description: String { "\(file):\(line)" + (objectId.map { " (objectId \"\($0)\")" } ?? "") }
    }

    struct FieldState {
        var type: FieldType
        let first: Sighting
        var conflict: (type: FieldType, at: Sighting)?
    }

    /// A join file's relation, before its target is known.
    struct JoinFile {
        let name: String
        let owner: String
        let field: String
        /// The distinct `relatedId`s of its first rows (up to ``sampleSize``), to find the class
        /// they name when the owner's objects carry no Relation placeholder.
        var sample: Set<String> = []
        /// How many of ``sample`` each class holds.
        var matches: [String: Int] = [:]
    }

    /// How many distinct `relatedId`s of a join file are looked for among the export's objects:
    /// enough to find the class past the rows of deleted objects a real export starts with
    /// (one had 96 such rows of 156).
    static let sampleSize = 256

    func infer() throws(PorterError) -> Inferred {
        var notes: [String] = [], skipped: [SkippedClass] = []
        var classFiles: [(className: String, file: String)] = []
        var joins: [JoinFile] = []
        for name in files.fileNames where name.hasSuffix(".json") {
            if name == ParseExportLayout.schemaFile || ManifestLoader.fileNames.contains(name) { continue }
            if let join = try ParseExportLayout.joinFileName(name) {
                joins.append(JoinFile(name: name, owner: join.owner, field: join.field))
                continue
            }
            let className = String(name.dropLast(".json".count))
            if let problem = ParseNames.classNameProblem(className) {
                notes.append("\(name): not read: \"\(className)\" is not a class name (\(problem))")
            } else if let skippedClass = systemClasses.skipped(className) {
                skipped.append(skippedClass)
            } else {
                classFiles.append((className, name))
            }
        }
        guard !classFiles.isEmpty else { throw PorterError(.invalidRequest, "no <Class>.json file to infer classes from, and no schema.json") }
        guard classFiles.count <= DatasetManifest.maximumClasses else {
            throw PorterError(.invalidRequest, "\(files.displayName): " + DatasetManifest.tooManyClasses(classFiles.count))
        }
        let exported = Set(classFiles.map(\.className))
        for index in joins.indices where !exported.contains(joins[index].owner) && !skipped.contains(where: { $0.className == joins[index].owner }) {
            throw PorterError(.invalidRequest, "\(joins[index].name): \(joins[index].owner) has no \(joins[index].owner).json")
        }
        joins.removeAll { join in skipped.contains { $0.className == join.owner } }
        for index in joins.indices { joins[index].sample = try sampleRelatedIds(joins[index].name) }

        var faults: [PorterError] = []
        var classes: [ClassSchema] = []
        for (className, file) in classFiles {
            let fields = try inferFields(of: className, from: file, joins: &joins, faults: &faults)
            classes.append(ClassSchema(className: className, fields: fields))
        }
        var unread: Set<String> = []
        try relate(&classes, joins: joins, notes: &notes, unread: &unread, faults: &faults)
        notes.append(
            "no \(ParseExportLayout.schemaFile): the classes were inferred from the objects; classes created get all-public class-level permissions (review them with parse-porter schema infer, then schema push)"
        )
        return Inferred(classes: classes, notes: notes, skippedClasses: skipped, faults: faults, unreadJoinFiles: unread)
    }

    /// The fields of one class file, in the order first seen.
    private func inferFields(of className: String, from file: String, joins: inout [JoinFile], faults: inout [PorterError]) throws(PorterError) -> [SchemaField]
    {
        var reader: any RecordReader
        do { reader = try files.openExportReader(file) } catch { throw Self.unreadable(file, error) }
        var states: [String: FieldState] = [:]
        var order: [String] = []
        let system = Dictionary(uniqueKeysWithValues: SystemClasses.defaultFields(of: className).map { ($0.name, $0.type) })
        let sampled = joins.indices.filter { !joins[$0].sample.isEmpty }
        while true {
            let record: SourceRecord?
            do { record = try reader.next() } catch { throw Self.unreadable(file, error) }
            guard let record else { break }
            guard case .json(let object) = record.content else { continue }
            let objectId = object["objectId"]?.stringValue
            if let objectId {
                for index in sampled where joins[index].sample.contains(objectId) { joins[index].matches[className, default: 0] += 1 }
            }
            for member in object where !ParseExportLayout.isNotAField(member.key, of: className) && ParseNames.fieldNameProblem(member.key) == nil {
                let at = Sighting(file: file, line: record.line, objectId: objectId)
                let type: FieldType
                switch Self.type(of: member.value) {
                case .none: continue
                case .success(let found): type = found
                case .failure(let reason):
                    faults.append(PorterError(.invalidData, "\(at): \(className).\(member.key): \(reason)"))
                    continue
                }
                guard var state = states[member.key] else {
                    states[member.key] = FieldState(type: type, first: at)
                    order.append(member.key)
                    continue
                }
                if state.type != type && state.conflict == nil {
                    state.conflict = (type, at)
                    states[member.key] = state
                }
            }
        }
        var fields: [SchemaField] = []
        for name in order {
            let state = states[name]!
            if let conflict = state.conflict {
                fields.append(SchemaField(name: name, type: state.type))
                faults.append(
                    PorterError(
                        .invalidData,
                        "\(conflict.at): \(className).\(name) is a \(conflict.type) here but a \(state.type) at \(state.first): "
                            + "a field's values must have one type; declare it in a \(ParseExportLayout.schemaFile) beside the files "
                            + "(parse-porter schema infer gives one to edit) and the values that do not fit are reported"))
            } else if let expected = system[name], expected != state.type {
                faults.append(PorterError(.invalidData, "\(state.first): \(className).\(name) is Parse's \(expected) field, not a \(state.type)"))
            } else if let target = state.type.targetClass, ParseNames.classNameProblem(target) != nil {
                continue  // reported by type(of:)
            } else {
                fields.append(SchemaField(name: name, type: state.type))
            }
        }
        return fields
    }

    /// A value's type by its wire encoding; `nil` for `null` (unset), a reason for a malformed
    /// `__type` value.
    static func type(of value: JSONValue) -> Result<FieldType, TypeFault>? {
        switch value {
        case .null: return nil
        case .bool: return .success(.boolean)
        case .integer, .double: return .success(.number)
        case .string: return .success(.string)
        case .array: return .success(.array)
        case .object(let object):
            guard case .string(let kind)? = object["__type"] else { return .success(.object) }
            switch kind {
            case "Date": return .success(.date)
            case "File": return .success(.file)
            case "GeoPoint": return .success(.geoPoint)
            case "Bytes": return .success(.bytes)
            case "Polygon": return .success(.polygon)
            case "Pointer", "Object", "Relation":
                guard case .string(let target)? = object["className"] else { return .failure(TypeFault("a \(kind) without a className")) }
                if let problem = ParseNames.classNameProblem(target) { return .failure(TypeFault("\(kind) className \"\(target)\": \(problem)")) }
                return .success(kind == "Relation" ? .relation(targetClass: target) : .pointer(targetClass: target))
            default:
                return .failure(TypeFault("unknown __type \"\(kind)\""))
            }
        }
    }

    /// The class a Relation field's name names, if exactly one of `classes` fits: the name or
    /// its singular (`tags`: `Tag`), after the owner's name (`ArticleTag`), or Parse's own
    /// (`users`: `_User`); compared without case.
    static func classNamed(by field: String, owner: String, among classes: Set<String>) -> String? {
        let name = field.lowercased()
        var stems = [name]
        if name.hasSuffix("ies") { stems.append(String(name.dropLast(3)) + "y") }
        if name.hasSuffix("es") { stems.append(String(name.dropLast(2))) }
        if name.hasSuffix("s") { stems.append(String(name.dropLast())) }
        let wanted = Set(stems.flatMap { [$0, owner.lowercased() + $0, "_" + $0] })
        let fits = classes.filter { wanted.contains($0.lowercased()) }
        return fits.count == 1 ? fits.first : nil
    }

    /// A file the export cannot read: it may be no class's objects at all (a stray file beside
    /// them), which leaving it out gets past.
    static func unreadable(_ file: String, _ error: ReaderError) -> PorterError {
        PorterError(.invalidData, "\(error.description): if \(file) is not part of the export, leave it out", setting: .excludedFiles, value: file)
    }

    struct TypeFault: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The first distinct `relatedId`s of a join file.
    private func sampleRelatedIds(_ file: String) throws(PorterError) -> Set<String> {
        var reader: any RecordReader
        do { reader = try files.openExportReader(file) } catch { throw Self.unreadable(file, error) }
        var sample: Set<String> = []
        var rows = 0
        while sample.count < Self.sampleSize, rows < Self.sampleSize * 64 {
            let record: SourceRecord?
            do { record = try reader.next() } catch { throw Self.unreadable(file, error) }
            guard let record else { break }
            rows += 1
            if case .json(let object) = record.content, let id = object["relatedId"]?.stringValue { sample.insert(id) }
        }
        return sample
    }

    /// Each join file's Relation: the owner's placeholders name the target; failing that, the
    /// class given for it (``relationTargets``), the class holding most of the sampled
    /// `relatedId`s, or the class the field's name names (a guess, in a note). A Parse system
    /// class's own relation (`_Role.users`) has its fixed target.
    private func relate(
        _ classes: inout [ClassSchema], joins: [JoinFile], notes: inout [String], unread: inout Set<String>,
        faults: inout [PorterError]
    ) throws(PorterError) {
        let known = targetClasses.union(classes.map(\.className))
        for relation in relationTargets.keys.sorted() where !joins.contains(where: { "\($0.owner).\($0.field)" == relation }) {
            let present = joins.isEmpty ? "it has none" : "it has " + joins.map(\.name).joined(separator: ", ")
            throw PorterError(
                .invalidRequest, "\(relation)=\(relationTargets[relation]!): the export has no join file of that Relation (\(present))",
                setting: .relationTargets)
        }
        for join in joins {
            guard let ownerIndex = classes.firstIndex(where: { $0.className == join.owner }) else { continue }
            let relation = "\(join.owner).\(join.field)"
            let given = relationTargets[relation]
            if let given, !known.contains(given) {
                throw PorterError(
                    .invalidRequest, "\(relation)=\(given): \(given) is a class neither of the export nor of the target", setting: .relationTargets)
            }
            if let field = classes[ownerIndex].field(named: join.field) {
                if !field.type.isRelation {
                    faults.append(PorterError(.invalidData, "\(join.name): \(relation) holds \(field.type) values, not a Relation's placeholders"))
                } else if let given, field.type.targetClass != given {
                    faults.append(
                        PorterError(
                            .invalidData, "\(join.name): \(relation) is given the class \(given), but its objects' placeholders say \(field.type)",
                            setting: .relationTargets, value: relation))
                }
                continue
            }
            let system = SystemClasses.defaultFields(of: join.owner).first { $0.name == join.field }?.type
            if let problem = ParseNames.fieldNameProblem(join.field) {
                throw PorterError(.invalidRequest, "\(join.name): \"\(join.field)\" is not a field name (\(problem))")
            }
            let target: String
            if let system, case .relation(let systemTarget) = system {
                target = systemTarget
            } else if let given {
                target = given
            } else {
                let ranked = join.matches.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
                if join.sample.isEmpty {
                    // No row and no placeholder: no link to lose, and no class to name.
                    notes.append("\(join.name): not read: it has no rows, and no \(join.owner) object says which class \(relation) relates to")
                    unread.insert(join.name)
                    continue
                }
                if let best = ranked.first {
                    if ranked.count > 1 && ranked[1].value == best.value {
                        faults.append(
                            PorterError(
                                .invalidData,
                                "\(join.name): its relatedIds name objects of \(best.key) and of \(ranked[1].key) alike; "
                                    + "say which class \(relation) relates to, or declare it in a \(ParseExportLayout.schemaFile)",
                                setting: .relationTargets, value: relation))
                        continue
                    }
                    target = best.key
                } else if let named = Self.classNamed(by: join.field, owner: join.owner, among: known) {
                    // Every related object is gone: the field's name is all there is to go by.
                    notes.append(
                        "\(join.name): \(relation) is taken to relate to \(named), from the field's name: none of its relatedIds "
                            + "names an object of the export, and no \(join.owner) object holds its placeholder")
                    target = named
                } else {
                    let sample = join.sample.sorted()
                    faults.append(
                        PorterError(
                            .invalidData,
                            "\(join.name): cannot tell which class \(relation) relates to: none of its relatedIds ("
                                + sample.prefix(3).joined(separator: ", ") + (sample.count > 3 ? ", …" : "")
                                + ") names an object of the export, no \(join.owner) object holds its placeholder, and its name names no class; "
                                + "say which class, or declare it in a \(ParseExportLayout.schemaFile)",
                            setting: .relationTargets, value: relation))
                    continue
                }
            }
            classes[ownerIndex].fields.append(SchemaField(name: join.field, type: .relation(targetClass: target)))
        }
        for schema in classes {
            for field in schema.fields {
                if let target = field.type.targetClass, !known.contains(target) {
                    faults.append(
                        PorterError(
                            .invalidData,
                            "\(schema.className).json: \(schema.className).\(field.name) is a \(field.type), but \(target) is a class neither of the export nor of the target"
                        ))
                }
            }
        }
    }
}
