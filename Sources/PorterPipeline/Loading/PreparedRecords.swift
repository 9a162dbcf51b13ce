import PorterReaders

/// A source's records, each with what `prepare` made of its batch where that was done ahead. A
/// file's records are parsed on a thread of their own and prepared there, a batch at a time, while
/// the caller is behind (``ReadAheadReader``); a program's own records (a ``MemorySource``) are
/// read on the caller's thread and come unprepared (`nil`): the caller prepares them itself.
struct PreparedRecords<Prepared: Sendable> {
    private let ahead: ReadAheadReader<Prepared>?
    private var own: (any RecordReader)?
    let displayName: String

    /// `readsAhead`: whether `reader` is read on a thread of its own.
    /// `arriving`: see ``ReadAheadReader/init(_:prepare:arriving:)``.
    init(
        _ reader: consuming any RecordReader, readsAhead: Bool, prepare: @escaping @Sendable ([SourceRecord]) -> Prepared,
        arriving: ((ReadAheadReader<Prepared>.Batch) -> Void)? = nil
    ) {
        displayName = reader.displayName
        if readsAhead {
            ahead = ReadAheadReader(reader, prepare: prepare, arriving: arriving)
            own = nil
        } else {
            ahead = nil
            own = reader
        }
    }

    var bytesRead: Int64 { ahead?.bytesRead ?? own!.bytesRead }

    /// The next record, what `prepare` made of its batch if that was done ahead, and its index
    /// in the batch; `nil` at the end.
    mutating func next() throws(ReaderError) -> (record: SourceRecord, prepared: Prepared?, index: Int)? {
        if let ahead { return try ahead.nextPrepared() }
        guard let record = try own!.next() else { return nil }
        return (record, nil, 0)
    }
}
