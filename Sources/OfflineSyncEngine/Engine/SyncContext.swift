public import OfflineSyncCore
public import OfflineSyncStore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The offline sync engine: local tables with an operation queue, pushed to and pulled from a ``SyncRemote``.
///
/// ```swift
/// let context = SyncContext(dataSource: InMemoryDataSource(), remote: HTTPRemote(baseURL: url))
/// let todos = context.table("TodoItem")
/// try await todos.insert(["text": "buy milk"])      // works offline: item + queued operation, atomically
/// try await context.push()                           // sends queued operations in order
/// try await todos.pull(queryId: "all-todos")         // incremental pull with a delta token
/// ```
///
/// ## Concurrency
/// - Push, pull and purge of one context, and of every other context on the same store, run one at a time (a FIFO
///   gate), in call order.
/// - Reads and local writes stay available during a push or pull. Each local write, and each bookkeeping step of a
///   push or pull, is one transaction of the store (``SyncContextDataSource/transaction(isolation:_:)``): it reads,
///   decides with a pure value (`OperationCollapse`, `PushOutcome`, `PullPager`) and applies its result atomically,
///   with no other writer in between.
/// - An operation being pushed is not collapsed into: a local write made meanwhile queues a new operation, and
///   the server's answer is then not stored over the newer local item.
/// - Cancelling the task running a push or pull stops it between operations or pages, with nothing half-applied.
///
/// The engine keeps its state in ordinary tables of the data source (`__operations`, `__errors`,
/// `__config`), so it continues after a restart from whatever the store holds. Several contexts on one store object
/// share it safely: their syncs run one at a time, each knows what the others have in flight, and each loads its
/// caches of the store again once another has written to it; observers see the writes of every context on it. (A
/// store that is a value type cannot be told apart from its copies: use one context per such store.) See
/// Docs/Architecture.md.
///
/// Progress of push and pull: ``progressUpdates(bufferingNewest:)``.
public actor SyncContext {
    let dataSource: any SyncContextDataSource
    /// The data source, when it decodes models where it holds its items (``ModelDecodingDataSource``): the typed
    /// tables' reads go through it.
    let modelDecodingSource: (any ModelDecodingDataSource)?
    let remote: any SyncRemote
    let conflictHandler: (any ConflictHandler)?
    /// The declared references between tables, which a push keeps in order (see ``TableRelation``).
    let relations: [TableRelation]
    let queue: OperationStore
    /// What the contexts on this store share: the sync gate, the operations in flight, the count of writes.
    let shared: SharedStoreState
    /// Serialises this context's transactions, each with what follows its commit (``transaction(_:)``).
    var transactionTurns = TransactionTurns()
    /// Serialises push, pull, purge, erase and migrate of every context on the store.
    var syncGate: SerialGate { shared.syncGate }
    /// What the context derives from the store: it changes only when one of its transactions commits.
    var mirror = StoreMirror()
    /// Whether a push found the remote slow (a network): later pushes keep several requests in flight from the start.
    var remoteIsSlow = false
    /// The largest page (`$top`) the remote accepts, learned from a pull whose page size it refused
    /// (``PageSizeRefusal``); nil while none was refused. Later pulls ask for no more.
    var largestPageAllowed: Int?
    /// The sync status and its streams.
    var statusPublisher = StatusPublisher()
    /// The count of committed local writes and its streams (what ``SyncScheduler`` follows).
    var localWrites = LocalWriteCount()
    /// The observed queries (``SyncTable/observe(_:)``), by key.
    var queryObservers: [Int: QueryObserver] = [:]
    var nextQueryObserverKey = 0
    private var progressStreams = StreamFanOut<SyncProgress>()
    /// The attachment queues registered with the context (``AttachmentQueue``).
    var attachmentQueues: [RegisteredAttachmentQueue] = []
    var diagnosticStreams = StreamFanOut<SyncDiagnostic>()

    /// Creates a context over a local store and a back end.
    /// - Parameters:
    ///   - dataSource: where items and the engine's own tables live.
    ///   - remote: the back end to push to and pull from.
    ///   - conflictHandler: consulted for 409/412 answers during push; nil means every conflict fails.
    public init(dataSource: any SyncContextDataSource, remote: any SyncRemote,
                conflictHandler: (any ConflictHandler)? = nil) {
        self.init(dataSource: dataSource, remote: remote, conflictHandler: conflictHandler, relations: [])
    }

    /// Creates a context that also keeps the declared references between tables in order when it pushes.
    /// - Parameters:
    ///   - dataSource: where items and the engine's own tables live.
    ///   - remote: the back end to push to and pull from.
    ///   - conflictHandler: consulted for 409/412 answers during push; nil means every conflict fails.
    ///   - relations: fields that hold ids of other items (see ``TableRelation``).
    public init(dataSource: any SyncContextDataSource, remote: any SyncRemote,
                conflictHandler: (any ConflictHandler)? = nil, relations: [TableRelation]) {
        self.dataSource = dataSource
        self.modelDecodingSource = dataSource as? any ModelDecodingDataSource
        self.remote = remote
        self.conflictHandler = conflictHandler
        self.relations = relations
        self.queue = OperationStore(dataSource: dataSource)
        self.shared = SharedStoreState.of(dataSource)
        shared.register(self)
    }

    deinit {
        progressStreams.finishAll()
        diagnosticStreams.finishAll()
        statusPublisher.finishAll()
        localWrites.finishAll()
        for observer in queryObservers.values { observer.continuation.finish() }
    }

    /// The sync table `name`. Every call on a table with an invalid or reserved (`__`) name throws
    /// ``SyncError``.
    public nonisolated func table(_ name: String) -> SyncTable {
        SyncTable(name: name, context: self)
    }

    /// A typed view of the sync table `name` over your own `Codable` model with a string `id`.
    ///
    /// ```swift
    /// struct TodoItem: Codable, Sendable { var id: String?; var text: String; var dueAt: Date? }
    /// let todos = context.table(TodoItem.self, name: "TodoItem")
    /// let saved = try await todos.insert(TodoItem(id: nil, text: "milk", dueAt: nil))
    /// ```
    public nonisolated func table<Model: Codable & Sendable>(_ type: Model.Type, name: String) -> TypedSyncTable<Model> {
        TypedSyncTable(table: table(name))
    }

    /// The queued operations of every table, in push order. For an insert or update `item` is the current
    /// local item; for a delete it is the snapshot given to `delete`.
    public func pendingOperations() async throws -> [TableOperation] {
        var operations = try await queue.operations()
        for index in operations.indices where operations[index].kind != .delete {
            operations[index].item = try await dataSource.read(table: operations[index].table, id: operations[index].itemId)
        }
        return operations
    }

    /// How many operations are queued, for one table or (nil) for all tables; a cheap count for a UI badge.
    public func pendingOperationCount(table: String? = nil) async throws -> Int {
        let filter = table.map { Field("table") == .string($0) }
        let query = Query(table: EngineTables.operations, filter: filter, top: 0, includeTotalCount: true)
        return try await dataSource.read(query).totalCount ?? 0
    }

    /// The operation errors recorded by the last push and not resolved yet (they survive a restart).
    public func operationErrors() async throws -> [TableOperationError] {
        try await OperationErrorStore.errors(in: dataSource)
    }

    /// A stream of progress reports of every push and pull of this context from now on.
    ///
    /// The stream ends when the consuming task stops iterating (or is cancelled). With `bufferingNewest`
    /// set, a slow consumer sees only the latest reports, which suits a progress bar.
    public func progressUpdates(bufferingNewest limit: Int? = nil) -> AsyncStream<SyncProgress> {
        let (stream, continuation, key) = progressStreams.addStream(bufferingNewest: limit)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeProgressStream(key) }
        }
        return stream
    }

    private func removeProgressStream(_ key: Int) {
        progressStreams.remove(key)
    }

    func report(_ progress: SyncProgress) {
        progressStreams.send(progress)
        followInStatus(progress)
    }

    /// Runs `body` while holding `gate`, releasing it on every path.
    func holding<T: Sendable>(_ gate: SerialGate, _ body: () async throws -> T) async throws -> T {
        await gate.lock()
        do {
            let value = try await body()
            await gate.unlock()
            return value
        } catch {
            await gate.unlock()
            throw error
        }
    }

    /// Throws unless `name` is a valid user table name.
    nonisolated static func validateTable(_ name: String) throws(SyncError) {
        if TableName.isReserved(name) { throw SyncError.reservedTable(name) }
        guard TableName.isValid(name) else { throw SyncError.invalidTableName(name) }
    }

    /// The index of queued operations; call inside a transaction.
    func loadedOperationIndex() async throws -> OperationIndex {
        if let index = mirror.operationIndex { return index }
        let index = OperationIndex(try await queue.operations())
        mirror.load(index: index)
        statusPublisher.update { $0.pendingOperations = index.count }
        return index
    }

    /// The latest queued operation of the item, or nil; call inside a transaction.
    func latestOperation(table: String, itemId: String) async throws -> TableOperation? {
        guard let id = try await loadedOperationIndex().ids(table: table, itemId: itemId).last else { return nil }
        if let operation = try await queue.operation(id: id) { return operation }
        // The store changed behind the index (another context on the same store): rebuild it.
        mirror.forgetOperationIndex()
        return try await queue.operations(table: table, itemId: itemId).last
    }

    /// The next operation id: one past the greatest ever handed out (survives restarts and drained queues).
    func allocateOperationId() async throws -> Int64 {
        if let next = mirror.nextOperationId { return next }
        let next = try await queue.highestOperationId() + 1
        mirror.load(nextOperationId: next)
        return next
    }
}
