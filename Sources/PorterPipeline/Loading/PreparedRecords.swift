import PorterReaders

/// A source's records, each with what `prepare` made of it. A file's records are parsed and
/// prepared a batch ahead, on a thread of their own (``ReadAheadReader``); a program's own
/// records (a ``MemorySource``) are prepared one by one as they are read, on the caller's thread.
struct PreparedRecords<Prepared: Sendable> {
    private let ahead: ReadAheadReader<Prepared>?
    private var own: (any RecordReader)?
    private let prepare: @Sendable (SourceRecord) -> Prepared
    let displayName: String

    /// `readsAhead`: whether `reader` is read on a thread of its own.
    init(_ reader: consuming any RecordReader, readsAhead: Bool, prepare: @escaping @Sendable (SourceRecord) -> Prepared) {
        displayName = reader.displayName
        self.prepare = prepare
        if readsAhead {
            ahead = ReadAheadReader(reader, prepare: prepare)
            own = nil
        } else {
            ahead = nil
            own = reader
        }
    }

    var bytesRead: Int64 { ahead?.bytesRead ?? own!.bytesRead }

    /// The next record and what `prepare` made of it; `nil` at the end.
    mutating func next() throws(ReaderError) -> (record: SourceRecord, prepared: Prepared)? {
        if let ahead { return try ahead.nextPrepared() }
        guard let record = try own!.next() else { return nil }
        return (record, prepare(record))
    }
}
