import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync
import OfflineSyncTesting

/// The stores every engine test runs against. To add a store, add a case and its branch in `makeStore()`:
/// the parameterised tests (`@Test(arguments: StoreKind.allCases)`) then cover it too.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case inMemory
    /// A `JournalDataSource` in a fresh temporary directory; reopening closes it and opens the directory again.
    case journal

    var testDescription: String { rawValue }

    func makeStore() async throws -> TestStore {
        switch self {
        case .inMemory:
            let store = InMemoryDataSource()
            return TestStore(dataSource: store, reopen: { current in current }, lease: nil)
        case .journal:
            let lease = DirectoryLease(TemporaryDirectory())
            let directory = lease.directory.url
            let store = try await JournalDataSource(directory: directory)
            return TestStore(dataSource: store, reopen: { current in
                try await (current as? JournalDataSource)?.close()
                return try await JournalDataSource(directory: withExtendedLifetime(lease) { directory })
            }, lease: lease)
        }
    }
}

/// A store for one test, and how to open it again as a restarted process would (same data, fresh handle).
struct TestStore: Sendable {
    var dataSource: any SyncContextDataSource
    /// Closes the given store and returns it reopened, as after a restart (the in-memory store returns itself).
    var reopen: @Sendable (any SyncContextDataSource) async throws -> any SyncContextDataSource
    /// The store's directory, removed when the last copy of this store description is gone.
    var lease: DirectoryLease?
}

/// Removes a test's temporary directory when the last reference to it goes away.
final class DirectoryLease: Sendable {
    let directory: TemporaryDirectory
    init(_ directory: TemporaryDirectory) { self.directory = directory }
    deinit { directory.remove() }
}

/// A context with its store and a fresh InMemoryRemote.
struct EngineFixture {
    var store: TestStore
    var remote: InMemoryRemote
    /// The remote the context talks to (the InMemoryRemote itself, or a wrapper around it).
    var contextRemote: any SyncRemote
    var context: SyncContext

    init(_ kind: StoreKind, pageSize: Int = 50, remote: InMemoryRemote? = nil, wrap: ((InMemoryRemote) -> any SyncRemote)? = nil,
         handler: (any ConflictHandler)? = nil) async throws {
        store = try await kind.makeStore()
        let remote = remote ?? InMemoryRemote(pageSize: pageSize)
        self.remote = remote
        contextRemote = wrap?(remote) ?? remote
        context = SyncContext(dataSource: store.dataSource, remote: contextRemote, conflictHandler: handler)
    }

    var todo: SyncTable { context.table("TodoItem") }

    /// Reopens the store and replaces the context with a new one over it, as after a crash or restart:
    /// nothing in memory survives (in-flight marks, caches), only what the store holds.
    mutating func restart(handler: (any ConflictHandler)? = nil) async throws {
        store.dataSource = try await store.reopen(store.dataSource)
        context = SyncContext(dataSource: store.dataSource, remote: contextRemote, conflictHandler: handler)
    }

    func operations() async throws -> [TableOperation] { try await context.pendingOperations() }

    func rows(_ table: String) async throws -> [JSONObject] {
        try await store.dataSource.read(Query(table: table, orderBy: [.ascending("id")])).items
    }
}

extension EngineFixture {
    /// A fixture whose context reaches `remote` through a `SuspendingRemote`, returned with it so the test can park
    /// a call; `fixture.remote` is `remote` itself, unwrapped.
    static func suspended(_ kind: StoreKind, remote: InMemoryRemote = InMemoryRemote(),
                          whenCancelled: SuspendingRemote.WhenCancelled = .answers) async throws -> (EngineFixture, SuspendingRemote) {
        let suspending = SuspendingRemote(remote, whenCancelled: whenCancelled)
        let fixture = try await EngineFixture(kind, remote: remote, wrap: { _ in suspending })
        return (fixture, suspending)
    }
}

extension SuspendingRemote {
    /// Starts `operation` and returns its task once the operation's armed call is parked here.
    nonisolated func parked<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value)
        async -> Task<Value, any Error> {
        let task = Task { try await operation() }
        await waitUntilSuspended()
        return task
    }

    /// Starts `operation`, waits until its armed call parks here, cancels it and lets the call go on; returns the
    /// operation's task for the test to await.
    nonisolated func cancelWhileParked<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value)
        async -> Task<Value, any Error> {
        let task = await parked(operation)
        task.cancel()
        await resume()
        return task
    }
}

