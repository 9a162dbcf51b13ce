#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a reader takes a source file's bytes from, in order, a chunk at a time: a file on
/// disk (``FileInput``) or an entry of a zip archive (``ZipEntryInput``).
protocol ByteInput: AnyObject {
    /// Fills `buffer` as far as the input allows; returns the byte count, 0 at the end.
    func readChunk(into buffer: UnsafeMutableRawBufferPointer) throws(InputReadFailure) -> Int
    /// Goes back to the start.
    func rewind() throws(InputReadFailure)
}

/// A failed read, described by the system's or the archive library's message, or bytes
/// that are not text in the file's encoding (``TranscodingInput``).
struct InputReadFailure: Error {
    let message: String
    var decoding: DecodingFault? = nil
}

/// A source file open for sequential reading in chunks; closed when released.
final class FileInput: ByteInput {
    private let descriptor: Int32

    /// Opens `path`; a missing or unreadable file, or a directory, is a `ReaderError`
    /// at line 0.
    init(path: String, displayName: String) throws(ReaderError) {
        func failure(_ message: String) -> ReaderError {
            ReaderError(file: displayName, line: 0, reason: "cannot open file: \(message)", kind: .unreadable)
        }
        // The descriptor is stored only once it is known good: a class whose stored
        // properties are all set runs `deinit` even when its initializer throws, so closing
        // it here as well would close it twice, and the second close could hit a descriptor
        // another thread has just opened under the same number.
        let opened = open(path, O_RDONLY | O_CLOEXEC)
        guard opened >= 0 else { throw failure(FileInput.systemMessage()) }
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            let message = FileInput.systemMessage()
            close(opened)
            throw failure(message)
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            close(opened)
            throw failure(String(cString: strerror(EISDIR)))
        }
        descriptor = opened
    }

    deinit {
        close(descriptor)
    }

    /// Fills `buffer` as far as the file allows; returns the byte count, 0 at the end of the file.
    func readChunk(into buffer: UnsafeMutableRawBufferPointer) throws(InputReadFailure) -> Int {
        var count = 0
        while count < buffer.count, let base = buffer.baseAddress {
            let result = read(descriptor, base + count, buffer.count - count)
            if result > 0 {
                count += result
            } else if result == 0 {
                break
            } else if errno != EINTR {
                throw InputReadFailure(message: FileInput.systemMessage())
            }
        }
        return count
    }

    /// Goes back to the start of the file.
    func rewind() throws(InputReadFailure) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw InputReadFailure(message: FileInput.systemMessage()) }
    }

    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}
