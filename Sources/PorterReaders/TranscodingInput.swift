#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Delivers another input's text as UTF-8, converting it with the C library's iconv a chunk
/// at a time, so memory does not grow with the file.
///
/// Without a declared encoding the file is UTF-8 and passes unchanged, unless it starts with
/// a UTF-16 byte order mark (FF FE or FE FF), which makes it UTF-16 of that byte order;
/// declared UTF-8 passes unchanged too (readers check it). The byte order mark of UTF-16
/// comes out as UTF-8's, which readers skip. Bytes that are no character in the encoding
/// end the input: the text before them is delivered first, then the read fails with a
/// ``DecodingFault`` naming the byte's offset and line (see ``fault``).
final class TranscodingInput: ByteInput {
    private let inner: any ByteInput
    private let declared: TextEncoding?
    /// The encoding being converted from once the first bytes are seen; `nil` passes bytes unchanged.
    private var encoding: TextEncoding?
    private var converter: iconv_t?
    private var started = false
    private let raw: UnsafeMutableRawBufferPointer
    private var rawStart = 0, rawEnd = 0
    /// The bytes at `rawStart` are the start of a character whose end has not been read yet.
    private var incomplete = false
    private var innerEnded = false
    private var finished = false
    private let converted: UnsafeMutableRawBufferPointer
    private var convertedStart = 0, convertedEnd = 0
    /// Bytes of the file before `raw[rawStart]`.
    private var offset: Int64 = 0
    /// The physical line of the next byte converted.
    private var line = 1
    /// The fault that ended the input, once all the text before it is delivered.
    private(set) var fault: DecodingFault?

    /// Bytes of the file converted so far, for progress (the reader's count of UTF-8 bytes
    /// would not match the file's size); `nil` while bytes pass unchanged.
    var convertedSourceBytes: Int64? { converter == nil ? nil : offset }

    /// - Parameters:
    ///   - encoding: The declared encoding, `nil` when none is (see the type's description).
    ///   - chunkSize: Bytes read from `inner` at a time.
    init(_ inner: any ByteInput, encoding: TextEncoding?, chunkSize: Int = 1 << 16) {
        self.inner = inner
        self.declared = encoding
        raw = .allocate(byteCount: max(chunkSize, 8), alignment: 1)
        // Every source byte becomes at most 3 UTF-8 bytes (a UTF-16 unit above U+07FF); a
        // 4-byte character comes from 4 bytes.
        converted = .allocate(byteCount: 3 * raw.count, alignment: 1)
    }

    deinit {
        if let converter { iconv_close(converter) }
        raw.deallocate()
        converted.deallocate()
    }

    /// Where `input`, read as UTF-8, first holds bytes that are not UTF-8: read again from
    /// its start with iconv. `nil` when iconv finds none or the input cannot be read again.
    static func firstInvalidUTF8(in input: any ByteInput) -> DecodingFault? {
        do throws(InputReadFailure) {
            try input.rewind()
            let checker = TranscodingInput(input, encoding: nil)
            checker.started = true
            guard checker.open(.utf8) else { return nil }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
            defer { buffer.deallocate() }
            while try checker.readChunk(into: buffer) > 0 {}
            return nil
        } catch {
            return error.decoding
        }
    }

    func readChunk(into buffer: UnsafeMutableRawBufferPointer) throws(InputReadFailure) -> Int {
        while convertedStart == convertedEnd {
            if let fault { throw InputReadFailure(message: fault.description, decoding: fault) }
            if finished { return 0 }
            try convertMore()
        }
        let count = min(buffer.count, convertedEnd - convertedStart)
        buffer.baseAddress!.copyMemory(from: converted.baseAddress! + convertedStart, byteCount: count)
        convertedStart += count
        return count
    }

    func rewind() throws(InputReadFailure) {
        try inner.rewind()
        if let converter { iconv_close(converter) }
        converter = nil
        encoding = nil
        started = false
        (rawStart, rawEnd, convertedStart, convertedEnd) = (0, 0, 0, 0)
        (incomplete, innerEnded, finished) = (false, false, false)
        offset = 0
        line = 1
        fault = nil
    }

