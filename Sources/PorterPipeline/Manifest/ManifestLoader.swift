import Foundation
import ParseModel
import PorterMongoFiles
import PorterReaders

/// Finds, parses and checks a dataset manifest; every fault is an invalid request (``PorterError/Cause/invalidRequest``)
/// naming the manifest and the key path (`classes.Book.fields.genre.type`).
public enum ManifestLoader {
    /// The manifest names a dataset folder is searched for, in this order.
    package static let fileNames = ["dataset.yml", "dataset.yaml", "dataset.json"]
    /// The largest `schema.json` read from an archive.
    static let schemaFileLimit = 64 << 20

    /// What a dataset path names.
    enum Located {
        /// A manifest file (`dataset.yml`, or a Parse export's `schema.json` given as a file) in its folder.
        case manifest(directory: String, fileName: String)
        /// A Parse export without a manifest: a folder of `<Class>.json` files (and perhaps `schema.json`), or its `.zip`.
        case export(directory: String, files: SourceFiles)
        /// Parse Server's MongoDB collections (PorterMongoFiles' `MongoDumpLayout`): a folder holding `_SCHEMA.json`, or its `.zip`.
        case mongo(directory: String, files: SourceFiles)
    }

    /// Loads `path`: a dataset folder holding a manifest, or the manifest file itself. A folder
    /// without a manifest is a Parse export (``ParseExportLayout``): with a `schema.json`, or with
    /// classes inferred from its `<Class>.json` files; so is a `.zip` of one. A folder holding
    /// `_SCHEMA.json` is Parse Server's MongoDB collections (``ParseExportLayout/mongoDumpManifest()``), and so is a `.zip` of one.
    /// `targetClasses` are the classes the target already has (pointers may name them).
    /// `includeInstallations` imports a Parse export's `_Installation` objects instead of skipping them.
    public static func load(_ path: String, targetClasses: Set<String> = [], includeInstallations: Bool = false) throws(PorterError) -> DatasetManifest {
        try load(path, targetClasses: targetClasses, export: ParseExportOptions(includeInstallations: includeInstallations))
    }

    /// ``load(_:targetClasses:includeInstallations:)``, a Parse export (or MongoDB layout) read as
    /// `options` say: its excluded files are named in the manifest's notes; a dataset with a
    /// manifest takes no excluded files or relation targets (an invalid request).
    public static func load(_ path: String, targetClasses: Set<String> = [], export options: ParseExportOptions) throws(PorterError) -> DatasetManifest {
        let systemClasses = ParseExportSystemClasses(includeInstallations: options.includeInstallations)
        var manifest: DatasetManifest
        switch try locate(path) {
        case .manifest(let directory, let fileName) where fileName == ParseExportLayout.schemaFile:
            try options.check(forExportWithSchema: fileName)
            var layout = ParseExportLayout(directory: directory, targetClasses: targetClasses)
            layout.systemClasses = systemClasses
            manifest = try layout.manifest(from: document(directory, fileName))
        case .manifest(let directory, let fileName):
            try options.check(forManifest: fileName)
            var decoder = ManifestDecoder(fileName: fileName, directory: directory)
            manifest = try decoder.decode(document(directory, fileName))
        case .export(let directory, let whole):
            let (files, notes) = try options.select(whole)
            var layout = ParseExportLayout(directory: directory, files: files, targetClasses: targetClasses)
            layout.systemClasses = systemClasses
            layout.relationTargets = options.relationTargets
            if files.isFile(ParseExportLayout.schemaFile) {
                try options.check(forExportWithSchema: ParseExportLayout.schemaFile)
                manifest = try layout.manifest(from: exportSchema(in: files, layout: layout))
            } else {
                if let fault = MongoDumpLayout.missingSchemaFault(files) { throw fault }
                manifest = try layout.inferredManifest()
            }
            manifest.notes = notes + manifest.notes + nestedNotes(files)
        case .mongo(let directory, let whole):
            try options.check(forExportWithSchema: MongoLayout.schemaFile)
            let (files, notes) = try options.select(whole)
            var layout = ParseExportLayout(directory: directory, files: files, targetClasses: targetClasses)
            layout.systemClasses = systemClasses
            manifest = try layout.mongoDumpManifest()
            manifest.notes = notes + manifest.notes + nestedNotes(files)
        }
        try manifest.check(targetClasses: targetClasses)
        return try ManifestSources(manifest: manifest).resolved()
    }