/// Expects `push` to end with a `PushError` whose reason is `.cancelled` and that carries no operation errors.
func expectCancelledWithoutErrors(_ push: Task<PushResult, any Error>,
                                  sourceLocation: SourceLocation = #_sourceLocation) async {
    let error = await #expect(throws: PushError.self, sourceLocation: sourceLocation) { try await push.value }
    #expect(error?.reason == .cancelled, sourceLocation: sourceLocation)
    #expect(error?.errors.isEmpty == true, sourceLocation: sourceLocation)
}

/// A conflict handler that always answers the same, and counts its calls.
actor FixedResolution: ConflictHandler {
    let resolution: ConflictResolution
    private(set) var conflicts: [SyncConflict] = []
    init(_ resolution: ConflictResolution) { self.resolution = resolution }
    func resolve(_ conflict: SyncConflict) async throws -> ConflictResolution {
        conflicts.append(conflict)
        return resolution
    }
}

/// A data source whose `apply`, or reads of one table, fail on demand, to check that nothing is half-written.
actor FailingDataSource: SyncContextDataSource {
    struct InjectedFailure: Error {}
    let base: InMemoryDataSource
    var failApplies = false
    var failingReadTable: String?
    /// Every `apply` call, including the ones that threw.
    private(set) var applyCalls = 0
    init(base: InMemoryDataSource = InMemoryDataSource()) { self.base = base }
    func setFailing(_ failing: Bool) { failApplies = failing }
    /// The `apply` calls (counted from 1, as ``applyCalls`` counts them) that throw.
    var failingApplyNumbers: Set<Int> = []
    func setFailingApplies(numbered numbers: Set<Int>) { failingApplyNumbers = numbers }
    func setFailingReads(of table: String?) { failingReadTable = table }
    func read(table: String, id: String) async throws -> JSONObject? {
        if table == failingReadTable { throw InjectedFailure() }
        return try await base.read(table: table, id: id)
    }
    func read(_ query: Query) async throws -> QueryResult {
        if query.table == failingReadTable { throw InjectedFailure() }
        return try await base.read(query)
    }
    func apply(_ changes: [StoreChange]) async throws {
        applyCalls += 1
        if failApplies || failingApplyNumbers.contains(applyCalls) { throw InjectedFailure() }
        try await base.apply(changes)
    }
}

/// A remote that answers reads with scripted pages (then empty pages) and logs the queries, for server
/// answers the simulator never gives (null `deleted`, records without id, more rows than `top`).
actor CannedRemote: SyncRemote {
    private var pages: [[JSONObject]]
    private(set) var queries: [Query] = []
    init(pages: [[JSONObject]]) { self.pages = pages }
    func insert(_ item: JSONObject, table: String) async throws -> JSONObject { item }
    func update(_ item: JSONObject, table: String) async throws -> JSONObject { item }
    func delete(id: String, version: String?, table: String) async throws {}
    func read(_ query: Query) async throws -> RemotePage {
        queries.append(query)
        return RemotePage(items: pages.isEmpty ? [] : pages.removeFirst())
    }
}

extension PushSettings {
    /// One operation in flight: the order and stopping points of a one-at-a-time push, which tests spell out.
    static let oneAtATime = PushSettings(maximumConcurrentRequests: 1)
}

extension PullSettings {
    /// These settings with one request in flight: the request sequence of a one-at-a-time pull, which tests spell out.
    func oneAtATime() -> PullSettings {
        var settings = self
        settings.maximumConcurrentRequests = 1
        return settings
    }
}

extension Filter {
    /// The key an incremental pull's request asks after (``PullKey/filter``), found at the end of the request's
    /// filter (after the user's own, when it has one); nil when the filter holds none.
    var pullKey: PullKey? {
        switch self {
        case .comparison(Field("updatedAt"), .greaterThanOrEqual, .string(let instant)):
            return Timestamp.milliseconds(from: instant).map { PullKey(updatedAt: $0, id: nil) }
        case .or(.comparison(Field("updatedAt"), .greaterThan, .string(let instant)),
                 .and(.comparison(Field("updatedAt"), .equal, .string(let same)), .comparison(Field("id"), .greaterThan, .string(let id)))):
            guard instant == same else { return nil }
            return Timestamp.milliseconds(from: instant).map { PullKey(updatedAt: $0, id: id) }
        case .and(_, let rhs):
            return rhs.pullKey
        default:
            return nil
        }
    }
}