    /// Reads more of the file and converts as much of it as there is room for.
    private func convertMore() throws(InputReadFailure) {
        convertedStart = 0
        convertedEnd = 0
        if rawStart == rawEnd || incomplete { try refill() }
        if !started { begin() }
        if fault != nil { return }
        if rawStart == rawEnd && innerEnded {
            finished = true
            return
        }
        guard let converter else {
            converted.baseAddress!.copyMemory(from: raw.baseAddress! + rawStart, byteCount: rawEnd - rawStart)
            convertedEnd = rawEnd - rawStart
            offset += Int64(convertedEnd)
            rawStart = rawEnd
            return
        }
        var input: UnsafeMutablePointer<CChar>? = (raw.baseAddress! + rawStart).assumingMemoryBound(to: CChar.self)
        var inputLeft = rawEnd - rawStart
        var output: UnsafeMutablePointer<CChar>? = converted.baseAddress!.assumingMemoryBound(to: CChar.self)
        var outputLeft = converted.count
        let result = iconv(converter, &input, &inputLeft, &output, &outputLeft)
        let failure = result == -1 ? errno : 0
        let consumed = rawEnd - rawStart - inputLeft
        convertedEnd = converted.count - outputLeft
        countLines(in: convertedEnd)
        rawStart += consumed
        offset += Int64(consumed)
        incomplete = false
        switch failure {
        case 0, E2BIG:
            break
        case EINVAL where !innerEnded:
            incomplete = true
        case EINVAL:
            fault = makeFault(.truncated)
        default:
            fault = makeFault(.invalid)
        }
    }

    /// Keeps the bytes not converted yet and reads more after them.
    private func refill() throws(InputReadFailure) {
        let left = rawEnd - rawStart
        if left > 0, rawStart > 0 { raw.baseAddress!.copyMemory(from: raw.baseAddress! + rawStart, byteCount: left) }
        rawStart = 0
        rawEnd = left
        guard !innerEnded else { return }
        let count = try inner.readChunk(into: UnsafeMutableRawBufferPointer(rebasing: raw[rawEnd...]))
        if count == 0 { innerEnded = true }
        rawEnd += count
    }

    /// Decides the encoding from the declaration and the file's first bytes.
    private func begin() {
        started = true
        let first = rawEnd >= 2 ? (raw[0], raw[1]) : (0, 0)
        let byteOrder: TextEncoding? =
            switch first {
            case (0xFF, 0xFE): .utf16LE
            case (0xFE, 0xFF): .utf16BE
            default: nil
            }
        switch declared {
        case nil:
            if let byteOrder { _ = open(byteOrder) }
        case .utf8?:
            break
        case .utf16?:
            guard let byteOrder else {
                encoding = .utf16
                fault = makeFault(.noByteOrderMark)
                return
            }
            _ = open(byteOrder)
        case let other?:
            if !open(other) { fault = makeFault(.invalid) }
        }
    }

    /// Starts converting from `encoding`; false when iconv cannot.
    private func open(_ encoding: TextEncoding) -> Bool {
        self.encoding = encoding
        guard let name = encoding.iconvName else { return false }
        let opened = iconv_open("UTF-8", name)
        guard opened != iconv_t(bitPattern: -1) else { return false }
        converter = opened
        return true
    }

    private func countLines(in count: Int) {
        var next = converted.baseAddress!
        let end = next + count
        while next < end, let lineFeed = memchr(next, Int32(UInt8(ascii: "\n")), end - next) {
            line += 1
            next = lineFeed + 1
        }
    }

    private func makeFault(_ kind: DecodingFault.Kind) -> DecodingFault {
        DecodingFault(
            encoding: encoding ?? declared ?? .utf8, declared: declared != nil, byteOffset: offset,
            byte: kind == .noByteOrderMark || rawStart >= rawEnd ? nil : raw[rawStart], line: line, kind: kind)
    }
}
