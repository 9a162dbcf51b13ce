import Foundation

/// Runs jobs on a thread of its own, one after another in submission order, so that their
/// work overlaps the submitting thread's (an import's writes, an export's files, a pull's
/// mirror). At most `capacity` jobs wait at a time (memory stays bounded); whatever a job uses
/// is only ever used from this thread while it runs.
///
/// Completions cross back to the submitter, so they are `Sendable`; a job is not (it uses the
/// submitter's writers, handed over for as long as it runs).
///
/// `@unchecked Sendable` because the thread and the submitter share it: every stored
/// property but `capacity` (a constant) is read and written only while `condition` is locked,
/// which the compiler cannot see (an `NSCondition` guards them, since both sides wait on it).
package final class JobThread<Completion: Sendable>: @unchecked Sendable {
    package typealias Job = () throws(PorterError) -> Completion

    private let condition = NSCondition()
    private let capacity: Int
    private var jobs: [Job] = []
    private var busy = false
    private var stopping = false
    private var exited = false
    private var completions: [Completion] = []
    /// Jobs that have run, released by the submitting thread: a job holds what it wrote (an
    /// import's batch, an export's page), allocated on that thread. Freed here, every object
    /// would cross threads, and glibc's `free` of another thread's memory takes that thread's
    /// arena lock while it allocates (the first load of 1M books took a fifth longer so).
    private var ranJobs: [Job] = []
    private var failure: PorterError?

    /// Starts the thread, named `name`.
    package init(name: String, capacity: Int = 4) {
        self.capacity = capacity
        let thread = Thread { [self] in work() }
        thread.name = name
        thread.start()
    }

    /// Queues `job`; returns the completions of earlier jobs, or throws the first failure.
    package func submit(_ job: @escaping Job) throws(PorterError) -> [Completion] {
        condition.lock()
        while jobs.count >= capacity && failure == nil { condition.wait() }
        if let failure {
            condition.unlock()
            throw failure
        }
        jobs.append(job)
        condition.broadcast()
        return takeCompletionsAndUnlock()
    }

    /// Waits until every queued job has run; returns their completions.
    package func drain() throws(PorterError) -> [Completion] {
        condition.lock()
        while (!jobs.isEmpty || busy) && failure == nil { condition.wait() }
        if let failure {
            condition.unlock()
            throw failure
        }
        return takeCompletionsAndUnlock()
    }

    /// Ends the thread after the job under way; jobs still queued are dropped.
    package func stop() {
        condition.lock()
        stopping = true
        jobs.removeAll()
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    /// The completions so far; the jobs that ran are released once `condition` is unlocked.
    private func takeCompletionsAndUnlock() -> [Completion] {
        let taken = completions, ran = ranJobs
        completions.removeAll()
        ranJobs.removeAll()
        withExtendedLifetime(ran) { condition.unlock() }
        return taken
    }

    private func work() {
        condition.lock()
        while true {
            while jobs.isEmpty && !stopping { condition.wait() }
            if stopping { break }
            let job = jobs.removeFirst()
            busy = true
            condition.unlock()
            let result: Result<Completion, PorterError>
            do { result = .success(try job()) } catch { result = .failure(error) }
            condition.lock()
            busy = false
            ranJobs.append(consume job)  // its last reference here, released by the submitting thread
            switch result {
            case .success(let completion): completions.append(completion)
            case .failure(let error):
                failure = failure ?? error
                jobs.removeAll()
            }
            condition.broadcast()
        }
        exited = true
        condition.broadcast()
        condition.unlock()
    }
}
