import ParseModel
import PorterReaders

/// The classes of a Parse export that has no `schema.json`, found from its objects
/// (README "Importing a Parse export"): one class per `<Class>.json`, each key a field typed by
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

    /// What the objects say: the classes, and what the user should know about how they were read.
    struct Inferred {
        var classes: [ClassSchema]
        var notes: [String]
        var skippedClasses: [SkippedClass]
        /// Values that disagree or cannot be typed, each naming its object; the field keeps the
        /// type first seen. An import refuses the export while there is any.
        var faults: [String]
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
        /// Some `relatedId`s of its first rows, to find the class they name when the owner's
        /// objects carry no Relation placeholder.
        var sample: Set<String> = []
        /// How many of ``sample`` each class holds.
        var matches: [String: Int] = [:]
    }

    static let sampleSize = 16

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
            } else if let reason = systemClasses.skipReason(className) {
                skipped.append(SkippedClass(className: className, reason: reason))
            } else {
                classFiles.append((className, name))
            }
        }
        guard !classFiles.isEmpty else { throw PorterError(.usage, "no <Class>.json file to infer classes from, and no schema.json") }
        guard classFiles.count <= DatasetManifest.maximumClasses else { throw PorterError(.usage, "\(files.displayName): " + DatasetManifest.tooManyClasses(classFiles.count)) }
        let exported = Set(classFiles.map(\.className))
        for index in joins.indices where !exported.contains(joins[index].owner) && !skipped.contains(where: { $0.className == joins[index].owner }) {
            throw PorterError(.usage, "\(joins[index].name): \(joins[index].owner) has no \(joins[index].owner).json")
        }
        joins.removeAll { join in skipped.contains { $0.className == join.owner } }
        for index in joins.indices { joins[index].sample = try sampleRelatedIds(joins[index].name) }

        var faults: [String] = []
        var classes: [ClassSchema] = []
        for (className, file) in classFiles {
            let fields = try inferFields(of: className, from: file, joins: &joins, faults: &faults)
            classes.append(ClassSchema(className: className, fields: fields))
        }
        var unread: Set<String> = []
        try relate(&classes, joins: joins, notes: &notes, unread: &unread, faults: &faults)
        notes.append("no \(ParseExportLayout.schemaFile): the classes were inferred from the objects; classes created get all-public class-level permissions (review them with parse-porter schema infer, then schema push)")
        return Inferred(classes: classes, notes: notes, skippedClasses: skipped, faults: faults, unreadJoinFiles: unread)
    }

    /// The fields of one class file, in the order first seen.
    private func inferFields(of className: String, from file: String, joins: inout [JoinFile], faults: inout [String]) throws(PorterError) -> [SchemaField] {
        var reader: any RecordReader
        do { reader = try files.openReader(file, format: .json) } catch { throw PorterError(.invalidData, error.description) }
        var states: [String: FieldState] = [:]
        var order: [String] = []
        let system = Dictionary(uniqueKeysWithValues: SystemClasses.defaultFields(of: className).map { ($0.name, $0.type) })
        let sampled = joins.indices.filter { !joins[$0].sample.isEmpty }
        while true {
            let record: SourceRecord?
            do { record = try reader.next() } catch { throw PorterError(.invalidData, error.description) }
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
                    faults.append("\(at): \(className).\(member.key): \(reason)")
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
                faults.append("\(conflict.at): \(className).\(name) is a \(conflict.type) here but a \(state.type) at \(state.first): "
                              + "a field's values must have one type; declare it in a \(ParseExportLayout.schemaFile) beside the files "
                              + "(parse-porter schema infer gives one to edit) and the values that do not fit are reported")
            } else if let expected = system[name], expected != state.type {
                faults.append("\(state.first): \(className).\(name) is Parse's \(expected) field, not a \(state.type)")
            } else if let target = state.type.targetClass, ParseNames.classNameProblem(target) != nil {
                continue // reported by type(of:)
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

    struct TypeFault: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The first distinct `relatedId`s of a join file.
    private func sampleRelatedIds(_ file: String) throws(PorterError) -> Set<String> {
        var reader: any RecordReader
        do { reader = try files.openReader(file, format: .json) } catch { throw PorterError(.invalidData, error.description) }
        var sample: Set<String> = []
        var rows = 0
        while sample.count < Self.sampleSize, rows < Self.sampleSize * 64 {
            let record: SourceRecord?
            do { record = try reader.next() } catch { throw PorterError(.invalidData, error.description) }
            guard let record else { break }
            rows += 1
            if case .json(let object) = record.content, let id = object["relatedId"]?.stringValue { sample.insert(id) }
        }
        return sample
    }

    /// Each join file's Relation: the owner's placeholders name the target; failing that, the
    /// class holding most of the sampled `relatedId`s (a Parse system class's own relation,
    /// `_Role.users`, has its fixed target).
    private func relate(_ classes: inout [ClassSchema], joins: [JoinFile], notes: inout [String], unread: inout Set<String>, faults: inout [String]) throws(PorterError) {
        for join in joins {
            guard let ownerIndex = classes.firstIndex(where: { $0.className == join.owner }) else { continue }
            if let field = classes[ownerIndex].field(named: join.field) {
                if !field.type.isRelation {
                    faults.append("\(join.name): \(join.owner).\(join.field) holds \(field.type) values, not a Relation's placeholders")
                }
                continue
            }
            let system = SystemClasses.defaultFields(of: join.owner).first { $0.name == join.field }?.type
            if let problem = ParseNames.fieldNameProblem(join.field) {
                throw PorterError(.usage, "\(join.name): \"\(join.field)\" is not a field name (\(problem))")
            }
            let target: String
            if let system, case .relation(let systemTarget) = system {
                target = systemTarget
            } else {
                let ranked = join.matches.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
                if join.sample.isEmpty {
                    // No row and no placeholder: no link to lose, and no class to name.
                    notes.append("\(join.name): not read: it has no rows, and no \(join.owner) object says which class \(join.owner).\(join.field) relates to")
                    unread.insert(join.name)
                    continue
                }
                guard let best = ranked.first else {
                    faults.append("\(join.name): cannot tell which class \(join.owner).\(join.field) relates to: "
                                  + "no object of the export has one of its relatedIds (\(join.sample.sorted().prefix(3).joined(separator: ", ")))"
                                  + "; declare the field in a \(ParseExportLayout.schemaFile)")
                    continue
                }
                if ranked.count > 1 && ranked[1].value == best.value {
                    faults.append("\(join.name): its relatedIds name objects of \(best.key) and of \(ranked[1].key) alike; declare \(join.owner).\(join.field) in a \(ParseExportLayout.schemaFile)")
                    continue
                }
                target = best.key
            }
            classes[ownerIndex].fields.append(SchemaField(name: join.field, type: .relation(targetClass: target)))
        }
        let known = targetClasses.union(classes.map(\.className))
        for schema in classes {
            for field in schema.fields {
                if let target = field.type.targetClass, !known.contains(target) {
                    faults.append("\(schema.className).json: \(schema.className).\(field.name) is a \(field.type), but \(target) is a class neither of the export nor of the target")
                }
            }
        }
    }
}
