import Foundation
import ParseModel

/// A Parse export folder read without a manifest (README "Importing a Parse export"):
/// `schema.json` lists the classes as `/schemas` does (`{"results":[…]}` or a plain array),
/// `<Class>.json` holds a class's objects in REST encoding, and `_Join:<field>:<Class>.json`
/// (or Back4App's `_Join꞉<field>꞉<Class>.json`) holds a Relation's `owningId`/`relatedId` rows.
///
/// Its one job is to build the ``DatasetManifest`` that imports such a folder. Class and field
/// names are checked before any file name is made from them; every fault in the layout is a
/// usage error naming the file and the key path in it.
struct ParseExportLayout {
    /// The file that makes a folder without a manifest a Parse export.
    static let schemaFile = "schema.json"
    /// A join file's name is `_Join`, field and class joined by one of these, then `.json`.
    static let joinSeparators = [":", "\u{A789}"]
    /// The export folder.
    let directory: String
    /// The classes the target already has: pointers and relations may name them.
    let targetClasses: Set<String>
    /// Which system classes are skipped (``ParseExportSystemClasses``).
    var systemClasses = ParseExportSystemClasses(includeInstallations: false)

    static func fail(_ path: String, _ reason: String) -> PorterError {
        PorterError(.usage, path.isEmpty ? "\(Self.schemaFile): \(reason)" : "\(Self.schemaFile): \(path): \(reason)")
    }

    let entryReader = SchemaEntryReader(fail: ParseExportLayout.fail)

    func isFile(_ name: String) -> Bool {
        var isDirectory: ObjCBool = false
        let path = (directory as NSString).appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    /// The manifest for the folder, from the parsed `schema.json`.
    func manifest(from document: JSONValue) throws(PorterError) -> DatasetManifest {
        let (items, listPath) = try classList(document)
        var classes: [ClassMapping] = []
        var paths: [String] = []
        var listed: Set<String> = []
        var notes: [String] = []
        var skipped: [SkippedClass] = []
        var withoutPermissions: [String] = []
        for (index, item) in items.enumerated() {
            let path = "\(listPath)[\(index)]"
            guard case .object(let spec) = item else { throw Self.fail(path, "must be a class, not \(item.kindName)") }
            let className = try entryReader.className(of: spec, at: path)
            guard listed.insert(className).inserted else { throw Self.fail("\(path).className", "\(className) is listed twice") }
            if let reason = systemClasses.skipReason(className) {
                skipped.append(SkippedClass(className: className, reason: reason))
                continue
            }
            let fields = ParseExportSystemClasses.fields(try self.fields(of: spec, at: path), of: className)
            let (permissions, indexes) = try permissionsAndIndexes(of: spec, at: path)
            let source = "\(className).json"
            guard isFile(source) else { throw PorterError(.usage, "\(Self.schemaFile) declares class \(className) but \(source) is missing") }
            var mapping = ClassMapping(className: className, source: source, key: [], fields: fields)
            mapping.classLevelPermissions = permissions
            mapping.indexes = indexes
            if className == "_User" { mapping.passwordHashKeys = ParseExportSystemClasses.passwordHashKeys }
            if permissions == nil { withoutPermissions.append(className) }
            classes.append(mapping)
            paths.append(path)
        }
        guard !classes.isEmpty else { throw Self.fail(listPath, "no class to import") }
        try checkTargets(of: classes, at: paths)
        let relations = try joinFiles(of: classes, skipped: Set(skipped.map(\.className)))
        if let note = Self.publicClassesNote(withoutPermissions) { notes.append(note) }
        var manifest = DatasetManifest(directory: directory, fileName: Self.schemaFile, classes: classes, relations: relations, notes: notes)
        manifest.skippedClasses = skipped
        return manifest
    }

    /// The classes of `/schemas` JSON (`{"results":[…]}`) or of Parse Dashboard's export (a plain
    /// list), and the key path of the list.
    func classList(_ document: JSONValue) throws(PorterError) -> (items: [JSONValue], path: String) {
        switch document {
        case .array(let items):
            return (items, "")
        case .object(let object):
            guard case .array(let items)? = object["results"] else { throw Self.fail("results", "must be a list of classes") }
            return (items, "results")
        default:
            throw Self.fail("", "must be {\"results\": [classes…]} or a list of classes, not \(document.kindName)")
        }
    }

    /// Every Pointer and Relation names a class of the export or of the target.
    func checkTargets(of classes: [ClassMapping], at paths: [String]) throws(PorterError) {
        let known = targetClasses.union(classes.map(\.className))
        for (mapping, path) in zip(classes, paths) {
            for field in mapping.fields {
                if let target = field.type.targetClass, !known.contains(target) {
                    throw Self.fail("\(path).fields.\(field.name).targetClass", "\(target) is a class neither of \(Self.schemaFile) nor of the target")
                }
            }
        }
    }

    /// A class's own fields (the default ones left out), each read from the key of its name;
    /// Relations come from join files.
    func fields(of spec: JSONObject, at path: String) throws(PorterError) -> [FieldMapping] {
        guard case .object(let specs)? = spec["fields"] else { throw Self.fail("\(path).fields", "must map field names to types") }
        return try entryReader.fields(specs, at: "\(path).fields").map { field in
            FieldMapping(name: field.name, type: field.type, required: field.required, defaultValue: field.defaultValue, fromJoinFile: field.type.isRelation)
        }
    }

    /// The join file of each Relation field that has one (a Relation without one has no links),
    /// after checking that every join file in the folder belongs to a Relation of `classes`.
    func joinFiles(of classes: [ClassMapping], skipped: Set<String>) throws(PorterError) -> [JoinRelationMapping] {
        var relations: [JoinRelationMapping] = []
        var claimed: Set<String> = []
        for mapping in classes {
            for field in mapping.fields {
                guard case .relation(let target) = field.type else { continue }
                let names = Self.joinSeparators.map { "_Join\($0)\(field.name)\($0)\(mapping.className).json" }.filter(isFile)
                claimed.formUnion(names)
                guard let source = names.first else { continue }
                if names.count > 1 { throw PorterError(.usage, "\(names.joined(separator: " and ")): two join files for \(mapping.className).\(field.name)") }
                relations.append(JoinRelationMapping(owner: mapping.className, field: field.name, targetClass: target, source: source,
                                                     ownerColumn: "owningId", targetColumn: "relatedId"))
            }
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for entry in entries.sorted() where !claimed.contains(entry) {
            guard let separator = Self.joinSeparators.first(where: { entry.hasPrefix("_Join\($0)") }) else { continue }
            let parts = entry.dropFirst("_Join".count + separator.count).components(separatedBy: separator)
            guard parts.count == 2, parts[1].hasSuffix(".json") else {
                throw PorterError(.usage, "\(entry): not a join file name (_Join\(separator)<field>\(separator)<Class>.json)")
            }
            let field = parts[0], owner = String(parts[1].dropLast(".json".count))
            if skipped.contains(owner) { continue }
            guard classes.contains(where: { $0.className == owner }) else {
                throw PorterError(.usage, "\(entry): \(owner) is not a class in \(Self.schemaFile)")
            }
            throw PorterError(.usage, "\(entry): \(owner) has no Relation field \(field)")
        }
        return relations
    }
}
