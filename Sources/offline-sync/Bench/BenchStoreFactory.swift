import Foundation
import OfflineSync
import OfflineSyncTesting

/// How durable each `apply` of a workload must be: the workload definition's W1 and W3 use `.always`, W2 `.grouped`.
enum BenchDurability: Sendable, Hashable {
    /// Each apply returns after its own record is on disk.
    case always
    /// Concurrent applies may share one fsync; each returns after its record is on disk.
    case grouped
}

/// An open store under test, and how to close it.
struct BenchStore: Sendable {
    /// The data source the workloads drive.
    let source: any SyncContextDataSource
    /// Flushes and releases the store (not timed by any workload).
    let close: @Sendable () async throws -> Void
    /// How the store answers a query (its `explain`).
    let explain: @Sendable (Query) async throws -> QueryPlan
}

/// The index every store of W3 to W7 is opened with (the workload definition compare.sh also follows).
let benchIndexes = BenchmarkRecords.indexes

/// Opens the store under test; the bench is written against this, so the store is chosen in one place
/// (``BenchCommand/storeFactory(_:)``).
protocol BenchStoreFactory: Sendable {
    /// A short name for the logs, such as `JournalDataSource`.
    var name: String { get }
    /// Whether a store opened in a new process finds what an earlier process wrote (false for in-memory stores,
    /// whose W7 probe then loads the records itself).
    var persistsAcrossProcesses: Bool { get }
    /// Opens, creating it if needed, the store kept in `directory`, keeping `indexes`.
    func open(directory: URL, durability: BenchDurability, indexes: [IndexDefinition]) async throws -> BenchStore
    /// Opens the store kept in `directory` as W8 measures it: ready for its first answers as soon as the store can
    /// give them (before the whole store is loaded, when the store can do so).
    func openForFirstAnswers(directory: URL) async throws -> BenchStore
}

extension BenchStoreFactory {
    /// A store that has no earlier answers opens as for any other workload.
    func openForFirstAnswers(directory: URL) async throws -> BenchStore {
        try await open(directory: directory, durability: .always)
    }

    /// Opens the store kept in `directory` with the index of W3 to W7 (``benchIndexes``).
    func open(directory: URL, durability: BenchDurability) async throws -> BenchStore {
        try await open(directory: directory, durability: durability, indexes: benchIndexes)
    }
}

/// ``InMemoryDataSource`` behind the bench's factory: a smoke test of the bench itself. Reopening a directory in the
/// same process gives back the same store, so W4 to W6 see what W3 wrote; nothing touches the disk, so the write
/// figures measure the bench's own overhead rather than a store.
struct InMemoryBenchStoreFactory: BenchStoreFactory {
    private let registry = InMemoryStoreRegistry()

    var name: String { "InMemoryDataSource" }
    var persistsAcrossProcesses: Bool { false }

    func open(directory: URL, durability: BenchDurability, indexes: [IndexDefinition]) async throws -> BenchStore {
        var store = await registry.store(for: directory.standardizedFileURL.path)
        if indexes != benchIndexes {
            // The registered store keeps the indexes it was made with: a copy of its items gets the others.
            let copy = InMemoryDataSource(indexes: indexes)
            for table in [BenchmarkRecords.table] {
                try await copy.apply([.upsert(table: table, items: try await store.read(Query(table: table)).items)])
            }
            store = copy
        }
        return BenchStore(source: store, close: {}, explain: { [store] in try await store.explain($0) })
    }
}

/// The in-memory stores of one bench process, by directory.
private actor InMemoryStoreRegistry {
    private var stores: [String: InMemoryDataSource] = [:]

    func store(for path: String) -> InMemoryDataSource {
        if let store = stores[path] { return store }
        let store = InMemoryDataSource(indexes: benchIndexes)
        stores[path] = store
        return store
    }
}
