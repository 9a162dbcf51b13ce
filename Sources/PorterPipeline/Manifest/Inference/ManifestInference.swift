import Foundation
import ParseModel
import PorterMongoFiles
import PorterReaders

/// A dataset manifest guessed from source files, for a start without writing one
/// (Docs/Importing.md, "Starting without a manifest"). Each file is read once; each guess is written with what it
/// was guessed from:
/// - a field per column, typed by what every value fits (``ColumnProfile/typeGuess``);
/// - the key: a column unique and non-empty in every record, preferring one that other files'
///   columns name, then names like `id`, `<class>_id`, `code`, `email`, `name`; else two such
///   columns; an `objectId` column needs none;
/// - a pointer where every value of a column is a key of a class (a numeric column only when
///   its name names the class), a relation where every part of split cells is;
/// - a relation from a file of two columns that both name keys of other classes.
public enum ManifestInference {
    /// The `dataset.yml` for the data files (`.csv .tsv .json .ndjson .jsonl`, and `.txt`
    /// `.dat` files that are CSV or TSV) of a folder, of a zip archive (named inside it as
    /// `feed.zip/stops.txt`), or the files named, which must share one folder: the manifest's
    /// sources are named relative to it. A Parse export folder is refused: it imports without a manifest.
    public static func yaml(for paths: [String]) throws(PorterError) -> String {
        let found = try dataFiles(paths)
        let files = SourceFiles.folder(found.directory)
        var profiles: [FileProfile] = []
        var unread = found.unread, malformed: [String] = []
        for name in found.names {
            switch try FileProfile.inspect(name, in: files) {
            case .data(let profile): profiles.append(profile)
            case .notData(let reason): unread.append("\(name): \(reason); not read")
            case .malformed(let rows): malformed.append(rows)
            }
        }
        // Every file's malformed rows in one message: one run names them all.
        if !malformed.isEmpty { throw PorterError(.invalidData, malformed.joined(separator: "\n")) }
        if paths.count == 1, ParseExportLayout.looksLikeExport(profiles) {
            throw PorterError(
                .invalidRequest,
                "\(paths[0]): a Parse export (<Class>.json files whose objects have an objectId): it imports without a manifest, as Docs/Importing.md, \"Importing a Parse export\", says"
            )
        }
        profiles = try SourceFileGroups.grouped(profiles, in: files)
        // A group's class is named by the part its files' names share (`orders-*.csv`: Order).
        var run = InferenceRun(
            files: profiles, classNames: profiles.map { InferredNames.className(forFile: $0.file.replacingOccurrences(of: "*", with: "")) },
            in: files)
        var dataset = try run.infer()
        dataset.unread = unread + dataset.unread
        guard !dataset.classes.isEmpty else {
            throw PorterError(.invalidData, "no class to infer: " + dataset.unread.joined(separator: "; "))
        }
        let beside = found.archive.map { "beside \($0)" } ?? "beside the files"
        dataset.header = [
            "Inferred from \(found.names.count) file\(found.names.count == 1 ? "" : "s") by parse-porter init; each guess says what it saw.",
            "Review it, save it as dataset.yml \(beside), then validate and import that folder.",
        ]
        return dataset.yaml
    }

