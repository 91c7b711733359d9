import Foundation
import OfflineSync

/// ``JournalDataSource`` behind the bench's factory: the store the workload definition measures.
struct JournalBenchStoreFactory: BenchStoreFactory {
    var name: String { cipher == nil ? "JournalDataSource" : "JournalDataSource (encrypted)" }
    var persistsAcrossProcesses: Bool { true }
    /// Where the stores write and sync.
    var writeThread = JournalWriteThread.shared
    /// The cipher of encrypted stores (``BenchOptions/Suite/encryption``); nil for plaintext ones.
    var cipher: (any StoreCipher)?

    func open(directory: URL, durability: BenchDurability, indexes: [IndexDefinition]) async throws -> BenchStore {
        var options = JournalOptions(durability: durability == .always ? .always : .grouped)
        options.indexes = indexes
        options.writeThread = writeThread
        options.cipher = cipher
        let store = try await JournalDataSource(directory: directory, options: options)
        return BenchStore(source: store, close: { try await store.close() }, explain: { try await store.explain($0) })
    }
}
