import OfflineSync
import OfflineSyncTesting

/// Wraps an ``InMemoryRemote`` and, while faults are on, makes a seeded share of the calls fail: before the
/// server acts (a network error or a 503), or after it acted (the answer is lost, as a dropped connection).
actor FlakyRemote: SyncRemote {
    enum Fault: CaseIterable {
        case networkBeforeServer, unavailable, lostAnswer
    }

    let base: InMemoryRemote
    private var generator: SplitMix64
    private var faultsOn = true
    /// How many faults of each kind were injected.
    private(set) var injected: [Fault: Int] = [:]

    /// - Parameter oneIn: a call fails with a probability of one in `oneIn`.
    init(_ base: InMemoryRemote, seed: UInt64, oneIn: UInt64 = 5) {
        self.base = base
        self.generator = SplitMix64(seed: seed)
        self.oneIn = oneIn
    }

    private let oneIn: UInt64

    /// Ends the faults: every later call reaches the server and its answer comes back.
    func stopFaults() { faultsOn = false }

    private func nextFault(write: Bool) -> Fault? {
        guard faultsOn, generator.next() % oneIn == 0 else { return nil }
        let kinds: [Fault] = write ? Fault.allCases : [.networkBeforeServer, .unavailable]
        let fault = kinds[Int(generator.next() % UInt64(kinds.count))]
        injected[fault, default: 0] += 1
        return fault
    }

    private func run<T: Sendable>(write: Bool, _ call: () async throws -> T) async throws -> T {
        switch nextFault(write: write) {
        case .networkBeforeServer?: throw RemoteError.network("injected: no connection")
        case .unavailable?: throw RemoteError.server(status: 503, message: "injected: unavailable")
        case .lostAnswer?:
            _ = try await call()
            throw RemoteError.network("injected: the answer was lost")
        case nil: return try await call()
        }
    }

    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await run(write: true) { try await base.insert(item, table: table) }
    }

    func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await run(write: true) { try await base.update(item, table: table) }
    }

    func delete(id: String, version: String?, table: String) async throws {
        try await run(write: true) { try await base.delete(id: id, version: version, table: table) }
    }

    func read(_ query: Query) async throws -> RemotePage {
        try await run(write: false) { try await base.read(query) }
    }
}
