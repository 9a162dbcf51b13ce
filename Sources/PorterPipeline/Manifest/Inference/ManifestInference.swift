import Foundation
import ParseModel
import PorterReaders

/// A dataset manifest guessed from source files, for a start without writing one (README
/// "Starting without a manifest"). Each file is read once; each guess is written with what it
/// was guessed from:
/// - a field per column, typed by what every value fits (``ColumnProfile/typeGuess``);
/// - the key: a column unique and non-empty in every record, preferring one that other files'
///   columns name, then names like `id`, `<class>_id`, `code`, `email`, `name`; else two such
///   columns; an `objectId` column needs none;
/// - a pointer where every value of a column is a key of a class (a numeric column only when
///   its name names the class), a relation where every part of split cells is;
/// - a relation from a file of two columns that both name keys of other classes.
public enum ManifestInference {
    /// The `dataset.yml` for the data files (`.csv .tsv .json .ndjson .jsonl`) of a folder, or
    /// for the files named, which must share one folder: the manifest's sources are named
    /// relative to it. A Parse export folder is refused: it imports without a manifest.
    public static func yaml(for paths: [String]) throws(PorterError) -> String {
        let (directory, names) = try dataFiles(paths)
        var profiles: [FileProfile] = []
        for name in names { profiles.append(try FileProfile(file: name, format: SourceFormat.forFile(name)!, in: .folder(directory))) }
        if paths.count == 1, ParseExportLayout.looksLikeExport(profiles) {
            throw PorterError(.usage, "\(paths[0]): a Parse export (<Class>.json files whose objects have an objectId): it imports without a manifest, as README \"Importing a Parse export\" says")
        }
        profiles = try SourceFileGroups.grouped(profiles, in: .folder(directory))
        // A group's class is named by the part its files' names share (`orders-*.csv`: Order).
        var run = InferenceRun(files: profiles, classNames: profiles.map { InferredNames.className(forFile: $0.file.replacingOccurrences(of: "*", with: "")) })
        var dataset = try run.infer()
        guard !dataset.classes.isEmpty else {
            throw PorterError(.invalidData, "no class to infer: " + dataset.unread.joined(separator: "; "))
        }
        dataset.header = ["Inferred from \(names.count) file\(names.count == 1 ? "" : "s") by parse-porter init; each guess says what it saw.",
                          "Review it, save it as dataset.yml beside the files, then validate and import that folder."]
        return dataset.yaml
    }

    /// The manifest for one file imported as `className` (`format` when its extension does not
    /// say it): the same guesses as ``yaml(for:)``, with `key` (column or field names) instead
    /// of the guessed key. A key naming no column is an error.
    public static func manifest(forFile path: String, className: String, key: [String]? = nil, format: SourceFormat? = nil) throws(PorterError) -> DatasetManifest {
        guard FileManager.default.fileExists(atPath: path) else { throw PorterError(.usage, "\(path): no such file") }
        if let problem = ParseNames.classNameProblem(className) { throw PorterError(.usage, "class \"\(className)\": \(problem)") }
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        guard let byName = SourceFormat.forFile(name) else {
            throw PorterError(.usage, "\(name): unknown file type (.csv, .tsv, .json, .ndjson or .jsonl)")
        }
        if let format, format != byName {
            throw PorterError(.usage, "\(name): its extension says \(byName.name), not \(format.name)")
        }
        let directory = url.deletingLastPathComponent().path
        let profile = try FileProfile(file: name, format: byName, in: .folder(directory))
        guard profile.records > 0 else { throw PorterError(.invalidData, "\(name): no records") }
        var run = InferenceRun(files: [profile], classNames: [className], forcedKey: key)
        let dataset = try run.infer()
        let text = dataset.yaml
        return try ManifestLoader.load(text: text, fileName: "\(name) (inferred)", directory: directory)
    }

    /// The files of the folders in `folder` (one level down, as `data/orders-2023.csv`), sorted;
    /// hidden folders, a `rejects` folder and a mirror's `.files` folder left out.
    static func subfolderFiles(of folder: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.sorted().flatMap { entry -> [String] in
            var isDirectory: ObjCBool = false
            let path = (folder as NSString).appendingPathComponent(entry)
            guard !entry.hasPrefix("."), entry != "rejects", !entry.hasSuffix(".files"),
                  FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
            return SourceFiles.folder(path).fileNames.map { "\(entry)/\($0)" }
        }
    }

    /// The folder and the data files `paths` name.
    static func dataFiles(_ paths: [String]) throws(PorterError) -> (directory: String, names: [String]) {
        guard !paths.isEmpty else { throw PorterError(.usage, "no folder or file to read") }
        var isDirectory: ObjCBool = false
        if paths.count == 1, FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory), isDirectory.boolValue {
            let files = SourceFiles.folder(paths[0])
            if files.isFile(ParseExportLayout.schemaFile) {
                throw PorterError(.usage, "\(paths[0]): a Parse export (it has a \(ParseExportLayout.schemaFile)): it imports without a manifest, as README \"Importing a Parse export\" says")
            }
            var names: [String] = []
            for name in files.fileNames + subfolderFiles(of: paths[0]) where SourceFormat.forFile(name) != nil && !ManifestLoader.fileNames.contains(name) {
                if try ParseExportLayout.joinFileName(name) != nil {
                    throw PorterError(.usage, "\(paths[0]): a Parse export (it has the join file \(name)): it imports without a manifest, as README \"Importing a Parse export\" says")
                }
                names.append(name)
            }
            guard !names.isEmpty else { throw PorterError(.usage, "\(paths[0]): no .csv, .tsv, .json, .ndjson or .jsonl file") }
            guard names.count <= DatasetManifest.maximumClasses else { throw PorterError(.usage, "\(paths[0]): " + DatasetManifest.tooManyClasses(names.count)) }
            return (paths[0], names)
        }
        var directory: String?
        var names: [String] = []
        for path in paths {
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw PorterError(.usage, "\(path): no such file (give one folder, or files)")
            }
            let url = URL(fileURLWithPath: path).standardizedFileURL
            guard SourceFormat.forFile(url.lastPathComponent) != nil else {
                throw PorterError(.usage, "\(path): unknown file type (.csv, .tsv, .json, .ndjson or .jsonl)")
            }
            let folder = url.deletingLastPathComponent().path
            if let directory, directory != folder {
                throw PorterError(.usage, "\(path): not in \(directory): the files must share one folder, where the manifest names them")
            }
            directory = folder
            if !names.contains(url.lastPathComponent) { names.append(url.lastPathComponent) }
        }
        return (directory!, names)
    }
}

extension ParseExportLayout {
    /// Every file is `<Class>.json` and each of its objects has an `objectId`: a Parse export.
    static func looksLikeExport(_ profiles: [FileProfile]) -> Bool {
        !profiles.isEmpty && profiles.allSatisfy { profile in
            profile.file.hasSuffix(".json") && ParseNames.classNameProblem(String(profile.file.dropLast(5))) == nil
                && profile.column(named: "objectId")?.isUnique == true
        }
    }
}

extension ManifestLoader {
    /// A manifest from its text, read and checked as a `dataset.yml` in `directory` is.
    static func load(text: String, fileName: String, directory: String) throws(PorterError) -> DatasetManifest {
        var decoder = ManifestDecoder(fileName: fileName, directory: directory)
        let manifest = try decoder.decode(parse(text, fileName: fileName))
        try manifest.check()
        return manifest
    }
}
