import Foundation

/// A thread of its own on which the async work of one call runs (``run(named:_:)``), every
/// part of it that is not isolated to an actor: a migration run's SQLite requests, its wait
/// for a mirror's lock. Work that blocks (on SQLite's busy timeout, on a database server) then
/// blocks this thread, not one of the cooperative pool's few (one per core), which every
/// other task of the process needs.
///
/// `@unchecked Sendable`: `jobs`, `stopping` and `exited` are read and written only while
/// `condition` is locked, which the compiler cannot see.
package final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let name: String
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false
    private var exited = false

    private init(name: String) {
        self.name = name
        let thread = Thread { [self] in work() }
        thread.name = name
        thread.start()
    }

    /// Runs `operation` with a new thread, named `name`, as its task executor preference, and
    /// ends the thread when it returns. Child tasks `operation` starts run there too, and so do
    /// tasks made with `Task(executorPreference:)` and the executor it is given.
    package static func run<T, Failure: Error>(named name: String, _ operation: (any TaskExecutor) async throws(Failure) -> T)
        async throws(Failure) -> T
    {
        let executor = ThreadExecutor(name: name)
        defer { executor.stop() }
        return try await withTaskExecutorPreference(executor) { () async throws(Failure) -> T in try await operation(executor) }
    }

    /// Queues a job of the task; the thread runs them in order. A job that comes after the
    /// thread ended (a task that outlived ``run(named:_:)``) gets a thread of its own.
    package func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        if exited {
            condition.unlock()
            let thread = Thread { [self] in unowned.runSynchronously(on: asUnownedTaskExecutor()) }
            thread.name = name
            thread.start()
            return
        }
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs queued have run.
    private func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                exited = true
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
