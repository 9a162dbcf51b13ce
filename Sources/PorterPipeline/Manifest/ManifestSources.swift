import Foundation
import ParseModel
import PorterReaders

/// Resolves each class's and join relation's `source` (a file, a glob, or a list of them) to
/// the files it names, and checks them before any data is read: each must exist and be of a
/// known type (by extension, or the `format:` a file whose extension names none is read in), a
/// glob must match a file, and the files of one source must be of one type and, for CSV, have the
/// same header. Every fault is an invalid request naming the manifest key path.
struct ManifestSources {
    let manifest: DatasetManifest

    func fail(_ path: ManifestPath, _ reason: String) -> PorterError {
        PorterError(ManifestFault(file: manifest.manifestFile, keyPath: path.keys, message: reason))
    }

    /// The manifest with every ``ClassMapping/sources`` and ``JoinRelationMapping/sources`` resolved.
    func resolved() throws(PorterError) -> DatasetManifest {
        var result = manifest
        // In-memory sources are no files: the checker has checked their names.
        for index in result.classes.indices where result.classes[index].records == nil {
            let mapping = result.classes[index]
            let classPath = ManifestPath.root + "classes" + mapping.className
            let path = mapping.extract == nil ? classPath + "source" : classPath + "extract" + "source"
            result.classes[index].sources = try files(mapping.sourcePatterns, reading: mapping.reading, at: path, classPath: classPath)
        }
        for index in result.relations.indices where result.relations[index].records == nil {
            let relation = result.relations[index]
            let relationPath = (ManifestPath.root + "relations")[index]
            result.relations[index].sources = try files(
                relation.sourcePatterns, reading: relation.reading, at: relationPath + "source", classPath: relationPath)
        }
        return result
    }

    /// The files `patterns` name, in order: each pattern's files sorted by name; a file named
    /// by an earlier pattern too is read once, where it came first. `classPath` is where the
    /// class (or join relation) gives its `format` and `header`.
    func files(_ patterns: [String], reading: SourceReading, at path: ManifestPath, classPath: ManifestPath) throws(PorterError) -> [String] {
        var files: [String] = []
        var seen: Set<String> = []
        for (index, pattern) in patterns.enumerated() {
            let patternPath = patterns.count == 1 ? path : path[index]
            if let fault = manifest.files.archiveFault(pattern) { throw fail(patternPath, fault) }
            let matches = manifest.files.files(matching: pattern)
            if matches.isEmpty {
                throw fail(patternPath, SourceFiles.isPattern(pattern) ? "\"\(pattern)\" matches no file" : "file \"\(pattern)\" does not exist")
            }
            for file in matches where seen.insert(file).inserted {
                try checkFormat(of: file, reading: reading, at: patternPath, classPath: classPath)
                files.append(file)
            }
        }
        if files.count > 1 { try checkAlike(files, reading: reading, at: path) }
        return files
    }

    /// The file has a format: its extension's, or `format:` for an extension that names none
    /// (where the extension names one, `format:` must agree); a `header:` goes with CSV alone.
    func checkFormat(of file: String, reading: SourceReading, at path: ManifestPath, classPath: ManifestPath) throws(PorterError) {
        let byName = SourceFormat.forFile(file)
        if let given = reading.format, let byName, given.name != byName.name {
            throw fail(classPath + "format", "\"\(file)\": its extension says \(byName.name), not \(given.name)")
        }
        guard let format = reading.format(of: file) else {
            throw fail(path, "\"\(file)\": unknown file type (.csv, .tsv, .json, .ndjson or .jsonl); for another extension give its format, e.g. format: csv")
        }
        if reading.header != nil, case .csv = format {
        } else if reading.header != nil {
            throw fail(classPath + "header", "\"\(file)\" is \(format.name): only CSV and TSV files may lack a header row")
        }
    }

    /// Files of one source are of one type, and CSV files have the first file's header, its
    /// names compared without surrounding spaces (a file whose header cannot be read is left to
    /// the import, which names its fault). Files without a header row have the names given.
    func checkAlike(_ files: [String], reading: SourceReading, at path: ManifestPath) throws(PorterError) {
        let format = reading.format(of: files[0])!
        for file in files.dropFirst() where reading.format(of: file) != format {
            throw fail(path, "\"\(file)\" and \"\(files[0])\" are of different types: the files of one source must be of one type")
        }
        guard case .csv = format, reading.header == nil else { return }
        var first: (file: String, names: [String])?
        for file in files {
            guard let names = ((try? manifest.files.openReader(file, reading: reading)) as? CSVReader)?.header.columnNames else { continue }
            guard let expected = first else {
                first = (file, names)
                continue
            }
            if names != expected.names {
                throw fail(
                    path,
                    "\(file)'s header differs from \(expected.file)'s: \(Self.difference(names, from: expected.names)) (every file of one source needs the same header)"
                )
            }
        }
    }

    /// How `names` differ from `expected`: the columns one lacks and the other has, or the first
    /// position where the order differs.
    static func difference(_ names: [String], from expected: [String]) -> String {
        let missing = expected.filter { !names.contains($0) }, extra = names.filter { !expected.contains($0) }
        var parts: [String] = []
        if !missing.isEmpty { parts.append("it lacks \(missing.map { "\"\($0)\"" }.joined(separator: ", "))") }
        if !extra.isEmpty { parts.append("it has \(extra.map { "\"\($0)\"" }.joined(separator: ", ")) in addition") }
        if parts.isEmpty, let index = names.indices.first(where: { names[$0] != expected[$0] }) {
            parts.append("column \(index + 1) is \"\(names[index])\", not \"\(expected[index])\"")
        }
        return parts.joined(separator: "; ")
    }
}
