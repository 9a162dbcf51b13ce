import Foundation

/// Writes RFC 4180 CSV to a file: cells quoted when they hold the delimiter, a quote or a
/// line break; rows end with `\n`.
final class CSVLineWriter {
    private let handle: FileHandle
    private var buffer = Data()

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    func write(_ cells: [String]) throws {
        for (i, cell) in cells.enumerated() {
            if i > 0 { buffer.append(UInt8(ascii: ",")) }
            if cell.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }) {
                buffer.append(contentsOf: Array(("\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"").utf8))
            } else {
                buffer.append(contentsOf: Array(cell.utf8))
            }
        }
        buffer.append(10)
        if buffer.count > 1 << 16 { try flush() }
    }

    func flush() throws {
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        try flush()
        try handle.close()
    }
}
