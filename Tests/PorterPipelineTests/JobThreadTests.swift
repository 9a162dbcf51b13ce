import XCTest
@testable import PorterPipeline

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread an import writes on (SinkWriter), and an export.
final class JobThreadTests: XCTestCase {
    /// The threads on which batches were freed.
    private final class Releases: @unchecked Sendable {
        private let lock = NSLock()
        private var threads: [pthread_t] = []
        func note() { lock.withLock { threads.append(pthread_self()) } }
        var noted: [pthread_t] { lock.withLock { threads } }
    }

    /// Stands for the batch a job writes: tells `releases` where it is freed.
    private final class Batch: Sendable {
        let releases: Releases
        init(_ releases: Releases) { self.releases = releases }
        deinit { releases.note() }
    }

    /// A job's batch, built on the submitting thread, is freed there once the job has run, not
    /// on the writer thread (freeing across threads cost a fifth of an import's time).
    func testAJobThatRanIsReleasedOnTheSubmittingThread() throws {
        let writer = SinkWriter(name: "test writer")
        defer { writer.stop() }
        let releases = Releases()
        for round in 1...3 {
            do {
                let batch = Batch(releases)
                _ = try writer.submit { withExtendedLifetime(batch) {}; return .links([:]) }
            }
            XCTAssertEqual(try writer.drain().count, 1)
            XCTAssertEqual(releases.noted.count, round, "every batch is freed by the time drain() returns")
        }
        XCTAssertTrue(releases.noted.allSatisfy { pthread_equal($0, pthread_self()) != 0 }, "a batch was freed on the writer thread")
    }
}
