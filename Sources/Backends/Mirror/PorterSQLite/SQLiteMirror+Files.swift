import ParseModel
import PorterCore

/// Uploaded files of an import: stored in the mirror's files folder (``MirrorFiles``), where
/// `serve` answers them.
extension MirrorWriter {
    /// Names each file by its content hash and staging it for ``commit()``; a content the
    /// folder already holds (under the same hash prefix, from an earlier run) is reused and
    /// not written again.
    func store(_ files: [LocalFile]) throws(PorterError) -> [String: ParseFile] {
        let folder = MirrorFiles(mirrorPath: path)
        var present: [String: String] = [:]
        for name in folder.names() { present[String(name.prefix(32))] = name }
        var named: [String: ParseFile] = [:]
        for file in files {
            if let existing = present[String(file.sha256.prefix(32))] ?? stagedFiles.values.first(where: { $0.sha256 == file.sha256 })?.storedName {
                named[file.storedName] = ParseFile(name: existing)
            } else {
                stagedFiles[file.storedName] = file
                named[file.storedName] = ParseFile(name: file.storedName)
            }
        }
        return named
    }

    /// Writes the staged files, each atomically, before the database commits: a failed write
    /// stops the commit, and a file written for a commit that then fails is only an unused file.
    func writeStagedFiles() throws(PorterError) {
        let folder = MirrorFiles(mirrorPath: filesMirrorPath)
        for file in stagedFiles.values.sorted(by: { $0.storedName < $1.storedName }) {
            do {
                try folder.save(try file.bytes(), name: file.storedName)
            } catch let error as PorterError {
                throw error
            } catch {
                throw PorterError(.target, "\(path): \(error)")
            }
        }
        stagedFiles = [:]
    }
}
