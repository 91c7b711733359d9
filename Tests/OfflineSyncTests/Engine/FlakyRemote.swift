import OfflineSync
import OfflineSyncTesting

/// Wraps an ``InMemoryRemote`` and, while faults are on, makes a seeded share of the calls fail: before the
/// server acts (a network error, a 503, a 401 as from an expired token, or the start of an offline period in which
/// the next few calls fail too), or after it acted (the answer is lost, as a dropped connection).
actor FlakyRemote: SyncRemote {
    enum Fault: CaseIterable {
        case networkBeforeServer, unavailable, lostAnswer, unauthorized, offline
    }

    let base: InMemoryRemote
    private var generator: SplitMix64
    private var faultsOn = true
    /// How many faults of each kind were injected.
    private(set) var injected: [Fault: Int] = [:]
    /// Calls still to fail in the current offline period.
    private var offlineCallsLeft = 0
    private var faults = 0

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
        guard faultsOn else { return nil }
        if offlineCallsLeft > 0 {
            offlineCallsLeft -= 1
            return .offline
        }
        guard generator.next() % oneIn == 0 else { return nil }
        // The kinds take turns (a lost answer only where the server acts), so every kind shows up in a short run.
        faults += 1
        var fault = Fault.allCases[faults % Fault.allCases.count]
        if fault == .lostAnswer, !write { fault = .networkBeforeServer }
        injected[fault, default: 0] += 1
        if fault == .offline { offlineCallsLeft = 2 + Int(generator.next() % 6) }
        return fault
    }

    private func run<T: Sendable>(write: Bool, _ call: () async throws -> T) async throws -> T {
        switch nextFault(write: write) {
        case .networkBeforeServer?: throw RemoteError.network("injected: no connection")
        case .unavailable?: throw RemoteError.server(status: 503, message: "injected: unavailable")
        case .unauthorized?: throw RemoteError.unauthorized
        case .offline?: throw RemoteError.network("injected: offline")
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
