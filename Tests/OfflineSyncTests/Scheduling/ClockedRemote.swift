import OfflineSync

/// A remote whose every request takes `step` on a ``TestClock``: it serves the request from `base`, then moves the
/// clock on. A budgeted run against it stops at the same request every time, with no real waiting.
struct ClockedRemote: SyncRemote {
    let base: any SyncRemote
    let clock: TestClock
    var step: Duration = .seconds(1)
    /// How many records the pages read through it held in all.
    let servedRecords = LockedValue(0)

    private func taking<T>(_ request: () async throws -> T) async rethrows -> T {
        defer { clock.advance(by: step) }
        return try await request()
    }

    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await taking { try await base.insert(item, table: table) }
    }

    func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await taking { try await base.update(item, table: table) }
    }

    func delete(id: String, version: String?, table: String) async throws {
        try await taking { try await base.delete(id: id, version: version, table: table) }
    }

    func read(_ query: Query) async throws -> RemotePage {
        let page = try await taking { try await base.read(query) }
        servedRecords.withLock { $0 += page.items.count }
        return page
    }
}
