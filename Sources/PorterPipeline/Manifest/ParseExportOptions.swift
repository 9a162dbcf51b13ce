import PorterReaders

/// How a Parse export (a folder or `.zip` without a manifest, or Parse Server's MongoDB layout)
/// is read, where its files alone cannot say (Docs/Importing.md).
public struct ParseExportOptions: Sendable {
    /// Import `_Installation` objects instead of skipping them.
    public var includeInstallations: Bool
    /// Glob patterns (`fnmatch(3)`, as a shell matches a name) of the export's files not to read:
    /// a file beside the objects that is none of them. Each must match a file; the files left
    /// out are named in the manifest's notes.
    public var excludedFiles: [String]
    /// For an export without `schema.json`: the class each Relation (`Owner.field`) relates to,
    /// where the objects cannot say (every related object deleted, no placeholder). Each must
    /// name a join file's Relation.
    public var relationTargets: [String: String]

    /// Options as given; by default every file is read and every Relation's class inferred.
    public init(includeInstallations: Bool = false, excludedFiles: [String] = [], relationTargets: [String: String] = [:]) {
        self.includeInstallations = includeInstallations
        self.excludedFiles = excludedFiles
        self.relationTargets = relationTargets
    }

    /// The export's files less the excluded ones, and a note per file left out. A pattern that
    /// matches no file is an invalid request: a misspelt one would leave the stray file in.
    func select(_ files: SourceFiles) throws(PorterError) -> (files: SourceFiles, notes: [String]) {
        let (selected, excluded) = files.excluding(excludedFiles)
        var notes: [String] = []
        for (pattern, names) in excluded {
            guard !names.isEmpty else {
                throw PorterError(
                    .invalidRequest, "\"\(pattern)\" matches no file of the export (it has: \(files.fileNames.joined(separator: ", ")))",
                    setting: .excludedFiles)
            }
            notes += names.map { "\($0): not read: left out (\"\(pattern)\")" }
        }
        return (selected, notes)
    }

    /// Relation targets are for a Parse export whose classes are inferred; a schema declares each Relation.
    func check(forExportWithSchema schemaFile: String) throws(PorterError) {
        if let relation = relationTargets.keys.sorted().first {
            throw PorterError(
                .invalidRequest, "\(relation)=\(relationTargets[relation]!): \(schemaFile) declares the export's Relations; give their classes there",
                setting: .relationTargets)
        }
    }

    /// A dataset with a manifest names its own files and declares its Relations.
    func check(forManifest fileName: String) throws(PorterError) {
        if !excludedFiles.isEmpty {
            throw PorterError(
                .invalidRequest, "a dataset with a manifest (\(fileName)) reads the files its classes name, and no other: nothing to leave out",
                setting: .excludedFiles)
        }
        try check(forExportWithSchema: fileName)
    }
}
