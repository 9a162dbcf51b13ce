import Foundation
import PorterReaders

/// Reads another reader's records on a thread of its own, up to ``capacity`` batches ahead of
/// the caller, so that parsing overlaps what the caller does with the records. Records, a
/// failure and the end come out in the order the wrapped reader gave them.
///
/// While the caller is behind (half the batches it may hold ahead are waiting), each batch comes
/// with what `prepare` made of its records on that thread (one value for the batch, so that what
/// it holds per record shares its storage), so that work on the records alone takes the time the
/// reading thread would spend waiting. While the caller keeps up, records come as soon as they
/// are parsed, unprepared (`nil`), and the caller prepares them itself.
/// (It is in this module, not beside the readers, so that it is compiled for the type it
/// prepares: a generic from another module looks the type up at run time, record by record.)
///
/// Dropping it stops the thread after the record it is reading.
final class ReadAheadReader<Prepared: Sendable>: RecordReader {
    /// What the two threads share, only ever touched with `condition` locked (hence
    /// `@unchecked Sendable`); `reader` only by the reading thread.
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var batches: [Batch] = []
        /// Batches the caller is done with, released by the reading thread, which allocated
        /// them: glibc's `free` of another thread's memory contends for that thread's arena
        /// (validate with records mapped ahead, 1M books: 8.6-10.4 CPU-seconds, 7.1-7.7 when
        /// released here).
        var spent: [Batch] = []
        var failure: ReaderError?
        var finished = false
        var abandoned = false
        var bytesRead: Int64 = 0
        /// Read by the reading thread alone, record by record: no exclusivity check.
        @exclusivity(unchecked) var reader: any RecordReader
        let prepare: @Sendable ([SourceRecord]) -> Prepared

        init(_ reader: any RecordReader, prepare: @escaping @Sendable ([SourceRecord]) -> Prepared) {
            self.reader = reader
            self.prepare = prepare
        }
    }

    /// Records handed over together, and what was made of them if the reading thread prepared them.
    struct Batch {
        var records: [SourceRecord] = []
        var prepared: Prepared?
    }

    /// Records per batch handed over.
    private static var batchSize: Int { 256 }
    /// Batches read ahead at most.
    private static var capacity: Int { 8 }

    let displayName: String
    private let shared: Shared
    /// Called with each batch as the caller takes it, before its first record.
    private let arriving: ((Batch) -> Void)?
    /// The batch the caller is reading, and its next record: the caller's alone, read per record.
    @exclusivity(unchecked) private var batch = Batch()
    @exclusivity(unchecked) private var position = 0

    /// Starts reading `reader` on a new thread, where `prepare` is called with the records of
    /// each batch it prepares; `arriving` is called on the caller's thread with each batch.
    init(
        _ reader: consuming any RecordReader, prepare: @escaping @Sendable ([SourceRecord]) -> Prepared,
        arriving: ((Batch) -> Void)? = nil
    ) {
        displayName = reader.displayName
        self.arriving = arriving
        let shared = Shared(reader, prepare: prepare)
        self.shared = shared
        let thread = Thread { Self.readAll(shared) }
        thread.name = "parse-porter reader"
        thread.start()
    }

    deinit {
        shared.condition.lock()
        shared.abandoned = true
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    var bytesRead: Int64 {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.bytesRead
    }

    func next() throws(ReaderError) -> SourceRecord? {
        try nextPrepared()?.record
    }

    /// The next record, what `prepare` made of its batch if the reading thread prepared it, and
    /// the record's index in that batch; `nil` at the end.
    func nextPrepared() throws(ReaderError) -> (record: SourceRecord, prepared: Prepared?, index: Int)? {
        if position < batch.records.count {
            position += 1
            return (batch.records[position - 1], batch.prepared, position - 1)
        }
        let condition = shared.condition
        condition.lock()
        while shared.batches.isEmpty && !shared.finished { condition.wait() }
        if !shared.batches.isEmpty {
            shared.spent.append(batch)
            batch = shared.batches.removeFirst()
            condition.broadcast()
            condition.unlock()
            arriving?(batch)
            position = 1
            return (batch.records[0], batch.prepared, 0)
        }
        let failure = shared.failure
        shared.failure = nil
        condition.unlock()
        batch = Batch()
        position = 0
        if let failure { throw failure }
        return nil
    }

    /// The reading thread: reads to the end, a failure, or until the caller is gone.
    private static func readAll(_ shared: Shared) {
        yieldToBusierThreads()
        var batch = Batch()
        batch.records.reserveCapacity(batchSize)
        var failure: ReaderError?
        while true {
            do {
                guard let record = try shared.reader.next() else { break }
                batch.records.append(record)
            } catch {
                failure = error
                break
            }
            if batch.records.count == batchSize {
                giveOwnHeader(to: &batch.records)
                if callerIsBehind(shared) { batch.prepared = shared.prepare(batch.records) }
                guard hand(batch, to: shared) else { return }
                batch.records.removeAll(keepingCapacity: true)
                batch.prepared = nil
            }
        }
        giveOwnHeader(to: &batch.records)
        guard batch.records.isEmpty || hand(batch, to: shared) else { return }
        shared.condition.lock()
        shared.failure = failure
        shared.finished = true
        shared.bytesRead = shared.reader.bytesRead
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// Gives the CSV records of `batch` a header object of their own (the same names): every
    /// record counts a reference to its header as this thread makes it, while the caller's
    /// thread reads the header for each cell it looks up, so with one header for the file the
    /// two threads shared its cache lines record by record. (Measured when a cell lookup also
    /// counted a reference to the header, before `SourceRecord` kept its content in fields of
    /// its own: validate, 1M books, `swift_retain` from `SourceRecord.cell` 461-491 samples on
    /// the caller's thread, 273 after.) A batch is used by one thread at a time.
    private static func giveOwnHeader(to records: inout [SourceRecord]) {
        guard let fileHeader = records.first?.csvHeader else { return }
        let header = CSVHeader(names: fileHeader.names)
        for index in records.indices where records[index].csvHeader === fileHeader {
            let record = records[index]
            records[index] = SourceRecord(line: record.line, header: header, row: record.csvRow, malformation: record.malformation)
        }
    }

    /// Lowers this thread's priority (Linux: nice 5, this thread only): where the import's other
    /// threads keep both cores busy (a first load into a mirror is bound by its writer), parsing
    /// takes the time they leave; elsewhere it runs as fast as before.
    private static func yieldToBusierThreads() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
        #endif
    }

    /// Whether half the batches the caller may hold ahead are waiting for it: then what the
    /// reading thread prepares is work the caller would otherwise be behind on (validate, 1M
    /// books: 3.7-4.0 s against 4.7-4.8 s when every batch was prepared; re-import of the same
    /// unchanged: 6.4-7.1 s against 7.3-8.2 s when none was).
    private static func callerIsBehind(_ shared: Shared) -> Bool {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.batches.count >= capacity / 2
    }

    /// Queues a batch, waiting for room, and releases the spent ones; `false` when the caller is gone.
    private static func hand(_ batch: Batch, to shared: Shared) -> Bool {
        let condition = shared.condition
        condition.lock()
        while shared.batches.count >= capacity && !shared.abandoned { condition.wait() }
        guard !shared.abandoned else {
            condition.unlock()
            return false
        }
        shared.batches.append(batch)
        shared.bytesRead = shared.reader.bytesRead
        let spent = shared.spent
        shared.spent = []
        condition.broadcast()
        condition.unlock()
        _ = consume spent
        return true
    }
}
