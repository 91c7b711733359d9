import Testing
import OfflineSync
import OfflineSyncTesting

/// The simulator starts an incremental pull's page at the first row at or after the `updatedAt` bound; the pages
/// must be exactly those of a full scan with `Filter.matches` (ties ordered by id, skip, top, total count).
struct InMemoryRemoteIncrementalReadTests {
    /// Rows with shared, distinct and missing or non-timestamp `updatedAt` values, some soft-deleted.
    static func seeded() async -> InMemoryRemote {
        let remote = InMemoryRemote(pageSize: 7)
        var rows: [JSONObject] = []
        for n in 0..<60 {
            let minute = (n * 7) % 20   // repeated instants: ties ordered by id
            var row: JSONObject = ["id": .string("r\(n % 3 == 0 ? "X" : "y")\(n)"), "n": .int(Int64(n)),
                                   "updatedAt": .string("2026-03-01T10:\(minute < 10 ? "0" : "")\(minute):00.000Z")]
            if n % 11 == 0 { row["deleted"] = true }
            rows.append(row)
        }
        rows.append(["id": "odd-date", "updatedAt": "not a date"])
        rows.append(["id": "number-date", "updatedAt": 12])
        await remote.seed(rows, table: "T")
        return remote
    }

    /// Every matching row in the reference order: a full scan.
    static func expected(_ remote: InMemoryRemote, _ query: Query) async -> [String] {
        let rows = await remote.items(table: "T", includeDeleted: query.includeDeleted)
        let all = Query(table: "T", filter: query.filter, orderBy: query.orderBy + [.ascending("id")]).evaluate(over: rows).items
        let skip = query.skip ?? 0
        return all.dropFirst(skip).prefix(min(query.top ?? Int.max, 7)).compactMap { $0["id"]?.stringValue }
    }

    @Test(arguments: [
        ("2026-03-01T10:00:00.000Z", 0), ("2026-03-01T10:07:00.000Z", 0), ("2026-03-01T10:07:00.000Z", 3),
        ("2026-03-01T10:19:00.000Z", 0), ("2026-03-01T11:00:00.000Z", 0), ("2026-03-01T10:05:30.000Z", 2),
    ])
    func incrementalPagesEqualAFullScan(bound: String, skip: Int) async throws {
        let remote = await Self.seeded()
        let filters: [Filter] = [
            Field("updatedAt") >= .string(bound),
            Field("updatedAt") > .string(bound),
            (Field("n") != 12) && (Field("updatedAt") >= .string(bound)),
            !(Field("n") == 3) && (Field("updatedAt") >= .string(bound)),
        ]
        for filter in filters {
            for includeDeleted in [false, true] {
                var query = Query(table: "T", filter: filter, orderBy: [.ascending("updatedAt")], skip: skip, top: 5)
                query.includeDeleted = includeDeleted
                query.includeTotalCount = true
                let page = try await remote.read(query)
                #expect(page.items.compactMap { $0["id"]?.stringValue } == (await Self.expected(remote, query)), "\(filter)")
                let everything = Query(table: "T", filter: filter, orderBy: [.ascending("updatedAt")])
                let rows = await remote.items(table: "T", includeDeleted: includeDeleted)
                #expect(page.totalCount == everything.evaluate(over: rows).items.count)
            }
        }
    }

