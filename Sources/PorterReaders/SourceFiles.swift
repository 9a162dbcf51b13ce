import Foundation

/// Where a dataset's source files are: a folder, or a zip archive read in place.
public enum SourceFiles: Sendable {
    case folder(String)
    case zip(ZipArchive)

    /// The folder, or the folder holding the archive: relative output paths start there.
    public var directory: String {
        switch self {
        case .folder(let path): path
        case .zip(let archive): (archive.path as NSString).deletingLastPathComponent
        }
    }

    /// The folder's path or the archive's file name, as messages name the whole.
    package var displayName: String {
        switch self {
        case .folder(let path): path
        case .zip(let archive): archive.displayName
        }
    }

    /// The names of the files at the top of the folder or the archive, sorted.
    public var fileNames: [String] {
        switch self {
        case .folder(let path):
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter(isFile).sorted()
        case .zip(let archive):
            return archive.entries.map(\.name)
        }
    }

    /// Whether `name` is a file (not a folder) of the dataset.
    package func isFile(_ name: String) -> Bool {
        switch self {
        case .folder(let path):
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent(name), isDirectory: &isDirectory) && !isDirectory.boolValue
        case .zip(let archive):
            return archive.entry(named: name) != nil
        }
    }

    /// The file's size in bytes (uncompressed, in an archive); 0 when unknown.
    package func size(of name: String) -> Int64 {
        switch self {
        case .folder(let path):
            let attributes = try? FileManager.default.attributesOfItem(atPath: (path as NSString).appendingPathComponent(name))
            return (attributes?[.size] as? Int64) ?? 0
        case .zip(let archive):
            return archive.entry(named: name)?.size ?? 0
        }
    }

    /// Opens `name` with `format`'s reader; locations name the file as `name`. A file that
    /// cannot be opened is a `ReaderError` at line 0 (`cannot open file: …`).
    /// - Parameter encoding: The file's encoding; `nil`: UTF-8, or UTF-16 after its byte order mark.
    package func openReader(_ name: String, format: SourceFormat, encoding: TextEncoding? = nil) throws(ReaderError) -> any RecordReader {
        switch self {
        case .folder(let path):
            return try format.openReader(path: (path as NSString).appendingPathComponent(name), displayName: name, encoding: encoding)
        case .zip(let archive):
            guard let entry = archive.entry(named: name) else {
                throw ReaderError(file: name, line: 0, reason: "cannot open file: \(archive.displayName) has no \(name)", kind: .unreadable)
            }
            return try format.openReader(input: archive.input(entry, displayName: name), displayName: name, encoding: encoding)
        }
    }
}

extension SourceFiles {
    /// The whole of a small file (a schema), at most `limit` bytes.
    package func contents(of name: String, limit: Int) throws(ReaderError) -> [UInt8] {
        let input: any ByteInput
        switch self {
        case .folder(let path):
            input = try FileInput(path: (path as NSString).appendingPathComponent(name), displayName: name)
        case .zip(let archive):
            guard let entry = archive.entry(named: name) else {
                throw ReaderError(file: name, line: 0, reason: "cannot open file: \(archive.displayName) has no \(name)", kind: .unreadable)
            }
            input = try archive.input(entry, displayName: name)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read: Result<Int, InputReadFailure> = chunk.withUnsafeMutableBytes { buffer in
                do throws(InputReadFailure) { return .success(try input.readChunk(into: buffer)) } catch { return .failure(error) }
            }
            let count: Int
            switch read {
            case .success(let value): count = value
            case .failure(let failure): throw ReaderError(file: name, line: 0, reason: "cannot read file: \(failure.message)", kind: .unreadable)
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { throw ReaderError(file: name, line: 0, reason: "larger than \(limit) bytes", kind: .unreadable) }
        }
    }
}
