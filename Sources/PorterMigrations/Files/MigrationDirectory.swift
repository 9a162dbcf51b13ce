import Foundation
import ParseModel
import PorterPipeline

/// Reads a folder of versioned migration files.
public enum MigrationDirectory {
    /// The migration files in `folder`, sorted by version: every `V<version>__<name>.yml`
    /// (`.yaml`, `.json`), read and checked (``MigrationFile``). Other files (README.md,
    /// dotfiles) are ignored. A missing folder, a `.yml`/`.yaml`/`.json` file not named that
    /// way, two files with the same version and any fault in a file are invalid requests (``PorterError/Cause/invalidRequest``)
    /// that start with the path of the file at fault.
    public static func load(_ folder: String) throws(PorterError) -> [MigrationFile] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw PorterError(.invalidRequest, "\(folder): no such migrations folder")
        }
        let fileNames: [String]
        do {
            fileNames = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw PorterError(.invalidRequest, "\(folder): cannot list the migrations folder: \(error.localizedDescription)")
        }
        var named: [(path: String, version: MigrationVersion, name: String)] = []
        for fileName in fileNames.sorted() where isCandidate(fileName, in: folder) {
            let path = (folder as NSString).appendingPathComponent(fileName)
            guard let parts = MigrationFile.nameParts(of: fileName) else {
                throw PorterError(.invalidRequest, "\(path): not a migration file name (expected \(MigrationFile.namePattern))")
            }
            if let other = named.first(where: { $0.version == parts.version }) {
                throw PorterError(.invalidRequest, "\(path): version \(parts.version) is also the version of \(other.path)")
            }
            named.append((path, parts.version, parts.name))
        }
        var files: [MigrationFile] = []
        for entry in named.sorted(by: { $0.version < $1.version }) {
            files.append(try read(entry.path, version: entry.version, name: entry.name))
        }
        return files
    }

    /// A file (not a folder), not hidden, whose extension is one a migration file has.
    static func isCandidate(_ fileName: String, in folder: String) -> Bool {
        var isDirectory: ObjCBool = false
        return !fileName.hasPrefix(".") && MigrationFile.extensions.contains((fileName as NSString).pathExtension.lowercased())
            && FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent(fileName), isDirectory: &isDirectory)
            && !isDirectory.boolValue
    }

    static func read(_ path: String, version: MigrationVersion, name: String) throws(PorterError) -> MigrationFile {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw PorterError(.invalidRequest, "\(path): cannot read the migration file (not a UTF-8 text file)")
        }
        guard let document = try StructuredText.parse(text, fileName: path) else {
            throw PorterError(.invalidRequest, "\(path): the file is empty (expected a mapping with an operations list)")
        }
        return MigrationFile(
            version: version, name: name, fileName: (path as NSString).lastPathComponent, path: path,
            checksum: MigrationChecksum.of(document), operations: try MigrationDecoder(path: path).decode(document))
    }
}
