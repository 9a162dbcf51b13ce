import Foundation
import ParseModel
import PorterReaders
import Synchronization
import Testing

@Suite struct ReadAheadReaderTests {
    /// Counts up to `count` records, then fails with `failure` (when set) or ends.
    struct Counter: RecordReader {
        let count: Int
        var failure: String?
        var token: Token?
        var read = 0
        var displayName: String { "counter" }
        var bytesRead: Int64 { Int64(read) }

        mutating func next() throws(ReaderError) -> SourceRecord? {
            guard read < count else {
                if let failure { throw ReaderError(file: "counter", line: read + 1, reason: failure) }
                return nil
            }
            read += 1
            return SourceRecord(line: read, content: .json(JSONObject(["n": .integer(Int64(read))])))
        }
    }

    /// Notes when the reader holding it is gone.
    final class Token: Sendable {
        let flag: @Sendable () -> Void
        init(_ flag: @escaping @Sendable () -> Void) { self.flag = flag }
        deinit { flag() }
    }

    func lines(_ reader: inout some RecordReader) throws(ReaderError) -> [Int] {
        var lines: [Int] = []
        while let record = try reader.next() { lines.append(record.line) }
        return lines
    }

    @Test func recordsComeOutInOrderAcrossBatches() throws {
        for count in [0, 1, 255, 256, 257, 10_000] {
            var reader = ReadAheadReader(Counter(count: count))
            #expect(try lines(&reader) == Array(stride(from: 1, through: count, by: 1)))
            #expect(try reader.next()?.line == nil)
            #expect(reader.bytesRead == Int64(count))
        }
    }

    @Test func aFailureComesAfterTheRecordsBeforeIt() {
        let reader = ReadAheadReader(Counter(count: 1_000, failure: "broken"))
        var lines: [Int] = []
        do {
            while let record = try reader.next() { lines.append(record.line) }
            Issue.record("no failure")
        } catch {
            #expect(error.location.line == 1_001)
            #expect(error.reason == "broken")
        }
        #expect(lines == Array(1...1_000))
    }

    @Test func droppingItStopsTheReadingThread() async throws {
        let released = Mutex(false)
        do {
            let reader = ReadAheadReader(Counter(count: .max, token: Token { released.withLock { $0 = true } }))
            #expect(try reader.next()?.line == 1)
        }
        for _ in 0..<500 where !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released.withLock { $0 }, "the wrapped reader is still held after 5 s")
    }
}
