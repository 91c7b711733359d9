import OfflineSync

/// A remote whose network can be switched off, so the demo can work offline against any back end.
actor SwitchableRemote: SyncRemote {
    /// The back end behind the switch.
    let backEnd: any SyncRemote
    private var reachable: Bool

    init(_ backEnd: any SyncRemote, reachable: Bool) {
        self.backEnd = backEnd
        self.reachable = reachable
    }

    /// Turns the network on or off.
    func setReachable(_ reachable: Bool) { self.reachable = reachable }

    private func checkReachable() throws {
        if !reachable { throw RemoteError.network("the network is switched off (airplane mode)") }
    }

    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try checkReachable()
        return try await backEnd.insert(item, table: table)
    }

    func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try checkReachable()
        return try await backEnd.update(item, table: table)
    }

    func delete(id: String, version: String?, table: String) async throws {
        try checkReachable()
        try await backEnd.delete(id: id, version: version, table: table)
    }

    func read(_ query: Query) async throws -> RemotePage {
        try checkReachable()
        return try await backEnd.read(query)
    }
}
