import Foundation

/// Reads another reader's records on a thread of its own, up to ``capacity`` batches ahead of
/// the caller, so that parsing overlaps what the caller does with the records. Records, a
/// failure and the end come out in the order the wrapped reader gave them.
///
/// Dropping it stops the thread after the record it is reading.
package final class ReadAheadReader: RecordReader {
    /// What the two threads share, only ever touched with `condition` locked (hence
    /// `@unchecked Sendable`); `reader` only by the reading thread.
    private final class Shared: @unchecked Sendable {
        let condition = NSCondition()
        var batches: [[SourceRecord]] = []
        var failure: ReaderError?
        var finished = false
        var abandoned = false
        var bytesRead: Int64 = 0
        var reader: any RecordReader

        init(_ reader: any RecordReader) { self.reader = reader }
    }

    /// Records per batch handed over.
    private static let batchSize = 256
    /// Batches read ahead at most.
    private static let capacity = 8

    package let displayName: String
    private let shared: Shared
    private var batch: [SourceRecord] = []
    private var position = 0

    /// Starts reading `reader` on a new thread.
    package init(_ reader: consuming any RecordReader) {
        displayName = reader.displayName
        let shared = Shared(reader)
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

    package var bytesRead: Int64 {
        shared.condition.lock()
        defer { shared.condition.unlock() }
        return shared.bytesRead
    }

    package func next() throws(ReaderError) -> SourceRecord? {
        if position < batch.count {
            position += 1
            return batch[position - 1]
        }
        let condition = shared.condition
        condition.lock()
        while shared.batches.isEmpty && !shared.finished { condition.wait() }
        if !shared.batches.isEmpty {
            batch = shared.batches.removeFirst()
            condition.broadcast()
            condition.unlock()
            position = 1
            return batch[0]
        }
        let failure = shared.failure
        shared.failure = nil
        condition.unlock()
        batch = []
        position = 0
        if let failure { throw failure }
        return nil
    }

    /// The reading thread: reads to the end, a failure, or until the caller is gone.
    private static func readAll(_ shared: Shared) {
        yieldToBusierThreads()
        var batch: [SourceRecord] = []
        batch.reserveCapacity(batchSize)
        var failure: ReaderError?
        while true {
            do {
                guard let record = try shared.reader.next() else { break }
                batch.append(record)
            } catch {
                failure = error
                break
            }
            if batch.count == batchSize {
                guard hand(batch, to: shared) else { return }
                batch.removeAll(keepingCapacity: true)
            }
        }
        guard batch.isEmpty || hand(batch, to: shared) else { return }
        shared.condition.lock()
        shared.failure = failure
        shared.finished = true
        shared.bytesRead = shared.reader.bytesRead
        shared.condition.broadcast()
        shared.condition.unlock()
    }

    /// Lowers this thread's priority (Linux: nice 5, this thread only): where the import's other
    /// threads keep both cores busy (a first load into a mirror is bound by its writer), parsing
    /// takes the time they leave; elsewhere it runs as fast as before.
    private static func yieldToBusierThreads() {
        #if os(Linux)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)
        #endif
    }

    /// Queues a batch, waiting for room; `false` when the caller is gone.
    private static func hand(_ batch: [SourceRecord], to shared: Shared) -> Bool {
        let condition = shared.condition
        condition.lock()
        defer { condition.unlock() }
        while shared.batches.count >= capacity && !shared.abandoned { condition.wait() }
        guard !shared.abandoned else { return false }
        shared.batches.append(batch)
        shared.bytesRead = shared.reader.bytesRead
        condition.broadcast()
        return true
    }
}
