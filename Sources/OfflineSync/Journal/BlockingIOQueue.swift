import Dispatch

/// Where the journal store runs long blocking file work (writing a snapshot: many writes, then syncs): a dispatch
/// queue of its own, so that a slow disk holds one of its threads, never one of the few threads Swift concurrency
/// shares among every task of the process.
enum BlockingIOQueue {
    private static let queue = DispatchQueue(label: "OfflineSync.JournalDataSource.blocking-io", qos: .utility, attributes: .concurrent)

    /// Runs `work` on the queue and returns its result.
    static func run<Value: Sendable, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> Value) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(Failure) { continuation.resume(returning: .success(try work())) } catch { continuation.resume(returning: .failure(error)) }
            }
        }
        return try result.get()
    }
}
