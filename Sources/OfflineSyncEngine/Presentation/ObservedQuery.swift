public import OfflineSyncCore
import OfflineSyncStore
public import Observation

/// A query's latest result and the context's sync status as `@Observable` properties, for apps that bind to them
/// (SwiftUI, or anything built on the Observation framework); it does not depend on SwiftUI.
///
/// ```swift
/// @State var todos = ObservedQuery(todoTable, Query(table: "TodoItem", filter: Field("complete") == false))
/// var body: some View {
///     List(todos.elements, id: \.id) { Text($0.text) }
///         .overlay { if todos.status.isPulling { ProgressView() } }
///         .task { await todos.run() }      // follows the query and the status while the view is shown
/// }
/// ```
@MainActor
@Observable
public final class ObservedQuery<Element: Sendable> {
    /// The query's latest elements.
    public private(set) var elements: [Element] = []
    /// The context's latest sync status.
    public private(set) var status = SyncStatus()
    /// Whether the first result has arrived.
    public private(set) var hasResult = false
    /// The error that ended the observation, if one did (``run()`` can be called again).
    public private(set) var error: (any Error)?

    @ObservationIgnored private let results: @Sendable () -> AsyncThrowingStream<[Element], any Error>
    @ObservationIgnored private let statuses: @Sendable () -> AsyncStream<SyncStatus>

    private init(results: @escaping @Sendable () -> AsyncThrowingStream<[Element], any Error>,
                 statuses: @escaping @Sendable () -> AsyncStream<SyncStatus>) {
        self.results = results
        self.statuses = statuses
    }

    /// Follows the query and the status until the calling task is cancelled (or the query's stream fails).
    public func run() async {
        error = nil
        let results = results(), statuses = statuses()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [weak self] in
                do {
                    for try await elements in results { await self?.show(elements) }
                } catch {
                    await self?.fail(error)
                }
            }
            group.addTask { [weak self] in
                for await status in statuses { await self?.show(status) }
            }
            // The query's stream ends only by an error or cancellation; the status stream follows it.
            await group.next()
            group.cancelAll()
        }
    }

    private func show(_ elements: [Element]) {
        self.elements = elements
        hasResult = true
    }

    private func show(_ status: SyncStatus) {
        self.status = status
    }

    private func fail(_ error: any Error) {
        self.error = error
    }
}

extension ObservedQuery where Element == JSONObject {
    /// Follows `query` of `table` (its items) and its context's status.
    public convenience init(_ table: SyncTable, _ query: Query) {
        self.init(results: { table.observe(query).mappingNewest(\.items) }, statuses: { table.context.statusUpdates() })
    }
}

extension ObservedQuery where Element: Codable {
    /// Follows `query` of a typed table (its models) and its context's status.
    public convenience init(_ table: TypedSyncTable<Element>, _ query: Query) {
        self.init(results: { table.observe(query) }, statuses: { table.context.statusUpdates() })
    }
}
