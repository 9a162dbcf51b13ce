import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body that is read once. libcurl, under URLSession on Linux, sends a request again
/// on a fresh connection when a reused one dies before any answer, and swift-corelibs-foundation
/// cannot rewind a body for it: it sent the headers again without the body, and the request sat
/// there until it timed out (30 s by default). Read a second time, this body fails, so the
/// transfer ends at once and the client's own retry (``ParseRESTClient``, which first asks the
/// server which creates arrived) takes over. Never a silent resend either: a server that did
/// the work before the connection died would do it twice.
final class OneShotBody: InputStream {
    private let bytes: [UInt8]
    private var offset = 0
    private var endReported = false
    private var status = Stream.Status.notOpen

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        super.init(data: Data())
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    /// Always: the end, and a read past it, are told by ``read(_:maxLength:)``.
    override var hasBytesAvailable: Bool { true }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard offset < bytes.count else {
            if endReported { return -1 }
            endReported = true
            return 0
        }
        let count = min(length, bytes.count - offset)
        bytes.withUnsafeBufferPointer { source in buffer.update(from: source.baseAddress! + offset, count: count) }
        offset += count
        return count
    }
}