    /// The manifest for one file imported as `className` (`format` when its extension names
    /// none, or the same as it names): the same guesses as ``yaml(for:)``, with `key` (column or
    /// field names) instead of the guessed key, listed in its ``DatasetManifest/inferredGuesses``.
    /// A key naming no column is an error.
    public static func manifest(forFile path: String, className: String, key: [String]? = nil, format: SourceFormat? = nil) throws(PorterError)
        -> DatasetManifest
    {
        guard FileManager.default.fileExists(atPath: path) else { throw PorterError(.invalidRequest, "\(path): no such file") }
        if let problem = ParseNames.classNameProblem(className) { throw PorterError(.invalidRequest, "class \"\(className)\": \(problem)") }
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        let byName = SourceFormat.forFile(name)
        guard byName != nil || format != nil || FileProfile.mayBeDelimitedText(name) else {
            throw PorterError(
                .invalidRequest, "\(name): unknown file type (.csv, .tsv, .json, .ndjson or .jsonl): give its format (\(SourceFormat.names))",
                setting: .sourceFormat)
        }
        if let format, let byName, format.name != byName.name {
            throw PorterError(.invalidRequest, "\(name): its extension says \(byName.name), not \(format.name)")
        }
        let directory = url.deletingLastPathComponent().path
        let profile: FileProfile
        switch try FileProfile.inspect(name, format: byName == nil ? format : nil, in: .folder(directory)) {
        case .data(let found): profile = found
        case .notData(let reason): throw PorterError(.invalidData, "\(name): \(reason)")
        case .malformed(let rows): throw PorterError(.invalidData, rows)
        }
        guard profile.records > 0 else { throw PorterError(.invalidData, "\(name): no records") }
        var run = InferenceRun(files: [profile], classNames: [className], forcedKey: key)
        let dataset = try run.infer()
        var manifest = try ManifestLoader.load(text: dataset.yaml, fileName: "\(name) (inferred)", directory: directory)
        manifest.inferredGuesses = dataset.guesses
        return manifest
    }

    /// The files of the folders in `folder` (one level down, as `data/orders-2023.csv`), sorted;
    /// hidden folders, a `rejects` folder and a mirror's `.files` folder left out.
    static func subfolderFiles(of folder: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.sorted().flatMap { entry -> [String] in
            var isDirectory: ObjCBool = false
            let path = (folder as NSString).appendingPathComponent(entry)
            guard !entry.hasPrefix("."), entry != "rejects", !entry.hasSuffix(".files"),
                FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue
            else { return [] }
            return SourceFiles.folder(path).fileNames.map { "\(entry)/\($0)" }
        }
    }

    /// Whether `name` may be a data file: its extension names a format, or it is a `.txt` or
    /// `.dat` file, which may be CSV or TSV; manifests are none.
    static func mayBeData(_ name: String) -> Bool {
        (SourceFormat.forFile(name) != nil || FileProfile.mayBeDelimitedText(name)) && !ManifestLoader.fileNames.contains(name)
    }

