import CLibCSV

/// The functions libcsv calls back. C function pointers cannot capture context, so the
/// `CSVRowStream` being filled travels through libcsv's `data` pointer (unretained: the
/// stream is alive for as long as it runs the parser).
enum CSVCallbacks {
    /// Receives each field's bytes (not NUL-terminated) when the field ends.
    static let field: @convention(c) (UnsafeMutableRawPointer?, Int, UnsafeMutableRawPointer?) -> Void = {
        bytes, count, context in
        guard let context else { return }
        let stream = Unmanaged<CSVRowStream>.fromOpaque(context).takeUnretainedValue()
        stream.appendCell(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Called when a row ends (at its line break, or at the end of the file).
    static let row: @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void = { _, context in
        guard let context else { return }
        Unmanaged<CSVRowStream>.fromOpaque(context).takeUnretainedValue().completeRow()
    }

    /// Treats no byte as padding, so spaces around unquoted values are kept (RFC 4180);
    /// libcsv's default would trim spaces and tabs.
    static let isSpace: @convention(c) (UInt8) -> Int32 = { _ in 0 }
}
