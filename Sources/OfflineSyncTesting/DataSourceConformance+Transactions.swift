import OfflineSyncCore
import OfflineSyncStore

extension DataSourceConformance {
    static let transactionChecks: [Check] = [
        Check("a transaction applies what it staged, and its value comes back") { store, expect in
            try await store.apply([.upsert(table: "T", items: [["id": "1", "n": 1]])])
            let seen = try await store.transaction { transaction in
                let item = try await transaction.read(table: "T", id: "1")
                transaction.stage([.upsert(table: "T", items: [["id": "2", "n": 2]]), .delete(table: "T", ids: ["1"])])
                return item?["n"]?.intValue
            }
            expect.equal(seen, 1, "the value the body read and returned")
            expect.equal(try await store.ids(Query(table: "T")), ["2"], "the staged changes, applied")
        },
        Check("a transaction that throws, or stages an invalid change, applies nothing") { store, expect in
            try await store.apply([.upsert(table: "T", items: [["id": "1", "n": 1]])])
            struct Refusal: Error {}
            await expect.throwsError("a body that throws") {
                try await store.transaction { transaction in
                    transaction.stage([.delete(table: "T", ids: ["1"])])
                    throw Refusal()
                }
            }
            await expect.throwsError("a transaction staging an item without an id") {
                try await store.transaction { transaction in
                    transaction.stage([.delete(table: "T", ids: ["1"]), .upsert(table: "T", items: [["n": 2]])])
                }
            }
            expect.equal(try await store.read(table: "T", id: "1"), ["id": "1", "n": 1], "the item, untouched")
            try await store.transaction { $0.stage([.upsert(table: "T", items: [["id": "1", "n": 3]])]) }
            expect.equal(try await store.read(table: "T", id: "1")?["n"], 3, "a later transaction still runs")
        },
        Check("concurrent read-then-write transactions lose no update") { store, expect in
            try await store.apply([.upsert(table: "T", items: [["id": "counter", "n": 0]])])
            let writers = 24
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<writers {
                    group.addTask {
                        try await store.transaction { transaction in
                            let n = try await transaction.read(table: "T", id: "counter")?["n"]?.intValue ?? -1000
                            for _ in 0..<3 { await Task.yield() }
                            transaction.stage([.upsert(table: "T", items: [["id": "counter", "n": .int(n + 1)]])])
                        }
                    }
                }
                try await group.waitForAll()
            }
            expect.equal(try await store.read(table: "T", id: "counter")?["n"], .int(Int64(writers)),
                         "the counter after \(writers) increments in transactions")
        },
        Check("a transaction reads every change applied before it began") { store, expect in
            for n in 0..<20 {
                try await store.apply([.upsert(table: "T", items: [["id": .string("\(n)")]])])
                let count = try await store.transaction { try await $0.read(Query(table: "T", top: 0, includeTotalCount: true)).totalCount }
                expect.equal(count, n + 1, "items a transaction sees after \(n + 1) applies")
            }
        },
    ]
}
