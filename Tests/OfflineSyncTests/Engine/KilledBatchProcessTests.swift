import Foundation
import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// `SyncContext.write` batches in a child process killed with SIGKILL at random moments: each batch is in the store
/// whole, with its queue entries, or not at all, and every acknowledged batch is there.
struct KilledBatchProcessTests {
    @Test func aKilledWriterLeavesEveryBatchWholeOrAbsent() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var generator = SplitMix64(seed: 5)
        var acknowledged: Int64 = 0
        for round in 0..<12 {
            let child = try CrashChild(["batch", directory.storePath])
            let wanted = Int.random(in: 1...30, using: &generator)
            let firstLines = await child.readLines { $0.count >= wanted }
            try await Task.sleep(for: .microseconds(Int.random(in: 0...3000, using: &generator)))
            await child.kill()
            let rest = await child.readLines { _ in false }
            let lines = firstLines + rest
            #expect(!lines.contains { $0.hasPrefix("error") }, "round \(round): \(lines.filter { $0.hasPrefix("error") })")
            acknowledged = max(acknowledged, lines.compactMap { $0.hasPrefix("ack ") ? Int64($0.dropFirst(4)) : nil }.max() ?? 0)

            let store = try await JournalDataSource(directory: directory.store)
            let context = SyncContext(dataSource: store, remote: CannedRemote(pages: []))
            let last = try await context.table("C").read(id: "last")?["n"]?.intValue ?? 0
            #expect(last >= acknowledged, "round \(round): acknowledged \(acknowledged), the store holds up to \(last)")
            let batches: Set<Int64> = last > 0 ? Set(1...last) : []
            for table in ["A", "B"] {
                let items = try await context.table(table).read(Query(table: table)).items.compactMap { $0["n"]?.intValue }
                #expect(Set(items) == batches && items.count == batches.count, "round \(round): table \(table)")
            }
            let operations = try await context.pendingOperations()
            #expect(operations.filter { $0.table == "A" }.count == Int(last), "round \(round): queue entries of A")
            #expect(operations.filter { $0.table == "C" }.count == (last > 0 ? 1 : 0), "round \(round): queue entry of C")
            try await store.close()
        }
        #expect(acknowledged > 0)
    }
}
