import Foundation
import ParseModel

/// The files of a mirror: a folder beside the mirror file (`app.sqlite.files/`) that holds each
/// file's bytes under its Parse name. A file's content type is its name's, as Parse Server's
/// `FilesRouter` serves it, never what the uploader sent.
///
/// Every method takes only names made of the characters Parse allows in file names (no `/`, no
/// NUL, no leading `.`), so no name reaches outside the folder; an invalid name is a file that does
/// not exist. Writes are atomic (a temporary file renamed into place), so a reader sees a
/// file whole or not at all.
package struct MirrorFiles: Sendable {
    /// The folder, `<mirror>.files`.
    package let folder: String

    package init(mirrorPath: String) {
        folder = mirrorPath + ".files"
    }

    /// Why a file could not be stored or removed.
    package struct StorageError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Stores `bytes` as `name`, replacing a file of that name.
    package func save(_ bytes: [UInt8], name: String) throws(StorageError) {
        guard ParseNames.isStoredFileName(name) else { throw StorageError(description: "invalid file name \(name)") }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw StorageError(description: "cannot create \(folder): \(error.localizedDescription)")
        }
        try write(bytes, to: bytesPath(name))
    }

    /// Writes a hidden temporary file and renames it to `path`.
    private func write(_ bytes: [UInt8], to path: String) throws(StorageError) {
        let temporary = folder + "/.tmp-" + UUID().uuidString
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else {
            throw StorageError(description: "cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw StorageError(description: "cannot move a file into \(path): \(reason)")
        }
    }

    /// The bytes of the file called `name`; `nil` when there is none (or the name is not a valid one).
    package func load(name: String) -> [UInt8]? {
        guard ParseNames.isStoredFileName(name), let data = FileManager.default.contents(atPath: bytesPath(name)) else { return nil }
        return [UInt8](data)
    }

    /// Whether a file called `name` is stored.
    package func contains(name: String) -> Bool {
        ParseNames.isStoredFileName(name) && FileManager.default.fileExists(atPath: bytesPath(name))
    }

    /// Removes the file called `name`; false when there was none.
    package func delete(name: String) throws(StorageError) -> Bool {
        guard contains(name: name) else { return false }
        do {
            try FileManager.default.removeItem(atPath: bytesPath(name))
        } catch {
            throw StorageError(description: "cannot remove \(bytesPath(name)): \(error.localizedDescription)")
        }
        return true
    }

    /// The names of the stored files (hidden entries left out).
    package func names() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return entries.filter { ParseNames.isStoredFileName($0) }
    }

    private func bytesPath(_ name: String) -> String { folder + "/" + name }
}
