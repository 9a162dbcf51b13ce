import Foundation
import ParseModel
import PorterReaders
import Synchronization
import Testing

@testable import PorterPipeline

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
            var reader = ReadAheadReader(Counter(count: count)) { _ in }
            #expect(try lines(&reader) == Array(stride(from: 1, through: count, by: 1)))
            #expect(try reader.next()?.line == nil)
            #expect(reader.bytesRead == Int64(count))
        }
    }

    /// Waits until the reading thread has filled every batch it may hold ahead (8 of 256).
    func waitUntilFull(_ reader: ReadAheadReader<some Sendable>) async throws {
        for _ in 0..<500 where reader.bytesRead < 2_048 { try await Task.sleep(for: .milliseconds(10)) }
        try #require(reader.bytesRead == 2_048, "the reading thread did not fill its batches in 5 s")
    }

    /// A caller that is behind gets records prepared by the reading thread: the first half of the
    /// batches ahead come as parsed, the rest prepared, each with what was made of its batch and
    /// its index there.
    @Test func aCallerThatIsBehindGetsRecordsPreparedOnTheReadingThread() async throws {
        let caller = pthread_self()
        let reader = ReadAheadReader(Counter(count: 10_000)) { records in
            (lines: records.map(\.line), elsewhere: pthread_equal(pthread_self(), caller) == 0)
        }
        try await waitUntilFull(reader)
        var lines: [Int] = [], prepared: [Int] = []
        while let (record, made, index) = try reader.nextPrepared() {
            lines.append(record.line)
            guard let made else { continue }
            prepared.append(record.line)
            #expect(made.lines.count == 256)
            #expect(made.lines[index] == record.line)
            #expect(made.elsewhere)
        }
        #expect(lines == Array(1...10_000))
        #expect(!prepared.contains { $0 <= 1_024 })
        #expect(Set(1_025...2_048).isSubset(of: prepared))
    }

    /// Each batch is shown to the caller as it is taken, on the caller's thread, before its first record.
    @Test func eachBatchArrivesBeforeItsFirstRecord() throws {
        let caller = pthread_self()
        var arrived: [[Int]] = [], allOnCaller = true, lines: [Int] = []
        let reader = ReadAheadReader(
            Counter(count: 600), prepare: { _ in },
            arriving: { batch in
                arrived.append(batch.records.map(\.line))
                allOnCaller = allOnCaller && pthread_equal(pthread_self(), caller) != 0
            })
        while let (record, _, _) = try reader.nextPrepared() {
            lines.append(record.line)
            #expect(arrived.last?.contains(record.line) == true)
        }
        #expect(arrived == [Array(1...256), Array(257...512), Array(513...600)])
        #expect(allOnCaller)
        #expect(lines == Array(1...600))
    }

    /// What a batch holds is released on the thread that made it, once the caller has moved on.
    @Test func spentBatchesAreReleasedByTheReadingThread() async throws {
        let caller = pthread_self()
        let made = Mutex(0), releasedHere = Mutex(0), released = Mutex(0)
        do {
            let reader = ReadAheadReader(Counter(count: 10_000)) { _ in
                made.withLock { $0 += 1 }
                return Token {
                    released.withLock { $0 += 1 }
                    if pthread_equal(pthread_self(), caller) != 0 { releasedHere.withLock { $0 += 1 } }
                }
            }
            try await waitUntilFull(reader)
            while try reader.nextPrepared() != nil {}
        }
        let count = made.withLock { $0 }
        #expect(count >= 4)
        // The reading thread lets go of the last batches as it ends.
        for _ in 0..<500 where released.withLock({ $0 }) < count { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released.withLock { $0 } == count)
        // At most the last few batches are released by the caller, with the reader.
        #expect(releasedHere.withLock { $0 } <= 10)
    }

    /// Rows of one header, as a CSV file gives them.
    struct Rows: RecordReader {
        let header = CSVHeader(names: ["name", " price "])
        let count: Int
        var read = 0
        var displayName: String { "rows" }
        var bytesRead: Int64 { Int64(read) }

        mutating func next() throws(ReaderError) -> SourceRecord? {
            guard read < count else { return nil }
            read += 1
            return SourceRecord(line: read + 1, content: .csv(header: header, cells: ["item \(read)", "\(read)"]))
        }
    }

    /// The rows of a batch share a header of their own, so the threads never count references
    /// to one header at the same time; names, cells and lines stay as read.
    @Test func eachBatchOfRowsHasAHeaderOfItsOwn() throws {
        let rows = Rows(count: 600)
        let fileHeader = rows.header
        let reader = ReadAheadReader(rows) { _ in }
        var headers: [ObjectIdentifier: [Int]] = [:]
        var kept: [CSVHeader] = []  // alive, so that no two headers share an identifier
        while let record = try reader.next() {
            guard case .csv(let header, let cells) = record.content else { Issue.record("not a row"); return }
            #expect(header !== fileHeader)
            #expect(header.names == ["name", " price "] && header.index(of: "price") == 1)
            #expect(cells == ["item \(record.line - 1)", "\(record.line - 1)"])
            headers[ObjectIdentifier(header), default: []].append(record.line - 1)
            kept.append(header)
        }
        #expect(headers.values.map { $0.first! }.sorted() == [1, 257, 513])
        #expect(headers.values.map(\.count).sorted() == [88, 256, 256])
    }

    @Test func aFailureComesAfterTheRecordsBeforeIt() {
        let reader = ReadAheadReader(Counter(count: 1_000, failure: "broken")) { _ in }
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
            let reader = ReadAheadReader(Counter(count: .max, token: Token { released.withLock { $0 = true } })) { _ in }
            #expect(try reader.next()?.line == 1)
        }
        for _ in 0..<500 where !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released.withLock { $0 }, "the wrapped reader is still held after 5 s")
    }
}
