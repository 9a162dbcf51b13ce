import ParseModel

/// How the records of a JSON file are laid out.
public enum JSONLayout: Sendable {
    /// `.array` when the file starts with `[` or with `{"results"`, `.lines` otherwise.
    case automatic
    /// A top-level array of objects, or a Parse export `{"results": [...]}` (other
    /// top-level keys are ignored).
    case array
    /// JSON Lines / NDJSON: one object per non-blank line.
    case lines
}

/// Streams the objects of a JSON file: the elements of a top-level array or of a Parse
/// export's `results` array, or the lines of a JSON Lines file.
///
/// Arrays are parsed one element at a time from a chunked buffer, so memory holds one
/// record, not the file. Each record's `line` is the line of its opening `{`. A UTF-8 byte
/// order mark is ignored. Faults end the file: invalid JSON (`invalid JSON: …`, at the
/// line of the fault; a string that is not UTF-8 with the byte's offset in the file), a
/// record that is not an object, or a top-level value that holds no records.
public struct JSONRecordReader: RecordReader {
    /// The file's name in messages.
    public let displayName: String
    private let input: any ByteInput
    private let chunkSize: Int
    private var stream: JSONStream
    private var state: State
    /// Once a fault is found, every later call reports it again.
    private var failure: ReaderError?
    /// Where the members of the record being read are in its text (reused record after record).
    private var members: [JSONMemberSpan] = []
    /// Records are parsed whole into their `content` instead of scanned into spans of their
    /// text, for a reader of every member (a MongoDB document turned into its REST object),
    /// which would otherwise scan each record and then parse it.
    package var readsWholeRecords = false

    private enum State {
        /// In the top-level array.
        case array
        /// In the `results` array of the top-level object.
        case results
        /// Between members of the top-level object, after its `results` array.
        case afterResults
        case lines
        case finished
    }

    /// Opens `path` and, for `.array` and `.automatic`, reads up to the first record.
    /// - Parameters:
    ///   - path: The file to read.
    ///   - displayName: The file name used in locations.
    ///   - layout: How the records are laid out.
    ///   - chunkSize: Bytes read from the file at a time (the buffer grows for a larger record).
    public init(
        path: String, displayName: String, layout: JSONLayout, chunkSize: Int = 1 << 16
    ) throws(ReaderError) {
        try self.init(input: FileInput(path: path, displayName: displayName), displayName: displayName, layout: layout, chunkSize: chunkSize)
    }

    /// Reads `input` (a file or an archive entry) as ``init(path:displayName:layout:chunkSize:)`` reads a file.
    init(input: any ByteInput, displayName: String, layout: JSONLayout, chunkSize: Int = 1 << 16) throws(ReaderError) {
        self.displayName = displayName
        self.chunkSize = chunkSize
        self.input = input
        stream = JSONRecordReader.makeStream(input, chunkSize: chunkSize)
        state = .lines
        switch layout {
        case .lines: break
        case .array: try beginArrayLayout()
        case .automatic: try beginAutomaticLayout()
        }
    }

    /// Bytes of the file read so far, for progress.
    public var bytesRead: Int64 { (input as? TranscodingInput)?.convertedSourceBytes ?? stream.bytesConsumed }

