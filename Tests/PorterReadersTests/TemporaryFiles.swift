import Foundation
import PorterReaders
import PorterTestSupport

/// A fresh directory for one test's input files, removed when the test's suite instance goes.
final class TemporaryFiles {
    private let folder: TemporaryFolder?
    let directory: URL

    init() {
        // A folder that cannot be made fails the first write, naming the path.
        folder = try? TemporaryFolder("PorterReadersTests")
        directory = folder?.url ?? FileManager.default.temporaryDirectory.appendingPathComponent("PorterReadersTests-unavailable")
    }

    /// Writes `text` as UTF-8 to a file named `name` and returns its path.
    func write(_ text: String, to name: String) throws -> String {
        try write(bytes: Array(text.utf8), to: name)
    }

    /// Writes `bytes` to a file named `name` and returns its path.
    func write(bytes: [UInt8], to name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// Reads every record; rethrows the first fault.
func readAll(_ reader: inout some RecordReader) throws(ReaderError) -> [SourceRecord] {
    var records: [SourceRecord] = []
    while let record = try reader.next() { records.append(record) }
    return records
}

/// The `ReaderError` `body` fails with, or `nil` when it does not fail that way.
func readerError(_ body: () throws -> Void) -> ReaderError? {
    do {
        try body()
        return nil
    } catch let error as ReaderError {
        return error
    } catch {
        return nil
    }
}
