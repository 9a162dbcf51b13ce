import Foundation
import ParseModel

/// A local file a `File` field with `upload: true` names, read and hashed while the dataset is
/// validated, and stored on the target when objects are written.
public struct LocalFile: Sendable, Hashable {
    /// The file's path as opened (the cell's path, relative to the source file's folder).
    public let path: String
    /// SHA-256 of the content, 64 hex digits: a file is stored once per content.
    public let sha256: String
    /// The name to upload under: the file's own name with the characters Parse refuses replaced.
    public let uploadName: String
    /// The type its extension implies, `application/octet-stream` when unknown.
    public let contentType: String

    /// The largest file imported: Parse Server's default `maxUploadSize` (20 MB), which it
    /// enforces on uploads and `serve` on its own.
    public static let maxSize = 20 * 1024 * 1024

    /// The name the file is stored under in a mirror, and the placeholder the import uses until
    /// a target names it: Parse's 32-hex prefix (here the content hash's first 32 digits) and
    /// the upload name.
    public var storedName: String { String(sha256.prefix(32)) + "_" + uploadName }

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
        return LocalFile(path: path, sha256: SHA256.hex([UInt8](data)), uploadName: name,
                         contentType: MediaTypes.type(forFileName: name) ?? MediaTypes.fallback)
    }

    /// The file's bytes, read again when it is stored.
    public func bytes() throws(PorterError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw PorterError(.invalidData, "cannot read file \(path) any more") }
        let bytes = [UInt8](data)
        guard SHA256.hex(bytes) == sha256 else { throw PorterError(.invalidData, "file \(path) changed while it was imported; run the import again") }
        return bytes
    }
}