    /// The next object, `nil` at the end of the file; malformed JSON throws, naming its line.
    public mutating func next() throws(ReaderError) -> SourceRecord? {
        if let failure { throw failure }
        do throws(ReaderError) {
            return try readRecord()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func readRecord() throws(ReaderError) -> SourceRecord? {
        while true {
            switch state {
            case .array, .results:
                guard try json(stream.nextElement) else {
                    if state == .array {
                        try finish()
                    } else {
                        state = .afterResults
                    }
                    continue
                }
                let line = stream.line, stream = stream
                if readsWholeRecords { return try record(json(stream.parseValue), line: line) }
                // Scanned first: `record` reads the members the scan leaves.
                let value = try scanning { members throws(JSONStreamError) in try stream.scanValue(members: &members) }
                return try record(value, line: line)
            case .afterResults:
                try skipToResults(objectLine: nil)
            case .lines:
                let stream = stream
                if readsWholeRecords {
                    guard let (line, value) = try json(stream.nextLineValue) else {
                        state = .finished
                        return nil
                    }
                    return try record(value, line: line)
                }
                guard let (line, value) = try scanning({ members throws(JSONStreamError) in try stream.nextLineScan(members: &members) }) else {
                    state = .finished
                    return nil
                }
                return try record(value, line: line)
            case .finished:
                return nil
            }
        }
    }

    // MARK: Layouts

    private static func makeStream(_ input: any ByteInput, chunkSize: Int) -> JSONStream {
        JSONStream(chunkSize: chunkSize) { buffer throws(JSONStreamError) in
            do throws(InputReadFailure) {
                return try input.readChunk(into: buffer)
            } catch {
                throw .readFailed(error.message)
            }
        }
    }

    /// `[` starts an array of records; `{` an object whose `results` member holds them.
    private mutating func beginArrayLayout() throws(ReaderError) {
        switch try json(stream.peek) {
        case UInt8(ascii: "["):
            try json(stream.beginArray)
            state = .array
        case UInt8(ascii: "{"):
            let line = stream.line
            try json(stream.beginObject)
            try skipToResults(objectLine: line)
        default:
            throw error("expected a JSON array of objects or an object with a \"results\" array", line: stream.line)
        }
    }

    /// Like `beginArrayLayout`, but an object is a Parse export only when its first key is
    /// `results`; anything else is read again from the start as JSON Lines.
    private mutating func beginAutomaticLayout() throws(ReaderError) {
        switch try json(stream.peek) {
        case UInt8(ascii: "["):
            try json(stream.beginArray)
            state = .array
        case UInt8(ascii: "{"):
            try json(stream.beginObject)
            if try json(stream.nextKey) == "results" {
                try beginResults()
            } else {
                try restartAsLines()
            }
        default:
            try restartAsLines()
        }
    }

    private mutating func restartAsLines() throws(ReaderError) {
        do throws(InputReadFailure) {
            try input.rewind()
        } catch {
            throw readerError(.readFailed(error.message))
        }
        stream = JSONRecordReader.makeStream(input, chunkSize: chunkSize)
        state = .lines
    }

    /// Skips members of the top-level object up to a `results` member and enters its
    /// array. After the last member, checks that the input ends; `objectLine` is where
    /// the object starts when no `results` member has been seen yet.
    private mutating func skipToResults(objectLine: Int?) throws(ReaderError) {
        while let key = try json(stream.nextKey) {
            if key == "results" {
                try beginResults()
                return
            }
            _ = try json(stream.parseValue)
        }
        if let objectLine {
            throw error("the top-level JSON object has no \"results\" array", line: objectLine)
        }
        try finish()
    }

    private mutating func beginResults() throws(ReaderError) {
        guard try json(stream.peek) == UInt8(ascii: "[") else {
            throw error("\"results\" is not an array", line: stream.line)
        }
        try json(stream.beginArray)
        state = .results
    }

    private mutating func finish() throws(ReaderError) {
        try json(stream.finish)
        state = .finished
    }

    // MARK: Records and errors

    /// The record of an object the stream scanned: its text and its members' places, one buffer.
    private func record(_ value: JSONScannedValue, line: Int) throws(ReaderError) -> SourceRecord {
        guard case .object(let text) = value else { throw error("record is not a JSON object", line: line) }
        return SourceRecord(line: line, json: JSONFields(members: members, text: text))
    }

    /// The record of an object the stream parsed whole (``readsWholeRecords``).
    private func record(_ value: JSONValue, line: Int) throws(ReaderError) -> SourceRecord {
        guard case .object(let object) = value else { throw error("record is not a JSON object", line: line) }
        return SourceRecord(line: line, content: .json(object))
    }

    /// Runs a step of the stream that scans a record into ``members``.
    private mutating func scanning<Value>(_ step: (inout [JSONMemberSpan]) throws(JSONStreamError) -> Value) throws(ReaderError) -> Value {
        var spans: [JSONMemberSpan] = []
        swap(&spans, &members)
        defer { swap(&spans, &members) }
        return try json { () throws(JSONStreamError) in try step(&spans) }
    }

    /// Runs a step of the stream, turning its faults into `ReaderError`s.
    private func json<Value>(_ step: () throws(JSONStreamError) -> Value) throws(ReaderError) -> Value {
        do throws(JSONStreamError) {
            return try step()
        } catch {
            throw readerError(error)
        }
    }

    private func readerError(_ error: JSONStreamError) -> ReaderError {
        switch error {
        case .syntax(let syntax):
            if syntax.message == JSONSyntaxError.invalidUTF8Message, let fault = TranscodingInput.firstInvalidUTF8(in: input) {
                return ReaderError(file: displayName, line: fault.line, reason: "invalid JSON: \(fault.description)", kind: .invalidJSON, decodingFault: fault)
            }
            return self.error("invalid JSON: \(syntax.message) at column \(syntax.column)", line: syntax.line, kind: .invalidJSON)
        case .readFailed(let message):
            if let fault = (input as? TranscodingInput)?.fault {
                return ReaderError(file: displayName, line: fault.line, reason: fault.description, decodingFault: fault)
            }
            return self.error("cannot read file: \(message)", line: stream.line, kind: .unreadable)
        case .valueTooLarge(let limit):
            return self.error("a JSON record larger than \(limit >> 20) MiB: split it, or keep large values (files) out of the record", line: stream.line)
        }
    }

    private func error(_ reason: String, line: Int, kind: ReaderError.Kind = .malformed) -> ReaderError {
        ReaderError(file: displayName, line: line, reason: reason, kind: kind)
    }
}