    /// The folder, the data files `paths` name (in a zip archive: `feed.zip/stops.txt`), the
    /// files left out with why, and the archive read, if one is.
    static func dataFiles(_ paths: [String]) throws(PorterError) -> (directory: String, names: [String], unread: [String], archive: String?) {
        guard !paths.isEmpty else { throw PorterError(.invalidRequest, "no folder or file to read") }
        var isDirectory: ObjCBool = false
        if paths.count == 1, ManifestLoader.isArchive(paths[0]), FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory),
            !isDirectory.boolValue
        {
            return try archiveFiles(paths[0])
        }
        if paths.count == 1, FileManager.default.fileExists(atPath: paths[0], isDirectory: &isDirectory), isDirectory.boolValue {
            let files = SourceFiles.folder(paths[0])
            if files.isFile(ParseExportLayout.schemaFile) {
                throw PorterError(
                    .invalidRequest,
                    "\(paths[0]): a Parse export (it has a \(ParseExportLayout.schemaFile)): it imports without a manifest, as Docs/Importing.md, \"Importing a Parse export\", says"
                )
            }
            var names: [String] = [], unread: [String] = []
            for name in files.fileNames + subfolderFiles(of: paths[0]) where mayBeData(name) {
                if try ParseExportLayout.joinFileName(name) != nil {
                    throw PorterError(
                        .invalidRequest,
                        "\(paths[0]): a Parse export (it has the join file \(name)): it imports without a manifest, as Docs/Importing.md, \"Importing a Parse export\", says"
                    )
                }
                names.append(name)
            }
            // The data files of the folder's zip archives, named through them, when it has none of its
            // own (a folder holding a feed as downloaded; beside its unpacked files, the files are read).
            let hasOwnFiles = !names.isEmpty
            for name in files.fileNames where ManifestLoader.isArchive(name) {
                guard !hasOwnFiles else {
                    unread.append("\(name): not read, since the folder has data files of its own: give init the archive alone to read it")
                    continue
                }
                do {
                    let archive = try archiveFiles((paths[0] as NSString).appendingPathComponent(name))
                    names += archive.names
                    unread += archive.unread
                } catch {
                    unread.append("\(name): \(error.message); not read")
                }
            }
            guard !names.isEmpty else {
                throw PorterError(.invalidRequest, "\(paths[0]): no .csv, .tsv, .json, .ndjson, .jsonl, .txt or .dat file, nor a zip archive of them")
            }
            guard names.count <= DatasetManifest.maximumClasses else {
                throw PorterError(.invalidRequest, "\(paths[0]): " + DatasetManifest.tooManyClasses(names.count))
            }
            return (paths[0], names, unread, nil)
        }
        var directory: String?
        var names: [String] = []
        for path in paths {
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                throw PorterError(.invalidRequest, "\(path): no such file (give one folder, a zip archive, or files)")
            }
            let url = URL(fileURLWithPath: path).standardizedFileURL
            guard mayBeData(url.lastPathComponent) else {
                throw PorterError(.invalidRequest, "\(path): unknown file type (.csv, .tsv, .json, .ndjson, .jsonl, or .txt and .dat files of CSV or TSV)")
            }
            let folder = url.deletingLastPathComponent().path
            if let directory, directory != folder {
                throw PorterError(.invalidRequest, "\(path): not in \(directory): the files must share one folder, where the manifest names them")
            }
            directory = folder
            if !names.contains(url.lastPathComponent) { names.append(url.lastPathComponent) }
        }
        return (directory!, names, [], nil)
    }

    /// The data files of a zip archive, named through it (`feed.zip/stops.txt`) from its folder,
    /// where the manifest is saved; an archive of a Parse export or of Parse Server's MongoDB
    /// collections is refused: it imports as it is.
    static func archiveFiles(_ path: String) throws(PorterError) -> (directory: String, names: [String], unread: [String], archive: String?) {
        let archive: ZipArchive
        do { archive = try ZipArchive(path: path) } catch { throw PorterError(.invalidRequest, error.message) }
        let entries = archive.entries.map(\.name)
        if entries.contains(ParseExportLayout.schemaFile) || MongoDumpLayout.isDump(.zip(archive)) {
            throw PorterError(
                .invalidRequest,
                "\(path): a Parse export or Parse Server's collections: it imports without a manifest, as Docs/Importing.md, \"Importing a Parse export\", says"
            )
        }
        var names: [String] = []
        for entry in entries where mayBeData(entry) {
            if try ParseExportLayout.joinFileName(entry) != nil {
                throw PorterError(
                    .invalidRequest,
                    "\(path): a Parse export (it has the join file \(entry)): it imports without a manifest, as Docs/Importing.md, \"Importing a Parse export\", says"
                )
            }
            names.append("\(archive.displayName)/\(entry)")
        }
        let unread =
            entries.filter { !mayBeData($0) }.map { "\(archive.displayName)/\($0): not a data file; not read" }
            + archive.nested.map { "\(archive.displayName): \($0) is not read: it is below the archive's top folder" }
        guard !names.isEmpty else { throw PorterError(.invalidRequest, "\(path): no .csv, .tsv, .json, .ndjson, .jsonl, .txt or .dat file") }
        return (URL(fileURLWithPath: path).standardizedFileURL.deletingLastPathComponent().path, names, unread, archive.displayName)
    }
}

extension ParseExportLayout {
    /// Every file is `<Class>.json` and each of its objects has an `objectId`: a Parse export.
    static func looksLikeExport(_ profiles: [FileProfile]) -> Bool {
        !profiles.isEmpty
            && profiles.allSatisfy { profile in
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
