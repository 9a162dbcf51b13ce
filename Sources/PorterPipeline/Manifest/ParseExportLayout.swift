import Foundation
import ParseModel
import PorterReaders

/// A Parse export folder read without a manifest (Docs/Importing.md):
/// `schema.json` lists the classes as `/schemas` does (`{"results":[…]}` or a plain array),
/// `<Class>.json` holds a class's objects in REST encoding, and `_Join:<field>:<Class>.json`
/// (or Back4App's `_Join꞉<field>꞉<Class>.json`) holds a Relation's `owningId`/`relatedId` rows.
///
/// Without `schema.json`, the classes are inferred from the objects (``ExportSchemaInference``).
/// The folder may also be a `.zip` of it, read in place (``ZipArchive``).
///
/// Its one job is to build the ``DatasetManifest`` that imports such a folder. Class and field
/// names are checked before any file name is made from them; every fault in the layout is an
/// invalid request naming the file and the key path in it.
struct ParseExportLayout {
    /// The file that makes a folder without a manifest a Parse export.
    static let schemaFile = "schema.json"
    /// A join file's name is `_Join`, field and class joined by one of these, then `.json`.
    static let joinSeparators = [":", "\u{A789}"]
    /// Keys of an exported object that are no field: a Dashboard export's `className`; of
    /// `_User`, what Parse.com exported beside the fields (`bcryptPassword`, `sessionToken`), a
    /// database dump's `_hashed_password`, and `password`, which are not imported as readable fields.
    static func isNotAField(_ key: String, of className: String) -> Bool {
        ParseNames.defaultFields.contains(key) || key == "className"
            || className == "_User" && (["password", "sessionToken"] + ParseExportSystemClasses.passwordHashKeys).contains(key)
    }

    /// The export folder (or the folder holding the export's zip).
    let directory: String
    /// The export's files: the folder's, or the zip's.
    let files: SourceFiles
    /// The classes the target already has: pointers and relations may name them.
    let targetClasses: Set<String>
    /// What messages call the schema: `schema.json`, or `inferred schema`.
    var schemaLabel = ParseExportLayout.schemaFile
    /// Join files the inference left out (empty, target unknown), which are not refused.
    var unreadJoinFiles: Set<String> = []
    /// Which system classes are skipped (``ParseExportSystemClasses``).
    var systemClasses = ParseExportSystemClasses(includeInstallations: false)
    /// The class each Relation relates to where the objects cannot say (``ExportSchemaInference/relationTargets``).
    var relationTargets: [String: String] = [:]

    init(directory: String, files: SourceFiles? = nil, targetClasses: Set<String>) {
        self.directory = directory
        self.files = files ?? .folder(directory)
        self.targetClasses = targetClasses
    }

    func fail(_ path: String, _ reason: String) -> PorterError {
        PorterError(ManifestFault(file: schemaLabel, keyPath: ManifestPath(parsing: path).keys, message: reason))
    }

    var entryReader: SchemaEntryReader {
        let label = schemaLabel
        return SchemaEntryReader { path, reason in PorterError(ManifestFault(file: label, keyPath: ManifestPath(parsing: path).keys, message: reason)) }
    }

    func isFile(_ name: String) -> Bool { files.isFile(name) }

