import Foundation

/// A file written through a buffer of bytes; write failures are target errors (exit 3).
final class OutputFile {
    let path: String
    private let handle: FileHandle
    /// Bytes waiting to be written; callers append to it and call ``flushIfFull()``.
    var buffer: [UInt8] = []
    private static let flushSize = 1 << 20

    init(path: String) throws(PorterError) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw PorterError(.target, "\(path): cannot create the file")
        }
        self.path = path
        self.handle = handle
        buffer.reserveCapacity(Self.flushSize + 64 * 1024)
    }

    func flushIfFull() throws(PorterError) {
        if buffer.count >= Self.flushSize { try flush() }
    }

    private func flush() throws(PorterError) {
        guard !buffer.isEmpty else { return }
        do { try handle.write(contentsOf: buffer) } catch { throw PorterError(.target, "\(path): \(error.localizedDescription)") }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and closes the file.
    func close() throws(PorterError) {
        try flush()
        do { try handle.close() } catch { throw PorterError(.target, "\(path): \(error.localizedDescription)") }
    }
}
