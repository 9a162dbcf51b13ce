import Foundation
import ParseModel

extension LocalFile {
    /// Reads the file `cell` names, relative to `directory`, to check and hash it. Only a file
    /// inside `directory` (links resolved) is read: a data file from elsewhere must not be able to
    /// send other files of this machine to a server.
    static func read(_ cell: String, relativeTo directory: String) throws(CoercionError) -> LocalFile {
        let base = URL(fileURLWithPath: directory).standardizedFileURL.resolvingSymlinksInPath().path
        let path = URL(fileURLWithPath: cell, relativeTo: URL(fileURLWithPath: base, isDirectory: true))
            .standardizedFileURL.resolvingSymlinksInPath().path
        guard path.hasPrefix(base == "/" ? "/" : base + "/") else {
            throw CoercionError(.badUploadFile, "\(path) is outside the folder of the source file, \(base): only files inside it are uploaded")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw CoercionError(.badUploadFile, "no such file: \(path)") }
        guard !isDirectory.boolValue else { throw CoercionError(.badUploadFile, "is a folder, not a file: \(path)") }
        guard let data = FileManager.default.contents(atPath: path) else { throw CoercionError(.badUploadFile, "cannot read file: \(path)") }
        guard data.count <= maxSize else {
            throw CoercionError(.badUploadFile, "file \(path) has \(data.count) bytes, more than the 20 MB a Parse Server takes (maxUploadSize)")
        }
        let name = ParseNames.fileName(sanitizing: (path as NSString).lastPathComponent, reserving: 33)
        return LocalFile(
            path: path, sha256: SHA256.hex([UInt8](data)), uploadName: name,
            contentType: MediaTypes.type(forFileName: name) ?? MediaTypes.fallback)
    }
}