    /// The manifest of an export without `schema.json`: its classes inferred from the objects.
    func inferredManifest() throws(PorterError) -> DatasetManifest {
        let inferred = try ExportSchemaInference(
            files: files, targetClasses: targetClasses, systemClasses: systemClasses,
            relationTargets: relationTargets
        ).infer()
        guard inferred.faults.isEmpty else { throw PorterError(.invalidData, gathering: inferred.faults) }
        var layout = self
        layout.schemaLabel = "inferred schema"
        layout.unreadJoinFiles = inferred.unreadJoinFiles
        var manifest = try layout.manifest(from: .object(JSONObject(["results": .array(inferred.classes.map(\.schemaJSON))])))
        manifest.notes = inferred.notes + manifest.notes
        manifest.skippedClasses += inferred.skippedClasses
        return manifest
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
            guard case .object(let spec) = item else { throw fail(path, "must be a class, not \(item.kindName)") }
            let className = try entryReader.className(of: spec, at: path)
            guard listed.insert(className).inserted else { throw fail("\(path).className", "\(className) is listed twice") }
            if let skippedClass = systemClasses.skipped(className) {
                skipped.append(skippedClass)
                continue
            }
            let fields = ParseExportSystemClasses.fields(try self.fields(of: spec, at: path), of: className)
            let (permissions, indexes) = try permissionsAndIndexes(of: spec, at: path)
            let source = "\(className).json"
            guard isFile(source) else { throw PorterError(.invalidRequest, "\(schemaLabel) declares class \(className) but \(source) is missing") }
            var mapping = ClassMapping(className: className, source: source, key: [], fields: fields)
            mapping.ignoredColumns = Set(["className"] + fields.filter(\.fromJoinFile).map(\.name))
            mapping.classLevelPermissions = permissions
            mapping.indexes = indexes
            if className == "_User" { mapping.passwordHashKeys = ParseExportSystemClasses.passwordHashKeys }
            if permissions == nil { withoutPermissions.append(className) }
            classes.append(mapping)
            paths.append(path)
        }
        guard !classes.isEmpty else { throw fail(listPath, "no class to import") }
        try checkTargets(of: classes, at: paths)
        let relations = try joinFiles(of: classes, skipped: Set(skipped.map(\.className)))
        // An inferred schema lists every class file it read, and says so in a note of its own.
        if schemaLabel == Self.schemaFile {
            if let note = Self.publicClassesNote(withoutPermissions) { notes.append(note) }
            skipped += try unlistedClassFiles(listed: listed)
        }
        var manifest = DatasetManifest(
            directory: directory, fileName: schemaLabel, classes: classes, relations: relations, notes: notes,
            files: files, skippedClasses: skipped)
        // Parse keeps the pointers and links to the objects it deletes; so does its export.
        manifest.danglingReferences = .keep
        return manifest
    }

    /// The classes of `/schemas` JSON (`{"results":[…]}`) or of Parse Dashboard's export (a plain
    /// list), and the key path of the list.
    func classList(_ document: JSONValue) throws(PorterError) -> (items: [JSONValue], path: String) {
        switch document {
        case .array(let items):
            return (items, "")
        case .object(let object):
            guard case .array(let items)? = object["results"] else { throw fail("results", "must be a list of classes") }
            return (items, "results")
        default:
            throw fail("", "must be {\"results\": [classes…]} or a list of classes, not \(document.kindName)")
        }
    }

    /// Every Pointer and Relation names a class of the export or of the target.
    func checkTargets(of classes: [ClassMapping], at paths: [String]) throws(PorterError) {
        let known = targetClasses.union(classes.map(\.className))
        for (mapping, path) in zip(classes, paths) {
            for field in mapping.fields {
                if let target = field.type.targetClass, !known.contains(target) {
                    throw fail("\(path).fields.\(field.name).targetClass", "\(target) is a class neither of \(schemaLabel) nor of the target")
                }
            }
        }
    }

    /// A class's own fields (the default ones left out), each read from the key of its name;
    /// Relations come from join files.
    func fields(of spec: JSONObject, at path: String) throws(PorterError) -> [FieldMapping] {
        guard case .object(let specs)? = spec["fields"] else { throw fail("\(path).fields", "must map field names to types") }
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
                if names.count > 1 {
                    throw PorterError(.invalidRequest, "\(names.joined(separator: " and ")): two join files for \(mapping.className).\(field.name)")
                }
                relations.append(
                    JoinRelationMapping(
                        owner: mapping.className, field: field.name, targetClass: target, source: source,
                        ownerColumn: "owningId", targetColumn: "relatedId"))
            }
        }
        for entry in files.fileNames where !claimed.contains(entry) && !unreadJoinFiles.contains(entry) {
            guard let (field, owner) = try Self.joinFileName(entry) else { continue }
            if skipped.contains(owner) { continue }
            guard classes.contains(where: { $0.className == owner }) else {
                throw PorterError(.invalidRequest, "\(entry): \(owner) is not a class in \(schemaLabel)")
            }
            throw PorterError(.invalidRequest, "\(entry): \(owner) has no Relation field \(field)")
        }
        return relations
    }

    /// The field and owner class a join file's name gives, `nil` for a name that is no join
    /// file's; a name that starts like one but is not of the form is an invalid request.
    /// The `<Class>.json` files beside `schema.json` that it does not list: not imported, and so
    /// named in the summary rather than left out without a word.
    private func unlistedClassFiles(listed: Set<String>) throws(PorterError) -> [SkippedClass] {
        var unlisted: [SkippedClass] = []
        for name in files.fileNames where name.hasSuffix(".json") && name != Self.schemaFile && !ManifestLoader.fileNames.contains(name) {
            let className = String(name.dropLast(".json".count))
            guard try Self.joinFileName(name) == nil, !listed.contains(className), ParseNames.classNameProblem(className) == nil else { continue }
            unlisted.append(SkippedClass(className: className, reason: "\(name) is not read: \(Self.schemaFile) does not list \(className)"))
        }
        return unlisted
    }

    static func joinFileName(_ entry: String) throws(PorterError) -> (field: String, owner: String)? {
        guard let separator = joinSeparators.first(where: { entry.hasPrefix("_Join\($0)") }) else { return nil }
        let parts = entry.dropFirst("_Join".count + separator.count).components(separatedBy: separator)
        guard parts.count == 2, parts[1].hasSuffix(".json") else {
            throw PorterError(.invalidRequest, "\(entry): not a join file name (_Join\(separator)<field>\(separator)<Class>.json)")
        }
        return (parts[0], String(parts[1].dropLast(".json".count)))
    }
}
