import Foundation

/// A file written through a buffer of bytes; write failures are target errors (``PorterError/Cause/target``).
final class OutputFile {
    /// The file's path, or `standard output`.
    let path: String
    private let handle: FileHandle
    /// False for standard output, which stays open.
    private let closesHandle: Bool
    /// Bytes waiting to be written; callers append to it and call ``flushIfFull()``.
    var buffer: [UInt8] = []
    private static let flushSize = 1 << 20

    init(path: String) throws(PorterError) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw PorterError(.target, "\(path): cannot create the file")
        }
        self.path = path
        self.handle = handle
        closesHandle = true
        buffer.reserveCapacity(Self.flushSize + 64 * 1024)
    }

    private init(standardOutputHandle handle: FileHandle) {
        path = "standard output"
        self.handle = handle
        closesHandle = false
        buffer.reserveCapacity(Self.flushSize + 64 * 1024)
    }

    /// The process's standard output.
    static func standardOutput() -> OutputFile { OutputFile(standardOutputHandle: .standardOutput) }

    func flushIfFull() throws(PorterError) {
        if buffer.count >= Self.flushSize { try flush() }
    }

    private func flush() throws(PorterError) {
        guard !buffer.isEmpty else { return }
        do { try handle.write(contentsOf: buffer) } catch { throw PorterError(.target, "\(path): \(error.localizedDescription)") }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered and closes the file (standard output stays open).
    func close() throws(PorterError) {
        try flush()
        guard closesHandle else { return }
        do { try handle.close() } catch { throw PorterError(.target, "\(path): \(error.localizedDescription)") }
    }
}
