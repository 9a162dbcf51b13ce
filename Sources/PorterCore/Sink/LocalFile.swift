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

    /// The file at `path`, with its content's hash, upload name and type as found.
    package init(path: String, sha256: String, uploadName: String, contentType: String) {
        self.path = path
        self.sha256 = sha256
        self.uploadName = uploadName
        self.contentType = contentType
    }

    /// The file's bytes, read again when it is stored.
    public func bytes() throws(PorterError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else { throw PorterError(.invalidData, "cannot read file \(path) any more") }
        let bytes = [UInt8](data)
        guard SHA256.hex(bytes) == sha256 else { throw PorterError(.invalidData, "file \(path) changed while it was imported; run the import again") }
        return bytes
    }
}