    /// With every `updatedAt` in the server's own form (or null), the simulator sorts by instant and id bytes
    /// instead of by the general rules; its pages must still be those of a full scan: ties by id in byte order
    /// (upper case first, non-ASCII last), null first, soft-deleted rows only when asked for.
    @Test func pagesOfRowsWithServerTimestampsEqualAFullScan() async throws {
        let remote = InMemoryRemote(pageSize: 7)
        var rows: [JSONObject] = []
        for n in 0..<80 {
            let minute = (n * 7) % 20
            var row: JSONObject = ["id": .string(["a\(n)", "B\(n)", "é\(n)", "Z\(n)", "\(n)"][n % 5]), "n": .int(Int64(n)),
                                   "updatedAt": .string("2026-03-01T10:\(minute < 10 ? "0" : "")\(minute):00.000Z")]
            if n % 13 == 0 { row["updatedAt"] = .null }
            if n % 11 == 0 { row["deleted"] = true }
            rows.append(row)
        }
        await remote.seed(rows, table: "T")
        for includeDeleted in [false, true] {
            for filter in [nil, Field("updatedAt") >= "2026-03-01T10:07:00.000Z", Field("updatedAt") >= "2026-03-01T11:07:00+01:00",
                           Field("updatedAt") > "2026-03-01T10:07:00.000Z", Field("updatedAt") >= "2026-03-01T12:00:00.000Z"] as [Filter?] {
                for skip in stride(from: 0, to: 84, by: 7) {
                    var query = Query(table: "T", filter: filter, orderBy: [.ascending("updatedAt")], skip: skip, top: 7)
                    query.includeDeleted = includeDeleted
                    query.includeTotalCount = true
                    let page = try await remote.read(query)
                    #expect(page.items.compactMap { $0["id"]?.stringValue } == (await Self.expected(remote, query)),
                            "skip \(skip), \(String(describing: filter))")
                    let rows = await remote.items(table: "T", includeDeleted: includeDeleted)
                    #expect(page.totalCount == Query(table: "T", filter: filter).evaluate(over: rows).items.count)
                }
            }
        }
    }

    /// Pages after a pull's key (`updatedAt gt T or (updatedAt eq T and id gt 'x')`), alone or after a user filter,
    /// over rows in the server's form (ids in byte order, upper case first, non-ASCII last) and over rows the simulator
    /// sorts by the general rules: always those of a full scan.
    @Test(arguments: [true, false])
    func pagesAfterAKeyEqualAFullScan(serverForm: Bool) async throws {
        let remote = serverForm ? InMemoryRemote(pageSize: 7) : await Self.seeded()
        if serverForm {
            await remote.seed((0..<60).map { n in
                ["id": .string(["a\(n)", "B\(n)", "é\(n)", "Z\(n)"][n % 4]),
                 "updatedAt": .string("2026-03-01T10:\(n % 3 == 0 ? "00" : "07"):00.000Z")]
            }, table: "T")
        }
        for (instant, id) in [("2026-03-01T10:00:00.000Z", "B12"), ("2026-03-01T10:07:00.000Z", "Z7"),
                              ("2026-03-01T10:07:00.000Z", ""), ("2026-03-01T10:07:00.000Z", "ry52"), ("2026-03-01T09:00:00.000Z", "x")] {
            let key = Field("updatedAt") > .string(instant)
                || (Field("updatedAt") == .string(instant) && Field("id") > .string(id))
            for filter in [key, (Field("n") != 12) && key] {
                let query = Query(table: "T", filter: filter, orderBy: [.ascending("updatedAt"), .ascending("id")], top: 7,
                                  includeTotalCount: true)
                let page = try await remote.read(query)
                #expect(page.items.compactMap { $0["id"]?.stringValue } == (await Self.expected(remote, query)), "\(filter)")
                let rows = await remote.items(table: "T")
                #expect(page.totalCount == Query(table: "T", filter: filter).evaluate(over: rows).items.count)
            }
        }
    }

    @Test func rowsChangedBetweenPagesAreSeen() async throws {
        let remote = await Self.seeded()
        let query = Query(table: "T", filter: Field("updatedAt") >= "2026-03-01T10:19:00.000Z", orderBy: [.ascending("updatedAt")], top: 50)
        let before = try await remote.read(query).items.count
        await remote.serverUpdate(id: "ry1", table: "T", fields: ["n": 100])   // stamped now: after every seeded row
        let after = try await remote.read(query).items
        #expect(after.count == before + 1)
        #expect(after.last?["id"] == "ry1")
    }
}