    /// The classes a Parse export's objects give, as `/schemas` lists them (`schema infer`); the
    /// export's `schema.json`, if it has one, is not read. Also what the user should know, and the
    /// faults: values that disagree on a field's type (the field then has the type first seen),
    /// Relations whose class cannot be told (left out), each with the setting that gets past it.
    public static func inferSchema(_ path: String, targetClasses: Set<String> = [], export options: ParseExportOptions = ParseExportOptions())
        throws(PorterError)
        -> (classes: [ClassSchema], notes: [String], faults: [PorterError])
    {
        let whole: SourceFiles
        switch try locate(path) {
        case .export(_, let found): whole = found
        case .manifest(let directory, let fileName) where fileName == ParseExportLayout.schemaFile: whole = .folder(directory)
        case .manifest(_, let fileName):
            throw PorterError(.invalidRequest, "\(path): a dataset with a manifest (\(fileName)); schema infer reads a Parse export's <Class>.json files")
        case .mongo:
            throw PorterError(
                .invalidRequest,
                "\(path): Parse Server's MongoDB collections, whose classes \(MongoLayout.schemaFile) declares; schema infer reads a Parse export's <Class>.json files"
            )
        }
        let (files, notes) = try options.select(whole)
        let inferred = try ExportSchemaInference(files: files, targetClasses: targetClasses, relationTargets: options.relationTargets).infer()
        return (inferred.classes, notes + inferred.notes.filter { !$0.hasPrefix("no \(ParseExportLayout.schemaFile):") }, inferred.faults)
    }

    /// The default target of the dataset at `path`: `<folder>/<folder name>.sqlite`, or for an
    /// archive `<its folder>/<its name>.sqlite`.
    package static func defaultMirror(for path: String) throws(PorterError) -> String {
        if isArchive(path) {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            return url.deletingPathExtension().appendingPathExtension("sqlite").path
        }
        let directory: String
        switch try locate(path) {
        case .manifest(let folder, _), .export(let folder, _), .mongo(let folder, _): directory = folder
        }
        let url = URL(fileURLWithPath: directory).standardizedFileURL
        return url.appendingPathComponent("\(url.lastPathComponent).sqlite").path
    }

    static func isArchive(_ path: String) -> Bool { path.lowercased().hasSuffix(".zip") }

    /// What a `.zip` holds below its export's folder, which is not read.
    private static func nestedNotes(_ files: SourceFiles) -> [String] {
        guard let archive = files.archive else { return [] }
        return archive.nested.map { "\(archive.displayName): \($0) is not read: it is below the export's folder" }
    }

    static func document(_ directory: String, _ fileName: String) throws(PorterError) -> JSONValue {
        let fullPath = (directory as NSString).appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: fullPath), let text = String(data: data, encoding: .utf8) else {
            throw PorterError(ManifestFault(file: fileName, keyPath: [], message: "cannot read the manifest (not a UTF-8 text file)"))
        }
        return try parse(text, fileName: fileName)
    }

    /// A Parse export's `schema.json`, which must at least be a list of classes: another file of
    /// that name (a project's own `schema.json` beside its seed data) can be left out, and the
    /// classes are then inferred from the objects.
    private static func exportSchema(in files: SourceFiles, layout: ParseExportLayout) throws(PorterError) -> JSONValue {
        let name = ParseExportLayout.schemaFile
        do {
            let document = try schemaDocument(in: files)
            _ = try layout.classList(document)
            return document
        } catch {
            throw PorterError(
                error.cause, error.message + ": if \(name) is not the export's schema, leave it out and the classes are inferred from the objects",
                setting: .excludedFiles, value: name)
        }
    }

    static func schemaDocument(in files: SourceFiles) throws(PorterError) -> JSONValue {
        let name = ParseExportLayout.schemaFile
        let data: [UInt8]
        do { data = try files.contents(of: name, limit: schemaFileLimit) } catch { throw PorterError(.invalidRequest, error.description) }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw PorterError(ManifestFault(file: name, keyPath: [], message: "cannot read the manifest (not a UTF-8 text file)"))
        }
        return try parse(text, fileName: name)
    }

    static func parse(_ text: String, fileName: String) throws(PorterError) -> JSONValue {
        guard let document = try StructuredText.parse(text, fileName: fileName) else {
            throw PorterError(ManifestFault(file: fileName, keyPath: [], message: "the manifest is empty"))
        }
        return document
    }

    static func locate(_ path: String) throws(PorterError) -> Located {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PorterError(.invalidRequest, "\(path): no such dataset folder or manifest")
        }
        if !isDirectory.boolValue {
            let url = URL(fileURLWithPath: path)
            let directory = url.deletingLastPathComponent().path
            guard isArchive(path) else { return .manifest(directory: directory, fileName: url.lastPathComponent) }
            let files: SourceFiles
            do {
                files = .zip(try ZipArchive(path: path))
            } catch {
                throw PorterError(.invalidRequest, error.message)
            }
            return MongoDumpLayout.isDump(files) ? .mongo(directory: directory, files: files) : .export(directory: directory, files: files)
        }
        for name in fileNames where FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(name)) {
            return .manifest(directory: path, fileName: name)
        }
        let files = SourceFiles.folder(path)
        // A Parse export with its schema, whose files may still be left out (the schema among them).
        if files.isFile(ParseExportLayout.schemaFile) { return .export(directory: path, files: files) }
        if MongoDumpLayout.isDump(files) { return .mongo(directory: path, files: files) }
        guard files.fileNames.contains(where: { $0.hasSuffix(".json") }) else {
            throw PorterError(.invalidRequest, "\(path): no dataset.yml or dataset.json in this folder, nor the <Class>.json files of a Parse export")
        }
        return .export(directory: path, files: files)
    }
}
