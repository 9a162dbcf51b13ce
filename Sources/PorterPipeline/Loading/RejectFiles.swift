import Foundation
import ParseModel
import PorterReaders

/// `rejects/<Class>.csv`: each rejected record as it was read, with `_line` and `_error`.
/// CSV records keep their columns; JSON records are written as one `_record` JSON cell. For a
/// class or join relation read from several files, `_line` is `file:line`.
final class RejectFiles {
    let directory: String
    private var writers: [String: CSVLineWriter] = [:]
    private var order: [String] = []

    init(directory: String) { self.directory = directory }

    /// Writes `record` to `name`'s file; `file` names the record's file when its source has several.
    func add(_ record: SourceRecord, reason: String, to name: String, file: String? = nil) throws(PorterError) {
        do {
            let writer = try writer(for: name, record: record)
            let line = file.map { "\($0):\(record.line)" } ?? String(record.line)
            switch record.content {
            case .csv(_, let cells): try writer.write([line] + cells + [reason])
            case .json(let object): try writer.write([line, JSONValue.object(object).serialized(), reason])
            }
        } catch let error as PorterError {
            throw error
        } catch {
            throw PorterError(.target, "cannot write rejects to \(directory): \(error.localizedDescription)")
        }
    }

    private func writer(for name: String, record: SourceRecord) throws -> CSVLineWriter {
        if let writer = writers[name] { return writer }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = (directory as NSString).appendingPathComponent("\(name).csv")
        let writer = try CSVLineWriter(path: path)
        switch record.content {
        case .csv(let header, _): try writer.write(["_line"] + header.names + ["_error"])
        case .json: try writer.write(["_line", "_record", "_error"])
        }
        writers[name] = writer
        order.append(path)
        return writer
    }

    /// Closes and removes the files (the import they belong to did not happen).
    func discard() {
        for writer in writers.values { try? writer.close() }
        for path in order { try? FileManager.default.removeItem(atPath: path) }
        writers = [:]
        order = []
    }

    /// Closes the files; returns their paths.
    func close() throws(PorterError) -> [String] {
        do {
            for writer in writers.values { try writer.close() }
        } catch {
            throw PorterError(.target, "cannot write rejects to \(directory): \(error.localizedDescription)")
        }
        return order
    }
}
