#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// The thread a ``JournalDataSource`` writes and syncs its journal on: one per store, so that a slow disk holds
/// this thread and never one of the few threads Swift concurrency shares among every task of the process. Jobs
/// run one at a time in the order they were given. The thread ends when the store closes or is released.
final class JournalIOThread: Sendable {
    private let queue: JobQueue

    /// Starts the thread; `nil` when the system refuses a new thread (the caller then runs its jobs in place).
    init?() {
        let queue = JobQueue()
        let context = Unmanaged.passRetained(queue).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { context in
            #if canImport(Darwin)
            let queue = Unmanaged<JobQueue>.fromOpaque(context).takeRetainedValue()
            #else
            guard let context else { return nil }
            let queue = Unmanaged<JobQueue>.fromOpaque(context).takeRetainedValue()
            #endif
            queue.serve()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<JobQueue>.fromOpaque(context).release()
            return nil
        }
        pthread_detach(thread)
        self.queue = queue
    }

    deinit { queue.stop() }

    /// Runs `work` on the thread after the jobs given before it, and returns its result.
    func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            queue.add { continuation.resume(returning: work()) }
        }
    }

    /// Ends the thread once the jobs already given have run. Later ``run(_:)`` calls run their work in place.
    func stop() { queue.stop() }
}

/// The jobs of a ``JournalIOThread`` behind a mutex and a condition variable.
private final class JobQueue: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs: [@Sendable () -> Void] = []
    private var isStopping = false

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func add(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        guard !isStopping else {
            pthread_mutex_unlock(mutex)
            job()
            return
        }
        jobs.append(job)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    func stop() {
        pthread_mutex_lock(mutex)
        isStopping = true
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The thread's loop: takes jobs in order until stopped with none left.
    func serve() {
        while true {
            pthread_mutex_lock(mutex)
            while jobs.isEmpty && !isStopping { pthread_cond_wait(condition, mutex) }
            let batch = jobs
            jobs = []
            let done = batch.isEmpty && isStopping
            pthread_mutex_unlock(mutex)
            if done { return }
            for job in batch { job() }
        }
    }
}
