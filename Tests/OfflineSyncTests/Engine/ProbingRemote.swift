import Foundation
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// A back end in front of an ``InMemoryRemote`` for tests of sync with several requests in flight: it counts the
/// requests in flight, may refuse writes that break a reference (as a server with foreign keys does), may add a
/// `nextLink` to full pages (v3 paging), and may change a row on the server before each read after the first.
actor ProbingRemote: SyncRemote {
    let base: InMemoryRemote
    /// Field → table: a write whose field names an id the table does not hold is refused with 400, and a delete of
    /// an item still named by such a field is refused with 409.
    let references: [String: String]
    /// Whether a page as full as the server allows carries a `nextLink`.
    let nextLinks: Bool
    /// The write (counted from 1) that fails with the error instead of reaching the server, when set.
    private var failingWrite: (number: Int, error: RemoteError)?
    private var writes = 0
    private(set) var inFlight = 0
    private(set) var maximumInFlight = 0
    private var reads = 0
    /// Run before every read after the first, on the server's data: rows changing while a pull pages.
    private var beforeRead: (@Sendable (InMemoryRemote) async -> Void)?

    init(_ base: InMemoryRemote, references: [String: String] = [:], nextLinks: Bool = false) {
        self.base = base
        self.references = references
        self.nextLinks = nextLinks
    }

    /// Makes write number `number` (counted from 1) fail with `error` without reaching the server.
    func failWrite(number: Int, with error: RemoteError) {
        failingWrite = (number, error)
    }

    /// The writes (counted from 1) that take this long before reaching the server: a request a busy machine delays.
    private var delayedWrites: [Int: Duration] = [:]

    /// Makes write number `number` (counted from 1) wait `delay` before it reaches the server.
    func delayWrite(number: Int, by delay: Duration) {
        delayedWrites[number] = delay
    }

    /// Throws the planned failure when this write is the one; waits when it is a delayed one.
    private func countWrite() async throws {
        writes += 1
        if let delay = delayedWrites[writes] { try await Task.sleep(for: delay) }
        if let failingWrite, failingWrite.number == writes { throw failingWrite.error }
    }

    /// Sets what happens to the server's rows before each read after the first.
    func changeRowsBeforeEachRead(_ change: @escaping @Sendable (InMemoryRemote) async -> Void) {
        beforeRead = change
    }

    func insert(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await tracked {
            try await countWrite()
            try await checkReferences(of: item)
            return try await base.insert(item, table: table)
        }
    }

    func update(_ item: JSONObject, table: String) async throws -> JSONObject {
        try await tracked {
            try await checkReferences(of: item)
            return try await base.update(item, table: table)
        }
    }

    func delete(id: String, version: String?, table: String) async throws {
        try await tracked {
            for (field, referenced) in references where referenced == table {
                for referring in Self.referringTables {
                    let holders = await base.items(table: referring).filter { $0[field]?.stringValue?.lowercased() == id.lowercased() }
                    if !holders.isEmpty { throw RemoteError.server(status: 409, message: "\(table) \(id) is still referred to") }
                }
            }
            try await base.delete(id: id, version: version, table: table)
        }
    }

    func read(_ query: Query) async throws -> RemotePage {
        try await tracked {
            reads += 1
            if reads > 1, let beforeRead { await beforeRead(base) }
            var page = try await base.read(query)
            let pageSize = await base.pageSize
            if nextLinks, page.items.count == pageSize {
                page.nextLink = URL(string: "https://example.invalid/tables/\(query.table)?$skip=\((query.skip ?? 0) + pageSize)")
            }
            return page
        }
    }

    /// The tables whose rows may refer to others: the tests keep referring items in "Child" and "TodoItem".
    private static let referringTables = ["Child", "TodoItem"]

    private func checkReferences(of item: JSONObject) async throws {
        for (field, table) in references {
            guard let id = item[field]?.stringValue else { continue }
            let row = await base.item(id: id, table: table)
            if row == nil || row?["deleted"]?.boolValue == true {
                throw RemoteError.server(status: 400, message: "\(field) names \(table) \(id), which does not exist")
            }
        }
    }

    private func tracked<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        inFlight += 1
        maximumInFlight = max(maximumInFlight, inFlight)
        defer { inFlight -= 1 }
        return try await body()
    }
}
