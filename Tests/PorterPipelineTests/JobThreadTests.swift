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
                _ = try writer.submit {
                    withExtendedLifetime(batch) {}; return .links([:])
                }
            }
            XCTAssertEqual(try writer.drain().count, 1)
            XCTAssertEqual(releases.noted.count, round, "every batch is freed by the time drain() returns")
        }
        XCTAssertTrue(releases.noted.allSatisfy { pthread_equal($0, pthread_self()) != 0 }, "a batch was freed on the writer thread")
    }

    /// A job that fails stops the thread's work: the failure is thrown to the submitter (by a
    /// later submit or by drain), and the jobs queued behind it never run.
    func testTheFirstFailureIsThrownAndTheJobsBehindItAreDropped() throws {
        let thread = JobThread<Int>(name: "test jobs")
        defer { thread.stop() }
        final class Ran: @unchecked Sendable {
            private let lock = NSLock()
            private var numbers: [Int] = []
            func note(_ number: Int) { lock.withLock { numbers.append(number) } }
            var noted: [Int] { lock.withLock { numbers } }
        }
        let ran = Ran()
        func job(_ number: Int) -> JobThread<Int>.Job {
            {
                ran.note(number); return number
            }
        }
        XCTAssertEqual(try thread.submit(job(1)).count, 0)
        XCTAssertEqual(try thread.drain(), [1])
        _ = try thread.submit { () throws(PorterError) -> Int in throw PorterError(.target, "broken") }
        var thrown: PorterError?
        do {
            for number in 3...10 { _ = try thread.submit(job(number)) }
            _ = try thread.drain()
        } catch {
            thrown = error
        }
        XCTAssertEqual(thrown?.message, "broken")
        XCTAssertEqual(ran.noted, [1], "no job runs after the one that failed")
    }
}
