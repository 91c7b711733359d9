import OfflineSyncCore
import OfflineSyncStore

extension DataSourceConformance {
    static let itemChecks: [Check] = [
        Check("reading a missing id or an unwritten table gives nil or nothing") { store, expect in
            expect.that(try await store.read(table: "T", id: "missing") == nil, "read of a missing id is not nil")
            let result = try await store.read(Query(table: "Never", includeTotalCount: true))
            expect.equal(result.items.count, 0, "items of an unwritten table")
            expect.equal(result.totalCount, 0, "total count of an unwritten table")
        },
        Check("upserted items read back exactly") { store, expect in
            let item: JSONObject = [
                "id": "A1", "text": "héllo \"wörld\" 😀\n", "n": .int(Int64.max), "d": 0.1, "b": true, "nil": nil,
                "createdAt": "2026-01-01T00:00:00.000Z", "version": "AAAAAAAACCw=", "deleted": false,
                "nested": ["list": [1, 2.5, "x", nil, ["k": "v"]]],
            ]
            try await store.apply([.upsert(table: "T", items: [item, ["id": "A2"]])])
            expect.equal(try await store.read(table: "T", id: "A1"), item, "item A1")
            expect.equal(try await store.read(table: "T", id: "A2"), ["id": "A2"], "item A2")
            expect.equal(try await store.ids(Query(table: "T")).sorted(), ["A1", "A2"], "query returns every item")
        },
        Check("upsert replaces the whole item") { store, expect in
            try await store.apply([.upsert(table: "T", items: [["id": "1", "a": 1, "b": 2]])])
            try await store.apply([.upsert(table: "T", items: [["id": "1", "a": 3]])])
            expect.equal(try await store.read(table: "T", id: "1"), ["id": "1", "a": 3], "replaced item")
        },
        Check("ids match case-insensitively and keep the casing last written") { store, expect in
            try await store.apply([.upsert(table: "T", items: [["id": "itemid", "text": "old"]])])
            expect.equal(try await store.read(table: "T", id: "ITEMID")?["text"], "old", "read with other casing")
            try await store.apply([.upsert(table: "T", items: [["id": "ITEMID", "text": "new"]])])
            let all = try await store.read(Query(table: "T"))
            expect.equal(all.items, [["id": "ITEMID", "text": "new"]], "one row, new casing")
            try await store.apply([.delete(table: "T", ids: ["itemid"])])
            expect.equal(try await store.read(Query(table: "T")).items.count, 0, "delete with other casing")
        },
        Check("tables are independent") { store, expect in
            try await store.apply([
                .upsert(table: "A", items: [["id": "1", "t": "a"]]),
                .upsert(table: "B", items: [["id": "1", "t": "b"]]),
                .upsert(table: "__operations", items: [["id": "1", "t": "op"]]),
            ])
            try await store.apply([.deleteAll(table: "A", matching: nil)])
            expect.that(try await store.read(table: "A", id: "1") == nil, "table A was not emptied")
            expect.equal(try await store.read(table: "B", id: "1")?["t"], "b", "table B item")
            expect.equal(try await store.read(table: "__operations", id: "1")?["t"], "op", "reserved table item")
        },
        Check("delete by one id, by many ids, and by unknown ids") { store, expect in
            try await store.apply([.upsert(table: "T", items: (1...5).map { ["id": .string("\($0)")] })])
            try await store.apply([.delete(table: "T", ids: ["1"])])
            expect.equal(try await store.ids(Query(table: "T")).sorted(), ["2", "3", "4", "5"], "after deleting one")
            try await store.apply([.delete(table: "T", ids: ["2", "3", "unknown"]), .delete(table: "Other", ids: ["x"])])
            expect.equal(try await store.ids(Query(table: "T")).sorted(), ["4", "5"], "after deleting many")
        },
        Check("deleteAll removes every item or only the matching ones") { store, expect in
            try await store.apply([.upsert(table: "T", items: (1...6).map { ["id": .string("\($0)"), "n": .int(Int64($0))] })])
            try await store.apply([.deleteAll(table: "T", matching: Field("n") > 4)])
            expect.equal(try await store.ids(Query(table: "T")).sorted(), ["1", "2", "3", "4"], "after deleteAll(n > 4)")
            try await store.apply([.deleteAll(table: "T", matching: nil)])
            expect.equal(try await store.ids(Query(table: "T")), [], "after deleteAll(nil)")
        },
        Check("changes in one batch apply in order") { store, expect in
            try await store.apply([
                .upsert(table: "T", items: [["id": "a"], ["id": "b"]]),
                .delete(table: "T", ids: ["a"]),
                .upsert(table: "T", items: [["id": "B", "v": 2]]),
            ])
            expect.equal(try await store.read(Query(table: "T")).items, [["id": "B", "v": 2]], "result of the batch")
            try await store.apply([])
        },
        Check("a batch with one invalid change applies nothing") { store, expect in
            try await store.apply([.upsert(table: "T", items: [["id": "keep", "v": 1]])])
            let valid: StoreChange = .upsert(table: "T", items: [["id": "new"]])
            let invalidBatches: [(String, [StoreChange])] = [
                ("an item without id", [valid, .upsert(table: "T", items: [["text": "no id"]])]),
                ("a numeric id", [valid, .upsert(table: "T", items: [["id": 5]])]),
                ("a null id", [valid, .upsert(table: "T", items: [["id": nil]])]),
                ("an id with a slash", [valid, .upsert(table: "T", items: [["id": "a/b"]])]),
                ("an id of 256 characters", [valid, .upsert(table: "T", items: [["id": .string(String(repeating: "x", count: 256))]])]),
                ("an invalid table name", [valid, .upsert(table: "bad table", items: [["id": "x"]])]),
                ("an empty table name", [valid, .deleteAll(table: "", matching: nil)]),
                ("a delete of an invalid id", [valid, .delete(table: "T", ids: [".."])]),
                ("a NaN", [valid, .upsert(table: "T", items: [["id": "z", "n": .double(.nan)]])]),
                ("an invalid change before a delete", [.deleteAll(table: "T", matching: nil), .upsert(table: "T", items: [["id": "?"]])]),
            ]
            for (what, batch) in invalidBatches {
                await expect.throwsError("a batch with \(what)") { try await store.apply(batch) }
            }
            expect.equal(try await store.read(Query(table: "T")).items, [["id": "keep", "v": 1]], "store after refused batches")
        },
        Check("a batch applied deferring durability is atomic and read back like any other") { store, expect in
            try await store.applyDeferringDurability([.upsert(table: "T", items: [["id": "a", "v": 1], ["id": "b"]]),
                                                      .delete(table: "T", ids: ["b"])])
            expect.equal(try await store.read(Query(table: "T")).items, [["id": "a", "v": 1]], "store after the batch")
            await expect.throwsError("a deferred batch with an invalid change") {
                try await store.applyDeferringDurability([.upsert(table: "T", items: [["id": "c"]]),
                                                          .upsert(table: "T", items: [["id": 5]])])
            }
            expect.equal(try await store.read(Query(table: "T")).items, [["id": "a", "v": 1]], "store after the refused batch")
        },
        Check("reads of an invalid table name throw") { store, expect in
            await expect.throwsError("read(table:id:) of \"a/b\"") { _ = try await store.read(table: "a/b", id: "1") }
            await expect.throwsError("read(query) of \"a b\"") { _ = try await store.read(Query(table: "a b")) }
        },
        Check("tableNames lists the tables holding items, when the store lists them") { store, expect in
            try await store.apply([.upsert(table: "A", items: [["id": "1"]]), .upsert(table: "__config", items: [["id": "c"]]),
                                   .upsert(table: "Emptied", items: [["id": "1"]]), .delete(table: "Emptied", ids: ["1"])])
            let names: [String]
            do {
                names = try await store.tableNames()
            } catch let error as DataSourceError where error.code == .unsupported {
                return   // optional: such a store cannot be erased by SyncContext.erase(), which says so
            }
            expect.that(names.contains("A") && names.contains("__config"), "table names \(names) lack A or __config")
            expect.that(!names.contains("Emptied"), "table names \(names) list an emptied table")
            try await store.discardDeletedData()
            expect.equal(try await store.read(table: "A", id: "1"), ["id": "1"], "item after discardDeletedData")
        },
    ]
}
